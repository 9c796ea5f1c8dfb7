import DataSyncEmulator
import Foundation
import JSONCore
import Testing

private func property(_ name: String, _ pointer: String, _ type: String = "string") -> JSONValue {
    ["name": .string(name), "pointer": .string(pointer), "type": .string(type)]
}

private func projection(_ name: String, _ pointers: [String]) -> JSONValue {
    ["name": .string(name), "pointers": .array(pointers.map(JSONValue.string))]
}

let projectionClasses: JSONValue = [
    "entityClasses": [
        // Two named projections; `/status` declared under `stats` only.
        [
            "name": "Course", "eventsEnabled": true,
            "versions": [
                [
                    "version": 1,
                    "properties": [
                        property("title", "/payload/title"), property("score", "/payload/score", "number"),
                        property("secret", "/payload/secret"), property("level", "/payload/level", "integer"),
                        property("city", "/payload/addr/city"),
                    ],
                    "projections": [
                        projection("stats", ["/payload/score", "/status"]),
                        projection("admin", ["/payload/secret", "/payload/title"]),
                    ],
                ]
            ],
        ],
        // `/status` declared nowhere: it falls back to `__default__`.
        [
            "name": "Board", "eventsEnabled": true,
            "versions": [
                [
                    "version": 1, "properties": [property("name", "/payload/name")],
                    "projections": [projection("ops", ["/payload/name"])],
                ]
            ],
        ],
        // An explicit `__default__`.
        [
            "name": "Wiki", "eventsEnabled": true,
            "versions": [
                [
                    "version": 1,
                    "properties": [property("body", "/payload/body"), property("notes", "/payload/notes")],
                    "projections": [
                        projection("__default__", ["/payload/body"]),
                        projection("admin", ["/payload/body", "/payload/notes"]),
                    ],
                ]
            ],
        ],
        // Projections but no properties: one unfiltered event.
        [
            "name": "Gadget", "eventsEnabled": true,
            "versions": [["version": 1, "projections": [projection("x", ["/payload/a"])]]],
        ],
    ],
    "relationshipClasses": [["name": "Likes", "eventsEnabled": true, "versions": [["version": 1]]]],
]

@Suite("DataSync events: projection channels", .timeLimit(.minutes(1)))
struct ProjectionTests {
    private let courseChannels = ["c1", "__stats__c1", "__admin__c1"]
    private let always = ["id", "eTag", "createdAt", "updatedAt", "expiresAt"]

    @discardableResult
    private func course(_ client: EventsClient) async throws -> RawReply {
        try await client.made(
            "entities",
            [
                "id": "c1", "entityClass": "Course", "entityClassVersion": 1, "status": "live",
                "payload": [
                    "title": "Swift", "score": 9, "secret": "s3", "level": 2, "addr": ["city": "Oslo", "zip": "0150"],
                    "extra": true,
                ],
            ])
    }

