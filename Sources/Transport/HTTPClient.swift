/// Sends one HTTP request and returns its response: the single seam between the SDK and the
/// network, so you can replace it in tests or bring your own HTTP stack.
///
/// ## Contract
/// An implementation must:
/// - be safe to call from many tasks at once (it is `Sendable` and is shared by every request);
/// - return any response the server sent, whatever its status; a 4xx or 5xx is not an error;
/// - throw ``TransportError`` when no complete response was received (refused connection,
///   timeout, a connection closed mid-body, TLS failure, …), never a truncated response;
/// - honour task cancellation promptly: when the calling task is cancelled, abort the exchange
///   and throw ``TransportError`` with code ``TransportError/Code-swift.struct/cancelled``;
/// - apply ``HTTPRequest/timeout`` to the whole exchange when it is set.
///
/// ```swift
/// struct CannedClient: HTTPClient {
///     func send(_ request: HTTPRequest) async throws -> HTTPResponse {
///         HTTPResponse(status: 200, body: Array(#"{"data":[]}"#.utf8))
///     }
/// }
/// ```
public protocol HTTPClient: Sendable {
    /// Sends `request` and returns the complete response.
    ///
    /// - Throws: ``TransportError`` when the exchange fails.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// An executor on the thread that completes the client's transfers, for tasks that want to
    /// resume there (see ``CurlHTTPClient/taskExecutor``); `nil`, the default, when the client
    /// has none. Pass it to `withTaskExecutorPreference(_:operation:)` as it is: a `nil`
    /// preference changes nothing.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    var taskExecutor: (any TaskExecutor)? { get }
}

extension HTTPClient {
    /// No executor of its own: tasks resume where they would anyway.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    public var taskExecutor: (any TaskExecutor)? { nil }
}

/// A step in front of an ``HTTPClient`` that may change the request, the response, or both, and
/// decides whether and how often to call `next` (retry, auth and logging are middlewares).
///
/// ```swift
/// struct UserAgent: HTTPMiddleware {
///     func intercept(
///         _ request: HTTPRequest, next: @concurrent @Sendable (HTTPRequest) async throws -> HTTPResponse
///     ) async throws -> HTTPResponse {
///         var request = request
///         request.headers["User-Agent"] = "my-app/1.0"
///         return try await next(request)
///     }
/// }
/// ```
///
/// `next` is `@concurrent`: it runs on the global executor, whatever actor the middleware runs on.
/// Spelling the attribute out, as above, makes the conformance compile the same with and without
/// `NonisolatedNonsendingByDefault` (Swift 6.2's approachable concurrency); without that feature
/// the plain `@Sendable (HTTPRequest) async throws -> HTTPResponse` means the same.
/// A chain of only the SDK's own middlewares (auth, retry) never leaves the caller's actor; a
/// middleware of yours adds one hop to the global executor and one back.
public protocol HTTPMiddleware: Sendable {
    /// Handles `request`, calling `next` to pass it on towards the client.
    func intercept(
        _ request: HTTPRequest, next: @concurrent @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse
}

/// A middleware of the SDK's own whose chain runs on the caller's actor: ``MiddlewareClient``
/// calls ``interceptOnCallersActor(_:next:)`` instead of
/// ``HTTPMiddleware/intercept(_:next:)``, so the request goes on to the next link without a hop
/// to the global executor. A conforming type implements only `interceptOnCallersActor`; its
/// public `intercept` is the one below, so the two paths cannot drift apart.
package protocol CallerIsolatedMiddleware: HTTPMiddleware {
    /// Handles `request` on the caller's actor, calling `next` (also on the caller's actor).
    func interceptOnCallersActor(
        _ request: HTTPRequest, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse
}

extension CallerIsolatedMiddleware {
    /// Handles `request` as the middleware's type describes, calling `next` to pass it on: what
    /// a chain of your own calls.
    public func intercept(
        _ request: HTTPRequest, next: @concurrent @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        try await interceptOnCallersActor(request, next: next)
    }
}

/// An ``HTTPClient`` that runs a chain of middlewares in front of another client. The first
/// middleware sees the request first and the response last.
public struct MiddlewareClient: HTTPClient {
    /// The client at the end of the chain.
    public let client: any HTTPClient
    /// The middlewares, outermost first.
    public let middlewares: [any HTTPMiddleware]

    /// Creates a chain in front of `client`.
    public init(client: any HTTPClient, middlewares: [any HTTPMiddleware]) {
        self.client = client
        self.middlewares = middlewares
    }

    /// Sends the request through every middleware, then the client.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await run(request, from: 0)
    }

    private func run(_ request: HTTPRequest, from index: Int) async throws -> HTTPResponse {
        guard index < middlewares.count else { return try await client.send(request) }
        let middleware = middlewares[index]
        if let own = middleware as? any CallerIsolatedMiddleware {
            return try await own.interceptOnCallersActor(request) { next in
                try await self.run(next, from: index + 1)
            }
        }
        return try await middleware.intercept(request) { next in
            try await self.run(next, from: index + 1)
        }
    }
}

extension HTTPClient {
    /// This client with `middlewares` in front of it, outermost first.
    public func with(_ middlewares: [any HTTPMiddleware]) -> MiddlewareClient {
        MiddlewareClient(client: self, middlewares: middlewares)
    }
}
