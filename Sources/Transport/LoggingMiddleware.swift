import Foundation

/// Receives the records written by ``LoggingMiddleware``. Plug in your own logger.
///
/// Implementations must be safe to call from many tasks at once and should return quickly: the
/// request waits while `log` runs.
///
/// ```swift
/// struct PrintSink: HTTPLogSink {
///     func log(_ record: HTTPLogRecord) { print(record) }
/// }
/// ```
public protocol HTTPLogSink: Sendable {
    /// Handles one record.
    func log(_ record: HTTPLogRecord)
}

/// An ``HTTPLogSink`` that hands every record to a closure.
public struct ClosureLogSink: HTTPLogSink {
    private let handler: @Sendable (HTTPLogRecord) -> Void

    /// Creates a sink calling `handler` for every record.
    public init(_ handler: @escaping @Sendable (HTTPLogRecord) -> Void) {
        self.handler = handler
    }

    /// Calls the closure.
    public func log(_ record: HTTPLogRecord) { handler(record) }
}

/// One line of the HTTP log, already redacted: secrets never reach a sink.
public struct HTTPLogRecord: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Event: Sendable, Hashable {
        /// A request is about to be sent.
        case request
        /// A response arrived with this status.
        case response(status: Int)
        /// The exchange failed with this error code.
        case failure(TransportError.Code)
    }

    /// What happened.
    public var event: Event
    /// The request's method (also on the response and failure records of that request).
    public var method: HTTPMethod
    /// The URL with secret query values replaced by `REDACTED`.
    public var url: String
    /// The request headers (for ``Event/request``) or response headers, secrets replaced.
    public var headers: HTTPHeaders
    /// The size of the request body (for ``Event/request``) or response body.
    public var bodyByteCount: Int
    /// The time from sending to the response or failure; `nil` for ``Event/request``.
    public var duration: Duration?
    /// The failure's message, for ``Event/failure(_:)``.
    public var message: String?

    /// A one-line summary, for example `← 200 GET https://ps.pndsn.com/time/0 (12 bytes, 0.05 s)`.
    public var description: String {
        let elapsed = duration.map { ", " + String(format: "%.3f", $0.doubleSeconds) + " s" } ?? ""
        switch event {
        case .request:
            return "→ \(method) \(url) (\(bodyByteCount) bytes)"
        case .response(let status):
            return "← \(status) \(method) \(url) (\(bodyByteCount) bytes\(elapsed))"
        case .failure(let code):
            return "✕ \(code) \(method) \(url)\(elapsed): \(message ?? "")"
        }
    }
}

/// A middleware that reports every request and its outcome to an ``HTTPLogSink``.
///
/// Tokens are never written: the values of the query items named in ``redactedQueryItems``
/// (`auth` and `signature` by default, in any letter case) and of the headers named in
/// ``redactedHeaders`` (``HTTPHeaders/secretNames`` by default) are replaced by `REDACTED`. Bodies are never logged, only
/// their sizes. Place it inside a ``RetryMiddleware`` to see every attempt, outside to see one
/// line per call.
///
/// ```swift
/// let client = base.with([LoggingMiddleware(sink: ClosureLogSink { print($0) })])
/// ```
public struct LoggingMiddleware: CallerIsolatedMiddleware {
    /// The text that replaces a secret.
    public static let redacted = "REDACTED"

    /// Where records go.
    public let sink: any HTTPLogSink
    /// Query item names whose values are replaced (compared ignoring ASCII case).
    public let redactedQueryItems: Set<String>
    /// Header names whose values are replaced (compared ignoring case).
    public let redactedHeaders: [String]
    /// Whether headers are included in records.
    public let includesHeaders: Bool
    private let clock: any Clock<Duration>

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - sink: where records go.
    ///   - includesHeaders: whether records carry the (redacted) headers.
    ///   - redactedQueryItems: extra query names to hide; `auth` and `signature` are always hidden.
    ///   - redactedHeaders: extra header names to hide; ``HTTPHeaders/secretNames`` (`Authorization`,
    ///     `Proxy-Authorization`, `Cookie`, `Set-Cookie`) are always hidden.
    ///   - clock: measures durations.
    public init(
        sink: any HTTPLogSink, includesHeaders: Bool = true, redactedQueryItems: Set<String> = [],
        redactedHeaders: [String] = [], clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.sink = sink
        self.includesHeaders = includesHeaders
        self.redactedQueryItems = redactedQueryItems.union(HTTPRequest.secretQueryNames)
        self.redactedHeaders = HTTPHeaders.secretNames + redactedHeaders
        self.clock = clock
    }

    /// Logs the request, passes it on, and logs the response or the failure.
    package func interceptOnCallersActor(
        _ request: HTTPRequest, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let url = redactedURL(request)
        sink.log(
            HTTPLogRecord(
                event: .request, method: request.method, url: url, headers: redacted(request.headers),
                bodyByteCount: request.body?.count ?? 0))
        let started = Stopwatch(clock)
        do {
            let response = try await next(request)
            sink.log(
                HTTPLogRecord(
                    event: .response(status: response.status), method: request.method, url: url,
                    headers: redacted(response.headers), bodyByteCount: response.body.count,
                    duration: started.elapsed()))
            return response
        } catch {
            let code = (error as? TransportError)?.code ?? .other
            let message = (error as? TransportError)?.message ?? String(describing: error)
            sink.log(
                HTTPLogRecord(
                    event: .failure(code), method: request.method, url: url, headers: HTTPHeaders(),
                    bodyByteCount: 0, duration: started.elapsed(), message: message))
            throw error
        }
    }

    /// The request's URL with secret query values replaced.
    public func redactedURL(_ request: HTTPRequest) -> String {
        var copy = request
        copy.queryItems = request.queryItems.map { item in
            guard item.value != nil, redactedQueryItems.contains(where: { HTTPHeaders.namesMatch($0, item.name) })
            else { return item }
            return HTTPQueryItem(name: item.name, value: Self.redacted)
        }
        return copy.url
    }

    /// `headers` with secret values replaced, or no headers when ``includesHeaders`` is false.
    public func redacted(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard includesHeaders else { return HTTPHeaders() }
        return HTTPHeaders(
            headers.fields.map { field in
                let secret = redactedHeaders.contains { HTTPHeaders.namesMatch($0, field.name) }
                return secret ? HTTPHeaders.Field(name: field.name, value: Self.redacted) : field
            })
    }
}

/// Measures elapsed time on any clock, opening the existential once.
private struct Stopwatch {
    let elapsed: () -> Duration

    init(_ clock: any Clock<Duration>) {
        elapsed = Self.start(clock)
    }

    private static func start<C: Clock<Duration>>(_ clock: C) -> () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
