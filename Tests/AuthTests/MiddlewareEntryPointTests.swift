import DataSyncTestSupport
import Foundation
import Testing
import Transport

@testable import Auth

/// Collects log records from any thread.
// @unchecked: `records` is only read and written under `lock`.
private final class CollectingSink: HTTPLogSink, @unchecked Sendable {
    private let lock = NSLock()
    private var records: [HTTPLogRecord] = []

    func log(_ record: HTTPLogRecord) { lock.withLock { records.append(record) } }
    var events: [HTTPLogRecord.Event] { lock.withLock { records.map(\.event) } }
}

/// The SDK's middlewares have two entry points: `intercept` (what a chain of the caller's own
/// calls) and the package `interceptOnCallersActor` (what `MiddlewareClient` calls). The public
/// one comes from one shared default, so each middleware is driven through both here and must
/// act the same.
@Suite("SDK middlewares: intercept and the caller-isolated chain agree")
struct MiddlewareEntryPointTests {
    /// Sends `request` through `middleware` both ways, each over a fresh client from `makeClient`,
    /// and returns what the client saw and answered each way.
    private func bothWays(
        _ middleware: any CallerIsolatedMiddleware, _ request: HTTPRequest,
        makeClient: () -> any HTTPClient
    ) async throws -> (direct: ([HTTPRequest], Int), chained: ([HTTPRequest], Int)) {
        let directClient = RecordingHTTPClient(makeClient())
        let direct = try await middleware.intercept(request) { try await directClient.send($0) }
        let chainedClient = RecordingHTTPClient(makeClient())
        let chained = try await chainedClient.with([middleware]).send(request)
        return ((directClient.requests, direct.status), (chainedClient.requests, chained.status))
    }

    private let request = HTTPRequest(
        host: "ps.pndsn.com", path: "/v2/presence/sub-key/demo/channel/room",
        queryItems: [HTTPQueryItem(name: "auth", value: "stale")])

    @Test("AuthMiddleware adds the token either way")
    func auth() async throws {
        let middleware = AuthMiddleware(store: TokenStore(token: "token-A"))
        let (direct, chained) = try await bothWays(middleware, request) { MockHTTPClient.success() }
        #expect(direct.0.map { $0.queryValue("auth") } == ["token-A"])
        #expect(direct.0 == chained.0)
        #expect(direct.1 == chained.1)
    }

    @Test("LoggingMiddleware logs the request and its response either way")
    func logging() async throws {
        let directSink = CollectingSink()
        let chainedSink = CollectingSink()
        let directResult = try await LoggingMiddleware(sink: directSink).intercept(request) { _ in
            HTTPResponse(status: 204)
        }
        let chainedResult = try await MockHTTPClient.success(status: 204).with([LoggingMiddleware(sink: chainedSink)])
            .send(request)
        #expect(directSink.events == [.request, .response(status: 204)])
        #expect(chainedSink.events == directSink.events)
        #expect(directResult.status == chainedResult.status)
    }

    @Test("RetryMiddleware resends a 503 either way")
    func retry() async throws {
        let middleware = RetryMiddleware(
            policy: .linear(delay: .zero, maximumRetries: 2, maximumJitter: .zero), unitRandom: { 0 })
        let (direct, chained) = try await bothWays(middleware, request) {
            ScriptedHTTPClient([.success(HTTPResponse(status: 503)), .success(HTTPResponse(status: 200))])
        }
        #expect(direct.0.count == 2)
        #expect(direct.1 == 200)
        #expect(direct.0 == chained.0)
        #expect(direct.1 == chained.1)
    }
}
