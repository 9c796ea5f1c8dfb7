import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

/// 2026-09-07T07:34:55.265625Z: a start instant whose fraction is exact in binary.
let startInstant = Date(timeIntervalSince1970: 1_788_766_495.265_625)

/// A response with helpers to read the DataSync envelopes.
struct Reply {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var json: JSONValue? { body.isEmpty ? nil : try? JSONValue(parsing: body) }
    var data: JSONValue? { json?["data"] }
    var errorCode: String? { json?["errors"]?[0]?["errorCode"]?.stringValue }
    var errorPath: String? { json?["errors"]?[0]?["path"]?.stringValue }
    var errorMessage: String? { json?["errors"]?[0]?["message"]?.stringValue }
    var contentType: String? { headers.first { $0.name.lowercased() == "content-type" }?.value }
    var eTag: String? { data?["eTag"]?.stringValue }
    func requiredETag() throws -> String { try #require(eTag) }
    var ids: [String] { data?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }
    var nextCursor: String? { json?["meta"]?["next_cursor"]?.stringValue }

    /// Expects a refusal with `status` whose first error names `path` (both checked, each its own
    /// expectation, reported at the caller's line).
    func expectRefused(_ status: Int, at path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self.status == status, sourceLocation: sourceLocation)
        #expect(errorPath == path, sourceLocation: sourceLocation)
    }

    /// Expects an error answer with `status` whose first error has `code` and, when `path` is
    /// given, names `path` (each its own expectation, reported at the caller's line).
    func expectError(
        _ status: Int, _ code: String, at path: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(self.status == status, sourceLocation: sourceLocation)
        #expect(errorCode == code, sourceLocation: sourceLocation)
        if let path { #expect(errorPath == path, sourceLocation: sourceLocation) }
    }
}

/// Sends hand-built raw requests to an emulator, as an HTTP server would hand them over.
struct TestClient {
    let emulator: Emulator
    var subscribeKey = "sub-a"

    init(configuration: EmulatorConfiguration = EmulatorConfiguration(startTime: startInstant)) throws {
        emulator = try Emulator(configuration: configuration)
    }

    init(emulator: Emulator, subscribeKey: String = "sub-a") {
        self.emulator = emulator
        self.subscribeKey = subscribeKey
    }

    static func mediaType(_ resource: String) -> String { "application/vnd.pubnub.objects.\(resource)+json;version=1" }

    func path(_ rest: String) -> String { "/v1/datasync/subkeys/\(subscribeKey)/\(rest)" }

    /// Sends `method` to `/v1/datasync/subkeys/{sub}/{rest}`; `rest` may hold a raw query.
    func send(
        _ method: String, _ rest: String, body: JSONValue? = nil, contentType: String? = nil,
        headers: [(name: String, value: String)] = []
    ) async throws -> Reply {
        try await sendRaw(
            method, path(rest), body: body.map { try $0.jsonBytes() } ?? [], contentType: contentType, headers: headers)
    }

    func sendRaw(
        _ method: String, _ target: String, body: [UInt8] = [], contentType: String? = nil,
        headers: [(name: String, value: String)] = []
    ) async throws -> Reply {
        var all = headers
        if let contentType { all.append(("Content-Type", contentType)) }
        let response = await emulator.respond(
            to: ServerRequest(method: method, target: target, headers: all, body: body))
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }

    /// POST `{"data": data}` to a collection with its vendor media type.
    func create(_ collection: String, _ data: JSONValue) async throws -> Reply {
        try await send("POST", collection, body: ["data": data], contentType: Self.mediaType(Self.resource(collection)))
    }

    func set(_ collection: String, _ id: String, _ data: JSONValue, ifMatch: String? = nil) async throws -> Reply {
        try await send(
            "PUT", "\(collection)/\(id)", body: ["data": data], contentType: Self.mediaType(Self.resource(collection)),
            headers: ifMatch.map { [("If-Match", $0)] } ?? [])
    }

    func patch(_ collection: String, _ id: String, _ operations: JSONValue, ifMatch: String? = nil) async throws
        -> Reply
    {
        try await send(
            "PATCH", "\(collection)/\(id)", body: operations, contentType: "application/json-patch+json",
            headers: ifMatch.map { [("If-Match", $0)] } ?? [])
    }