    @Test("one event per projection, each on its own channel with only its fields; status where declared")
    func twoProjections() async throws {
        let client = try EventsClient(classes: projectionClasses)
        let cursor = try await client.handshake(courseChannels)
        let created = try await course(client)
        let received = try await client.delivered(courseChannels, after: cursor)
        #expect(received.map(\.channel).sorted() == courseChannels.sorted())
        let byChannel = Dictionary(uniqueKeysWithValues: received.map { ($0.channel, $0) })
        let base = try #require(byChannel["c1"]?.data)
        #expect(base["payload"] == ["level": 2, "addr": ["city": "Oslo"]])
        #expect(base["status"] == nil)
        let stats = try #require(byChannel["__stats__c1"]?.data)
        #expect(stats["payload"] == ["score": 9])
        #expect(stats["status"] == "live")
        let admin = try #require(byChannel["__admin__c1"]?.data)
        #expect(admin["payload"] == ["secret": "s3", "title": "Swift"])
        #expect(admin["status"] == nil)
        for view in [base, stats, admin] {
            for field in always { #expect(view[field] == created.data?[field], "\(field)") }
            #expect(view["entityClass"] == nil)
        }
        #expect(received.allSatisfy { $0.payload?["metadata"]?["className"] == "Course" })
    }

    @Test("delete events are never filtered: the same payload on every projection channel")
    func deleteUnfiltered() async throws {
        let client = try EventsClient(classes: projectionClasses)
        try await course(client)
        let cursor = try await client.handshake(courseChannels)
        #expect(try await client.remove("entities", "c1").status == 200)
        let received = try await client.delivered(courseChannels, after: cursor)
        #expect(received.map(\.channel).sorted() == courseChannels.sorted())
        #expect(Set(received.compactMap(\.payload)).count == 1)
        #expect(received.first?.data?.objectValue?.keys.sorted() == ["deletedAt", "id"])
    }

    @Test("status falls back to __default__ when the class never declares it; an explicit __default__ is used")
    func statusFallbackAndExplicitDefault() async throws {
        let client = try EventsClient(classes: projectionClasses)
        let channels = ["b1", "__ops__b1", "w1", "__admin__w1"]
        let cursor = try await client.handshake(channels)
        try await client.made(
            "entities",
            ["id": "b1", "entityClass": "Board", "entityClassVersion": 1, "status": "s", "payload": ["name": "n"]])
        try await client.made(
            "entities",
            [
                "id": "w1", "entityClass": "Wiki", "entityClassVersion": 1, "status": "draft",
                "payload": ["body": "b", "notes": "n", "other": 1],
            ])
        let received = try await client.delivered(channels, after: cursor)
        let byChannel = Dictionary(uniqueKeysWithValues: received.map { ($0.channel, $0.data) })
        #expect(byChannel["b1"]??["status"] == "s")
        #expect(byChannel["b1"]??["payload"] == nil)
        #expect(byChannel["__ops__b1"]??["status"] == nil)
        #expect(byChannel["__ops__b1"]??["payload"] == ["name": "n"])
        #expect(byChannel["w1"]??["payload"] == ["body": "b"])
        #expect(byChannel["w1"]??["status"] == "draft")
        #expect(byChannel["__admin__w1"]??["payload"] == ["body": "b", "notes": "n"])
        #expect(byChannel["__admin__w1"]??["status"] == nil)
    }

    @Test("a class that declares no properties publishes one unfiltered event on the id channel")
    func noProperties() async throws {
        let client = try EventsClient(classes: projectionClasses)
        let channels = ["g1", "__x__g1"]
        let cursor = try await client.handshake(channels)
        try await client.made(
            "entities", ["id": "g1", "entityClass": "Gadget", "entityClassVersion": 1, "payload": ["a": 1, "b": 2]])
        let received = try await client.delivered(channels, after: cursor)
        #expect(received.map(\.channel) == ["g1"])
        #expect(received.first?.data?["payload"] == ["a": 1, "b": 2])
    }

    @Test("links and fan-out reach the projection mirrors of connected objects")
    func mirrorsOfConnectedObjects() async throws {
        let client = try EventsClient(classes: projectionClasses)
        try await client.made("users", ["id": "alice", "entityClassVersion": 1, "payload": ["name": "A"]])
        try await course(client)
        let channels = ["alice"] + courseChannels
        var cursor = try await client.handshake(channels)
        try await client.made(
            "relationships",
            [
                "id": "l1", "relationshipClass": "Likes", "relationshipClassVersion": 1, "entityAId": "alice",
                "entityBId": "c1",
            ])
        var received = try await client.delivered(channels, after: cursor)
        #expect(received.map(\.channel).sorted() == channels.sorted())
        #expect(received.allSatisfy { $0.id == "l1" && $0.data?["entityBId"] == "c1" })
        #expect(Set(received.compactMap(\.payload)).count == 1)

        // alice's update: her (unfiltered) view on her channel and on every channel of c1.
        cursor = try await client.handshake(channels)
        try await client.patch("users", "alice", [["op": "replace", "path": "/payload/name", "value": "B"]])
        received = try await client.delivered(channels, after: cursor)
        #expect(received.map(\.channel).sorted() == channels.sorted())
        #expect(received.allSatisfy { $0.id == "alice" && $0.data?["payload"] == ["name": "B"] })

        // c1's update: each of its channels gets its projection; alice gets the base view.
        cursor = try await client.handshake(channels)
        try await client.patch("entities", "c1", [["op": "replace", "path": "/payload/score", "value": 10]])
        received = try await client.delivered(channels, after: cursor)
        let byChannel = Dictionary(uniqueKeysWithValues: received.map { ($0.channel, $0.data) })
        #expect(byChannel["__stats__c1"]??["payload"] == ["score": 10])
        #expect(byChannel["alice"]??["payload"] == ["level": 2, "addr": ["city": "Oslo"]])
        #expect(byChannel["alice"] == byChannel["c1"])

        // Removing c1 cascades l1: its delete reaches c1's mirrors too.
        cursor = try await client.handshake(channels)
        #expect(try await client.remove("entities", "c1").status == 200)
        received = try await client.delivered(channels, after: cursor)
        #expect(
            Set(routes(received))
                == Set(channels.flatMap { ["\($0) delete entity c1", "\($0) delete relationship l1"] }))
    }
}
