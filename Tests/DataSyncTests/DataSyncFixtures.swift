import DataSync
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

/// Shared helpers of the DataSync tests: clients over recording mocks, canned answers, and the
/// exact-request comparison.
enum Fixtures {
    static let userId = "myUUID"
    static let token = "myAuthKey"

    /// A client over `transport`, answering on `subscribeKey`.
    static func pubnub(
        subscribeKey: String = "mySubKey", transport: any HTTPClient, authToken: String? = token,
        completionContext: PubNub.CompletionContext = .immediate
    ) -> PubNub {
        let configuration = PubNubConfiguration(
            publishKey: nil, subscribeKey: subscribeKey, userId: userId, authToken: authToken, transport: transport,
            retryPolicy: .none, completionContext: completionContext)
        return PubNub(configuration: configuration)
    }

    /// A client whose every request gets `status` and `body`, and the recorder that sees them.
    static func recorded(
        subscribeKey: String = "mySubKey", status: Int = 200, body: String, authToken: String? = token
    ) -> (PubNub, RecordingHTTPClient) {
        let recorder = RecordingHTTPClient(
            MockHTTPClient.success(
                status: status, body: Array(body.utf8), headers: ["Content-Type": "application/json"]))
        return (pubnub(subscribeKey: subscribeKey, transport: recorder, authToken: authToken), recorder)
    }

    static let timestamp = DataSyncWireFixtures.timestamp
    private static let expiry: [String: JSONValue] = ["expiresAt": "2026-10-08T00:00:00Z"]

    static func object(_ fields: [String: JSONValue]) -> JSONValue {
        DataSyncWireFixtures.object(fields, extra: expiry)
    }

    static func user(_ id: String) -> JSONValue { DataSyncWireFixtures.user(id: id, extra: expiry) }

    static func channel(_ id: String) -> JSONValue { DataSyncWireFixtures.channel(id: id, extra: expiry) }

    static func entity(_ id: String) -> JSONValue {
        DataSyncWireFixtures.entity(id: id, className: "Product", classVersion: 2, extra: expiry)
    }

    static func membership(_ id: String) -> JSONValue {
        DataSyncWireFixtures.membership(id: id, channelId: "ch-1", userId: "u-1", extra: expiry)
    }

    static func relationship(_ id: String) -> JSONValue {
        DataSyncWireFixtures.relationship(
            id: id, className: "RequestedBy", entityAId: "quote-1", entityBId: "customer-7", extra: expiry)
    }

    /// `{"data": value}` as text.
    static func envelope(_ value: JSONValue) -> String {
        JSONValue.object(["data": value]).description
    }

    /// A list answer as text.
    static func page(_ items: [JSONValue], hasNext: Bool? = nil, cursor: String? = nil) -> String {
        var root: [String: JSONValue] = ["data": .array(items)]
        if let hasNext {
            var meta: [String: JSONValue] = ["has_next": .bool(hasNext), "limit": .int(Int64(items.count))]
            meta["next_cursor"] = cursor.map(JSONValue.string) ?? .null
            root["meta"] = .object(meta)
        }
        return JSONValue.object(root).description
    }

    /// Compares a sent request with the expected one: method, path, every query item (sorted, with
    /// `uuid`, `pnsdk` and, when a token is set, `auth` added), every header, and the body as JSON.
    static func expect(
        _ request: HTTPRequest?, method: String, path: String, query: [String: String] = [:],
        headers: [String: String] = [:], body: JSONValue? = nil, token: String? = Fixtures.token,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let request = try #require(request, "no request was sent", sourceLocation: sourceLocation)
        #expect(request.method.rawValue == method, sourceLocation: sourceLocation)
        #expect(request.path == path, sourceLocation: sourceLocation)
        var expectedQuery = query
        expectedQuery["uuid"] = userId
        expectedQuery["pnsdk"] = "PubNub-Swift-DataSync/0.1.0"
        if let token { expectedQuery["auth"] = token }
        let sentQuery = request.queryItems.map { "\($0.name)=\($0.value ?? "")" }.sorted()
        let wantedQuery = expectedQuery.map { "\($0.key)=\($0.value)" }.sorted()
        #expect(sentQuery == wantedQuery, sourceLocation: sourceLocation)
        let sentHeaders = request.headers.map { "\($0.name.lowercased()): \($0.value)" }.sorted()
        let wantedHeaders = headers.map { "\($0.key.lowercased()): \($0.value)" }.sorted()
        #expect(sentHeaders == wantedHeaders, sourceLocation: sourceLocation)
        if let body {
            let sent = try #require(request.body, "the request has no body", sourceLocation: sourceLocation)
            #expect(try JSONValue(parsing: sent) == body, sourceLocation: sourceLocation)
        } else {
            #expect(request.body == nil, sourceLocation: sourceLocation)
        }
    }

    /// Runs `body` and returns the ``PubNubError`` it throws.
    static func pubNubError(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async throws -> PubNubError {
        do {
            try await body()
        } catch {
            return try #require(error.pubNubError, "not a PubNubError: \(error)", sourceLocation: sourceLocation)
        }
        Issue.record("no error was thrown", sourceLocation: sourceLocation)
        throw PubNubError(reason: .transportFailure, message: "expected an error")
    }
}
