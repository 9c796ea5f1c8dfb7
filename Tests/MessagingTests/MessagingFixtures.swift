import DataSyncTestSupport
import Foundation
import JSONCore
import Messaging
import Testing
import Transport

/// Shared helpers of the Messaging tests: clients over recording mocks and request comparison.
enum MessagingFixtures {
    static let publishKey = "myPublishKey"
    static let subscribeKey = "mySubKey"
    static let userId = "myUUID"
    static let token = "myAuthKey"
    static let sent = #"[1,"Sent","14647523059145592"]"#

    /// A client over `transport`.
    static func pubnub(
        transport: any HTTPClient, publishKey: String? = publishKey, subscribeKey: String = subscribeKey,
        userId: String = userId, retryPolicy: RetryPolicy = .none
    ) -> PubNub {
        PubNub(
            configuration: PubNubConfiguration(
                publishKey: publishKey, subscribeKey: subscribeKey, userId: userId, authToken: token,
                transport: transport, retryPolicy: retryPolicy))
    }

    /// A client whose every request gets `status` and `body`, and the recorder that sees them.
    static func recorded(
        status: Int = 200, body: String = sent, publishKey: String? = publishKey,
        subscribeKey: String = subscribeKey, userId: String = userId
    ) -> (PubNub, RecordingHTTPClient) {
        let recorder = RecordingHTTPClient(
            MockHTTPClient.success(
                status: status, body: Array(body.utf8), headers: ["Content-Type": "text/javascript; charset=\"UTF-8\""])
        )
        return (
            pubnub(transport: recorder, publishKey: publishKey, subscribeKey: subscribeKey, userId: userId), recorder
        )
    }

    /// The operation's query, without the parameters every request carries (`uuid`, `pnsdk`, `auth`).
    static func operationQuery(_ request: HTTPRequest) -> [String: String] {
        var query: [String: String] = [:]
        for item in request.queryItems where !["uuid", "pnsdk", "auth"].contains(item.name) {
            query[item.name] = item.value ?? ""
        }
        return query
    }

    /// Checks method, exact path, the operation query (order-independent) and the identity stamping
    /// (`auth` is absent on `/time`).
    static func expect(
        _ request: HTTPRequest?, method: String, path: String, query: [String: String] = [:],
        userId: String = userId, auth: String? = token, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let request = try #require(request, sourceLocation: sourceLocation)
        #expect(request.method.rawValue == method, sourceLocation: sourceLocation)
        #expect(request.path == path, sourceLocation: sourceLocation)
        #expect(operationQuery(request) == query, sourceLocation: sourceLocation)
        #expect(request.queryValue("uuid") == userId, sourceLocation: sourceLocation)
        #expect(request.queryValue("pnsdk") == PubNub.pnsdk, sourceLocation: sourceLocation)
        #expect(request.queryValue("auth") == auth, sourceLocation: sourceLocation)
    }

    /// Runs `operation` and returns the ``PubNubError`` it throws.
    static func error(_ operation: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async
        -> PubNubError?
    {
        do {
            try await operation()
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error.pubNubError
        }
    }

    /// `text` percent-decoded (for reading a message out of a path).
    static func percentDecoded(_ text: String) -> String? {
        text.removingPercentEncoding
    }
}
