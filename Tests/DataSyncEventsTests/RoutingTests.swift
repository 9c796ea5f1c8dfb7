import DataSyncEmulator
import Foundation
import JSONCore
import Testing

/// Classes for the routing tests: a User subclass, an entity class, a class with events off and
/// two relationship classes.
let routingClasses: JSONValue = [
    "entityClasses": [
        [
            "name": "Employee", "extends": "User", "eventsEnabled": true,
            "versions": [
                ["version": 1, "properties": [["name": "team", "pointer": "/payload/team", "type": "string"]]]
            ],
        ],
        ["name": "Product", "eventsEnabled": true, "versions": [["version": 1]]],
        ["name": "Quiet", "versions": [["version": 1]]],
    ],
    "relationshipClasses": [
        [
            "name": "Bought", "eventsEnabled": true, "entityAClass": "User", "entityBClass": "Product",
            "versions": [["version": 1]],
        ],
        ["name": "Likes", "eventsEnabled": true, "versions": [["version": 1]]],
        ["name": "Mutes", "versions": [["version": 1]]],
    ],
]

@Suite("DataSync events: envelope and routing", .timeLimit(.minutes(1)))
struct RoutingTests {
    /// alice (User) is in general (Channel) by m1, bought p1 (Product) by r1, and q1 (Product)
    /// likes alice by r2 (alice on side B).
    /// alice (User) is in general (Channel) by m1, bought p1 (Product) by r1, and q1 (Product)
    /// likes alice by r2 (alice on side B).
    private func graph() async throws -> EventsClient {
        try await graph(into: EventsClient(classes: routingClasses))
    }

    private let everyChannel = ["alice", "general", "p1", "q1", "m1", "r1", "r2"]

