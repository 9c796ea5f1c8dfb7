import Foundation
public import JSONCore
import PubNubBase
public import Transport

/// An `HTTPClient` whose answer comes from a closure, for unit tests that swap out the network.
///
/// ```swift
/// let client = MockHTTPClient.json(["data": ["id": "u1"]])
/// let failing = MockHTTPClient.failure(TransportError(code: .timedOut, message: "slow"))
/// ```
public struct MockHTTPClient: HTTPClient {
    private let handler: @Sendable (HTTPRequest) async throws -> HTTPResponse

    /// Creates a client that answers every request with `handler`.
    public init(_ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        self.handler = handler
    }

    /// Returns what the handler returns, or throws what it throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await handler(request)
    }

    /// A client that answers every request with `status`, `body` and `headers`.
    ///
    /// - Parameters:
    ///   - status: The status of every answer; 200 by default. Any status is a response, so 404 or 503
    ///     work too.
    ///   - body: The body of every answer, such as a `DataSyncWireFixtures` envelope; empty by default.
    ///   - headers: The headers of every answer; none by default.
    public static func success(
        status: Int = 200, body: [UInt8] = [], headers: HTTPHeaders = HTTPHeaders()
    ) -> MockHTTPClient {
        MockHTTPClient { _ in HTTPResponse(status: status, headers: headers, body: body) }
    }

    /// A client that answers every request with `value` encoded as JSON and a JSON content type.
    public static func json(_ value: JSONValue, status: Int = 200) -> MockHTTPClient {
        let body = (try? value.jsonBytes()) ?? []
        return success(status: status, body: body, headers: ["Content-Type": "application/json"])
    }

    /// A client whose every request fails with `error`.
    public static func failure(_ error: TransportError) -> MockHTTPClient {
        MockHTTPClient { _ in throw error }
    }
}

/// An `HTTPClient` that answers from a script: the n-th request gets the n-th result. A request
/// beyond the script fails with `TransportError.Code.other`, so a test notices
/// unexpected traffic.
public final class ScriptedHTTPClient: HTTPClient, Sendable {
    private let results: [Result<HTTPResponse, TransportError>]
    private let position = Locked(0)

    /// Creates a client that returns `results` in order.
    public init(_ results: [Result<HTTPResponse, TransportError>]) {
        self.results = results
    }

    /// How many requests were answered so far.
    public var requestCount: Int { position.withLock { $0 } }

    /// Returns the next scripted result.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let next: Result<HTTPResponse, TransportError>? = position.withLock { position in
            defer { position += 1 }
            return position < results.count ? results[position] : nil
        }
        guard let next else {
            throw TransportError(code: .other, message: "unexpected request \(request.method) \(request.target)")
        }
        return try next.get()
    }
}

/// An `HTTPClient` that keeps every request it sends on to another client, so tests can assert
/// the exact method, path, query, headers and body.
public final class RecordingHTTPClient: HTTPClient, Sendable {
    private let base: any HTTPClient
    private let recorded = Locked<[HTTPRequest]>([])

    /// Creates a recorder in front of `base`.
    public init(_ base: any HTTPClient) {
        self.base = base
    }

    /// Every request sent so far, in the order they were sent.
    public var requests: [HTTPRequest] { recorded.withLock { $0 } }

    /// The most recent request.
    public var lastRequest: HTTPRequest? { recorded.withLock { $0.last } }

    /// Records the request, then sends it through the wrapped client.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        return try await base.send(request)
    }
}