    func get(_ collectionAndQuery: String) async throws -> Reply { try await send("GET", collectionAndQuery) }

    func remove(_ collection: String, _ id: String, ifMatch: String? = nil) async throws -> Reply {
        try await send("DELETE", "\(collection)/\(id)", headers: ifMatch.map { [("If-Match", $0)] } ?? [])
    }

    /// Creates a user and requires the 201.
    @discardableResult
    func user(_ id: String, payload: JSONValue = ["name": "x"], extra: [String: JSONValue] = [:]) async throws -> Reply
    {
        var data: [String: JSONValue] = ["id": .string(id), "entityClassVersion": 1, "payload": payload]
        data.merge(extra) { $1 }
        let reply = try await create("users", .object(data))
        try #require(reply.status == 201, "creating user \(id): \(String(decoding: reply.body, as: UTF8.self))")
        return reply
    }

    @discardableResult
    func channel(_ id: String, payload: JSONValue = ["name": "x"]) async throws -> Reply {
        let reply = try await create("channels", ["id": .string(id), "entityClassVersion": 1, "payload": payload])
        try #require(reply.status == 201, "creating channel \(id): \(String(decoding: reply.body, as: UTF8.self))")
        return reply
    }

    @discardableResult
    func membership(_ id: String, channel: String, user: String) async throws -> Reply {
        let reply = try await create(
            "memberships",
            ["id": .string(id), "channelId": .string(channel), "userId": .string(user), "relationshipClassVersion": 1])
        try #require(reply.status == 201, "creating membership \(id): \(String(decoding: reply.body, as: UTF8.self))")
        return reply
    }

    /// Defines classes through the class endpoints and requires the 201s.
    func defineEntityClass(_ definition: JSONValue) async throws {
        let reply = try await send(
            "POST", "entity-classes", body: ["data": definition], contentType: "application/json")
        try #require(reply.status == 201, "defining class: \(String(decoding: reply.body, as: UTF8.self))")
    }

    func defineRelationshipClass(_ definition: JSONValue) async throws {
        let reply = try await send(
            "POST", "relationship-classes", body: ["data": definition], contentType: "application/json")
        try #require(reply.status == 201, "defining class: \(String(decoding: reply.body, as: UTF8.self))")
    }

    static func resource(_ collection: String) -> String {
        switch collection {
        case "users": return "user"
        case "channels": return "channel"
        case "entities": return "entity"
        case "memberships": return "membership"
        default: return "relationship"
        }
    }

    /// Follows `next_cursor` from `firstQuery` until the last page; returns every id in order.
    func pageThrough(_ collection: String, query: String, between: (Int) async throws -> Void = { _ in }) async throws
        -> [String]
    {
        var ids: [String] = []
        var cursor: String?
        var page = 0
        repeat {
            let suffix = cursor.map { "&cursor=" + $0 } ?? ""
            let reply = try await get("\(collection)?\(query)\(suffix)")
            try #require(reply.status == 200, "page \(page): \(String(decoding: reply.body, as: UTF8.self))")
            ids += reply.ids
            cursor = reply.nextCursor
            page += 1
            try await between(page)
        } while cursor != nil && page < 1000
        return ids
    }
}

/// A product class with a `simple` and a `full` property, and a version-2-only property.
let productClass = ClassFixtures.entityClass(
    "Product",
    versions: [
        ClassFixtures.version([
            ClassFixtures.property("price", "number", filtering: "simple"),
            ClassFixtures.property("title", "string", filtering: "full"),
            ClassFixtures.property("notes", "string", filtering: "simple"),
            ClassFixtures.property("secret", "string", filtering: "none"),
        ]),
        ClassFixtures.version(
            [
                ClassFixtures.property("price", "number", filtering: "simple"),
                ClassFixtures.property("title", "string", filtering: "full"),
                ClassFixtures.property("secret", "string", filtering: "none"),
            ], number: 2),
    ])

let employeeClass = ClassFixtures.entityClass(
    "Employee", extends: "User",
    versions: [ClassFixtures.version([ClassFixtures.property("team", "string", filtering: "full")])])