    @Test("a create is one e: 5 envelope on the object's id, no publisher, the full object without class fields")
    func createEnvelope() async throws {
        let client = try EventsClient()
        let cursor = try await client.handshake(["alice"])
        let created = try await client.made(
            "users", ["id": "alice", "status": "active", "entityClassVersion": 1, "payload": ["name": "Alice"]])
        let received = try await client.delivered(["alice"], after: cursor)
        try #require(received.count == 1)
        let envelope = received[0].envelope
        #expect(envelope["e"] == 5)
        #expect(envelope["i"] == nil)
        #expect(envelope["c"] == "alice")
        #expect(envelope["k"] == "demo")
        let payload = try #require(received[0].payload)
        #expect(payload["version"] == "1.0")
        #expect(
            payload["metadata"]
                == [
                    "event": "create", "source": "data-sync", "type": "user", "className": "User",
                    "classLevel": "Global", "classVersion": 1,
                ])
        var object = try #require(created.data?.objectValue)
        for field in ["entityClass", "entityClassVersion", "entityClassLevel"] { object[field] = nil }
        #expect(payload["data"] == .object(object))
        #expect(payload["data"]?["status"] == "active")
        // The envelope's timetoken is the one the emulator reports for the event.
        let published = client.emulator.publishedDataSyncEvents()
        #expect(envelope["p"]?["t"]?.stringValue == published.first.map { String($0.timetoken) })
    }

    @Test("PUT and PATCH publish update with the full current object; delete carries only id and deletedAt")
    func updateAndDeleteEnvelopes() async throws {
        let client = try EventsClient()
        try await client.made("users", ["id": "alice", "entityClassVersion": 1, "payload": ["name": "A"]])
        let cursor = try await client.handshake(["alice"])
        let put = try await client.set("users", "alice", ["entityClassVersion": 1, "payload": ["name": "B"]])
        let patch = try await client.patch(
            "users", "alice", [["op": "add", "path": "/payload/age", "value": 3]])
        client.clock.advance(by: .seconds(5))
        #expect(try await client.remove("users", "alice").status == 200)
        let received = try await client.delivered(["alice"], after: cursor)
        #expect(received.map(\.event) == ["update", "update", "delete"])
        #expect(received[0].data?["payload"] == ["name": "B"])
        #expect(received[0].data?["eTag"] == put.data?["eTag"])
        #expect(received[1].data?["payload"] == ["name": "B", "age": 3])
        #expect(received[1].data?["updatedAt"] == patch.data?["updatedAt"])
        #expect(received[2].data == ["id": "alice", "deletedAt": "2026-09-07T07:35:00.265625Z"])
        #expect(received[2].payload?["metadata"]?["className"] == "User")
    }

    @Test("a User subclass keeps type user; a membership carries channelId and userId; an entity is type entity")
    func semanticTypes() async throws {
        let client = try EventsClient(classes: routingClasses)
        let cursor = try await client.handshake(["e1", "general", "p1"])
        try await client.made("users", ["id": "e1", "entityClass": "Employee", "entityClassVersion": 1])
        try await client.made("channels", ["id": "general", "entityClassVersion": 1])
        try await client.made("entities", ["id": "p1", "entityClass": "Product", "entityClassVersion": 1])
        try await client.made(
            "memberships", ["id": "m1", "channelId": "general", "userId": "e1", "relationshipClassVersion": 1])
        let received = try await client.delivered(["e1", "general", "p1"], after: cursor)
        let employee = try #require(received.first { $0.id == "e1" })
        #expect(employee.type == "user")
        #expect(employee.payload?["metadata"]?["className"] == "Employee")
        #expect(employee.payload?["metadata"]?["classLevel"] == "SubKey")
        #expect(received.first { $0.id == "p1" }?.type == "entity")
        let membership = try #require(received.first { $0.id == "m1" })
        #expect(membership.type == "membership")
        #expect(membership.payload?["metadata"]?["className"] == "Membership")
        #expect(membership.data?["channelId"] == "general")
        #expect(membership.data?["userId"] == "e1")
        #expect(membership.data?["relationshipClass"] == nil)
    }

    @Test("creates: an object on its own id only; a membership and a relationship on both sides, never on their ids")
    func createRouting() async throws {
        let client = try EventsClient(classes: routingClasses)
        let cursor = try await client.handshake(everyChannel)
        _ = try await graph(into: client)
        let received = try await client.delivered(everyChannel, after: cursor)
        #expect(
            Set(routes(received)) == [
                "alice create user alice", "general create channel general", "p1 create entity p1",
                "q1 create entity q1",
                "general create membership m1", "alice create membership m1",
                "alice create relationship r1", "p1 create relationship r1",
                "q1 create relationship r2", "alice create relationship r2",
            ])
        #expect(received.count == 10)
        #expect(!received.contains { ["m1", "r1", "r2"].contains($0.channel) })
    }

    @Test("an update fans out to every connected object, in either direction, and to nothing else")
    func updateFanOut() async throws {
        let client = try await graph()
        try await client.made("users", ["id": "bob", "entityClassVersion": 1])
        var cursor = try await client.handshake(everyChannel + ["bob"])
        try await client.patch("users", "alice", [["op": "replace", "path": "/payload/name", "value": "Al"]])
        var received = try await client.delivered(everyChannel + ["bob"], after: cursor)
        #expect(
            Set(routes(received)) == [
                "alice update user alice", "general update user alice", "p1 update user alice",
                "q1 update user alice",
            ])
        #expect(received.count == 4)
        #expect(Set(received.compactMap(\.data)).count == 1)

        // From the B side of a relationship (p1 is Bought's B): back to alice only.
        cursor = try await client.handshake(everyChannel + ["bob"])
        try await client.set("entities", "p1", ["entityClassVersion": 1, "payload": ["price": 2]])
        received = try await client.delivered(everyChannel + ["bob"], after: cursor)
        #expect(Set(routes(received)) == ["p1 update entity p1", "alice update entity p1"])

        // A channel's update reaches its members.
        cursor = try await client.handshake(everyChannel)
        try await client.set("channels", "general", ["entityClassVersion": 1, "status": "open"])
        received = try await client.delivered(everyChannel, after: cursor)
        #expect(Set(routes(received)) == ["general update channel general", "alice update channel general"])

        // A membership's update: both sides, never its id.
        cursor = try await client.handshake(everyChannel)
        try await client.set("memberships", "m1", ["relationshipClassVersion": 1, "status": "admin"])
        received = try await client.delivered(everyChannel, after: cursor)
        #expect(Set(routes(received)) == ["general update membership m1", "alice update membership m1"])
        #expect(received.allSatisfy { $0.data?["status"] == "admin" && $0.data?["channelId"] == "general" })
    }

    @Test("deleting a user publishes its delete on itself and every connected object, then one per cascaded link")
    func cascadeDelete() async throws {
        let client = try await graph()
        let cursor = try await client.handshake(everyChannel)
        let before = await client.emulator.lastSequence
        #expect(try await client.remove("users", "alice").status == 200)
        let received = try await client.delivered(everyChannel, after: cursor)
        #expect(
            Set(routes(received)) == [
                "alice delete user alice", "general delete user alice", "p1 delete user alice",
                "q1 delete user alice",
                "general delete membership m1", "alice delete membership m1",
                "alice delete relationship r1", "p1 delete relationship r1",
                "q1 delete relationship r2", "alice delete relationship r2",
            ])
        #expect(received.count == 10)
        #expect(received.allSatisfy { $0.data?.objectValue?.keys.sorted() == ["deletedAt", "id"] })
        // The user's delete comes first, then the cascades in id order: the write's commit order.
        let published = client.emulator.publishedDataSyncEvents(afterChange: before)
        #expect(published.map(\.channel) == received.map(\.channel))
        #expect(
            published.map { $0.payload["data"]?["id"]?.stringValue ?? "" }.removingRepeats() == [
                "alice", "m1", "r1", "r2",
            ])
        #expect(published.map(\.timetoken) == published.map(\.timetoken).sorted())
        // Nothing is connected any more: p1's next update stays on p1.
        let later = try await client.handshake(everyChannel)
        try await client.set("entities", "p1", ["entityClassVersion": 1])
        #expect(routes(try await client.delivered(everyChannel, after: later)) == ["p1 update entity p1"])
    }

    @Test("a client subscribed to both sides of a membership receives its change twice, once per channel")
    func bothSides() async throws {
        let client = try await graph()
        let cursor = try await client.handshake(["alice", "general"])
        try await client.patch("memberships", "m1", [["op": "add", "path": "/payload/role", "value": "owner"]])
        let received = try await client.delivered(["alice", "general"], after: cursor)
        #expect(received.map(\.channel).sorted() == ["alice", "general"])
        #expect(received[0].payload == received[1].payload)
    }

    @Test("classes with events off publish nothing, a failed write publishes nothing, expiry publishes nothing")
    func silentWrites() async throws {
        let client = try await graph()
        let channels = everyChannel + ["z1", "z2"]
        let cursor = try await client.handshake(channels)
        let before = await client.emulator.lastSequence
        try await client.made("entities", ["id": "z1", "entityClass": "Quiet", "entityClassVersion": 1])
        try await client.set("entities", "z1", ["entityClassVersion": 1, "status": "x"])
        try await client.made(
            "relationships",
            [
                "id": "z2", "relationshipClass": "Mutes", "relationshipClassVersion": 1, "entityAId": "alice",
                "entityBId": "p1",
            ])
        #expect(try await client.remove("entities", "z1").status == 200)
        // A duplicate id, a missing object, a failing patch test: refused, no event.
        #expect(try await client.create("users", ["id": "alice", "entityClassVersion": 1]).status == 409)
        #expect(try await client.set("users", "nobody", ["entityClassVersion": 1]).status == 404)
        let failedTest: JSONValue = [["op": "test", "path": "/payload/name", "value": "x"]]
        #expect(try await client.patch("users", "alice", failedTest).status == 409)
        #expect(client.emulator.publishedDataSyncEvents(afterChange: before).isEmpty)
        await client.emulator.advanceTime(days: 40)
        #expect(try await client.dataSync("GET", "users/alice").status == 404)
        let received = try await client.delivered(channels, after: cursor)
        // Everything expired (with its links): still nothing on any channel.
        #expect(received.isEmpty)
        #expect(client.emulator.publishedDataSyncEvents(afterChange: before).isEmpty)
        let changes = await client.emulator.changes(after: before)
        #expect(changes.contains { $0.cause == .expiry && $0.id == "alice" })
    }

    @Test("a write's events are on the bus when its answer arrives, after a cursor drawn before the write")
    func eventsBeforeAnswer() async throws {
        let client = try await graph()
        let before = await client.emulator.lastSequence
        let drawn = try await client.handshake(["alice"])
        try await client.patch("users", "alice", [["op": "add", "path": "/status", "value": "away"]])
        let published = client.emulator.publishedDataSyncEvents(afterChange: before)
        #expect(published.count == 4)
        #expect(published.allSatisfy { $0.timetoken > drawn })
        // A cursor drawn after the answer comes after the write's events.
        let after = try await client.handshake(["alice"])
        #expect(published.allSatisfy { $0.timetoken < after })
        let received = try await client.delivered(["alice", "general", "p1", "q1"], after: drawn)
        #expect(received.count == 4)
    }

    @Test("the in-process stream sees a seed's events once they are published")
    func streamAndSeed() async throws {
        let client = try EventsClient()
        let stream = client.emulator.publishedDataSyncEventStream()
        try await client.emulator.seed(["keysets": ["demo": ["users": [["id": "u1"], ["id": "u2"]]]]])
        var iterator = stream.makeAsyncIterator()
        let first = try #require(await iterator.next())
        let second = try #require(await iterator.next())
        #expect([first.channel, second.channel] == ["u1", "u2"])
        #expect(first.timetoken < second.timetoken)
        #expect(first.payload["metadata"]?["event"] == "create")
    }

    private func graph(into client: EventsClient) async throws -> EventsClient {
        try await client.made("users", ["id": "alice", "entityClassVersion": 1, "payload": ["name": "Alice"]])
        try await client.made("channels", ["id": "general", "entityClassVersion": 1])
        for id in ["p1", "q1"] {
            try await client.made("entities", ["id": .string(id), "entityClass": "Product", "entityClassVersion": 1])
        }
        try await client.made(
            "memberships", ["id": "m1", "channelId": "general", "userId": "alice", "relationshipClassVersion": 1])
        try await client.made(
            "relationships",
            [
                "id": "r1", "relationshipClass": "Bought", "relationshipClassVersion": 1, "entityAId": "alice",
                "entityBId": "p1",
            ])
        try await client.made(
            "relationships",
            [
                "id": "r2", "relationshipClass": "Likes", "relationshipClassVersion": 1, "entityAId": "q1",
                "entityBId": "alice",
            ])
        return client
    }
}

extension Array where Element: Equatable {
    /// The elements without runs of equal neighbours.
    func removingRepeats() -> [Element] {
        reduce(into: []) { result, element in
            if result.last != element { result.append(element) }
        }
    }
}
