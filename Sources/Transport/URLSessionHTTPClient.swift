import Foundation
import PubNubBase

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An ``HTTPClient`` backed by Foundation's `URLSession`. The default on Apple platforms, and the
/// fallback on Linux when libcurl cannot be loaded.
///
/// Connections are kept alive by the session. Cancelling the calling task cancels the data task
/// and `send` throws ``TransportError/Code-swift.struct/cancelled``. ``HTTPRequest/timeout``
/// (or ``HTTPClientConfiguration/defaultTimeout``) bounds the whole exchange. Redirects are not
/// followed, cookies and caches are not used, and gzip or deflate bodies are decoded.
///
/// Server certificates are verified against the system's authorities. A custom authority
/// (``HTTPClientConfiguration/certificateAuthorityFile``) is not supported by this backend: use
/// ``CurlHTTPClient`` for that.
///
/// ```swift
/// let client = try URLSessionHTTPClient()
/// let response = try await client.send(HTTPRequest(host: "ps.pndsn.com", path: "/time/0"))
/// ```
public final class URLSessionHTTPClient: HTTPClient {
    /// The configuration the client was created with.
    public let configuration: HTTPClientConfiguration
    private let session: URLSession

    /// Creates a client with a session of its own.
    ///
    /// - Throws: ``TransportError`` with code ``TransportError/Code-swift.struct/unavailable`` when
    ///   the configuration names a certificate authority file, which this backend cannot honour.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws {
        guard configuration.certificateAuthorityFile == nil else {
            throw TransportError(
                code: .unavailable,
                message: "URLSessionHTTPClient cannot trust a custom certificate authority; use CurlHTTPClient",
                isRetryable: false)
        }
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.httpMaximumConnectionsPerHost = max(1, configuration.maximumConnectionsPerHost)
        sessionConfiguration.timeoutIntervalForRequest = configuration.defaultTimeout.doubleSeconds
        // The session's resource timeout would cap every request, including a long-poll whose own
        // timeout is longer than the default. Each exchange is bounded by its own watchdog below
        // (the request's timeout, or the default), so the session-wide cap is only a backstop.
        sessionConfiguration.timeoutIntervalForResource = Self.resourceTimeoutBackstop
        session = URLSession(configuration: sessionConfiguration, delegate: NoRedirects(), delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Seven days, URLSession's own default resource timeout: far beyond any request timeout.
    static let resourceTimeoutBackstop: Double = 7 * 24 * 3600

    /// Sends `request` with the session and suspends until the response is complete.
    ///
    /// - Throws: ``TransportError``: ``TransportError/Code-swift.struct/invalidRequest`` for a request
    ///   that cannot be sent, ``TransportError/Code-swift.struct/cancelled`` when the task is
    ///   cancelled, and the code matching any network failure.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, isolation: #isolation)
    }

    /// `send` on the caller's actor (see ``CurlHTTPClient``'s for why the isolation is explicit).
    private func send(_ request: HTTPRequest, isolation: isolated (any Actor)?) async throws -> HTTPResponse {
        try request.validateForSending()
        if Task.isCancelled {
            throw TransportError(code: .cancelled, message: "the request was cancelled", isRetryable: false)
        }
        guard let url = URL(string: request.url) else {
            throw TransportError(code: .invalidRequest, message: "cannot form a URL from \(request.redactedURL)")
        }
        let timeout = request.timeout ?? configuration.defaultTimeout
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = timeout.doubleSeconds
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        urlRequest.httpBody = request.body.map { Data($0) }

        let exchange = Exchange()
        let session = self.session
        let maximumBytes = configuration.maximumResponseBytes
        // URLRequest's own timeout restarts whenever data arrives; this one bounds the whole exchange.
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            exchange.timeOut()
        }
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            _ = isolation
            return try await withCheckedThrowingContinuation(isolation: isolation) {
                (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    continuation.resume(
                        with: Self.result(
                            data: data, response: response, error: error, reason: exchange.endReason,
                            maximumBytes: maximumBytes))
                }
                exchange.start(task)
            }
        } onCancel: {
            exchange.cancel()
        }
    }

    private static func result(
        data: Data?, response: URLResponse?, error: (any Error)?, reason: Exchange.EndReason?, maximumBytes: Int
    ) -> Result<HTTPResponse, any Error> {
        if let error {
            return .failure(transportError(error, reason: reason))
        }
        switch reason {
        case .cancelled:
            return .failure(TransportError(code: .cancelled, message: "the request was cancelled", isRetryable: false))
        case .timedOut:
            return .failure(TransportError(code: .timedOut, message: "the request timed out"))
        case nil:
            break
        }
        guard let http = response as? HTTPURLResponse else {
            return .failure(TransportError(code: .invalidResponse, message: "the response is not HTTP"))
        }
        let body = data.map { [UInt8]($0) } ?? []
        guard body.count <= maximumBytes else {
            return .failure(TransportError(code: .tooLarge, message: "the response body exceeds the configured limit"))
        }
        var headers = HTTPHeaders()
        let pairs = http.allHeaderFields.compactMap { key, value -> (String, String)? in
            guard let name = key as? String else { return nil }
            return (name, (value as? String) ?? String(describing: value))
        }
        for (name, value) in pairs.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
            headers.add(name: name, value: value)
        }
        return .success(HTTPResponse(status: http.statusCode, headers: headers, body: body))
    }

    /// Maps a URLSession failure to a transport error.
    static func transportError(_ error: any Error, reason: Exchange.EndReason?) -> TransportError {
        switch reason {
        case .cancelled:
            return TransportError(code: .cancelled, message: "the request was cancelled", isRetryable: false)
        case .timedOut:
            return TransportError(code: .timedOut, message: "the request timed out")
        case nil:
            break
        }
        guard let urlError = error as? URLError else {
            return TransportError(code: .other, message: String(describing: error), underlying: error)
        }
        let description = urlError.localizedDescription
        let message = "URLSession error \(urlError.code.rawValue): \(description)"
        // The original's user info names the failing URL, query and token included: keep only the
        // code and the description as the cause.
        let cause = URLError(urlError.code, userInfo: [NSLocalizedDescriptionKey: description])
        func failure(_ code: TransportError.Code, retryable: Bool? = nil) -> TransportError {
            TransportError(code: code, message: message, isRetryable: retryable, underlying: cause)
        }
        switch urlError.code {
        case .timedOut:
            return failure(.timedOut)
        case .cannotConnectToHost, .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed,
            .callIsActive:
            return failure(.cannotConnect)
        case .cannotFindHost, .dnsLookupFailed:
            return failure(.cannotResolveHost)
        case .networkConnectionLost:
            return failure(.connectionLost)
        case .cancelled:
            return failure(.cancelled, retryable: false)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            return failure(.tls)
        case .badServerResponse where description.lowercased().contains("empty reply"):
            // Foundation on Linux says this when the server closed without answering: libcurl's
            // "got nothing", a lost connection.
            return failure(.connectionLost)
        case .badServerResponse, .cannotDecodeContentData, .cannotDecodeRawData, .cannotParseResponse,
            .zeroByteResource:
            return failure(.invalidResponse)
        case .dataLengthExceedsMaximum:
            return failure(.tooLarge)
        case .badURL, .unsupportedURL:
            // Foundation on Linux passes on libcurl's "unsupported protocol" for a reply that is not
            // HTTP; the request itself was validated before it was sent.
            return failure(Self.classifyUnknown(description) == .invalidResponse ? .invalidResponse : .invalidRequest)
        case .unknown:
            return failure(Self.classifyUnknown(description))
        default:
            return failure(.other)
        }
    }

    /// Foundation on Linux runs on libcurl and reports many failures as `unknown` with libcurl's
    /// text; read the text so both backends classify the same failure the same way.
    static func classifyUnknown(_ description: String) -> TransportError.Code {
        let text = description.lowercased()
        func mentions(_ words: String...) -> Bool { words.contains { text.contains($0) } }
        if mentions("ssl", "tls", "certificate") { return .tls }
        if mentions("transfer closed", "connection reset", "recv failure", "send failure", "empty reply") {
            return .connectionLost
        }
        if mentions("http/0.9", "weird server reply", "unsupported protocol", "invalid http") {
            return .invalidResponse
        }
        if mentions("timed out", "timeout") { return .timedOut }
        if mentions("couldn't connect", "could not connect", "connection refused") { return .cannotConnect }
        if mentions("resolve") { return .cannotResolveHost }
        return .other
    }
}

/// One data task and why it was ended early, shared between the caller, the cancellation
/// handler and the watchdog. The data task is told to cancel after the lock is released.
final class Exchange: Sendable {
    enum EndReason {
        case cancelled
        case timedOut
    }

    private struct State {
        var task: URLSessionDataTask?
        var reason: EndReason?
    }

    private let state = Locked(State())

    var endReason: EndReason? { state.withLock { $0.reason } }

    func start(_ task: URLSessionDataTask) {
        let endedAlready = state.withLock { state in
            state.task = task
            return state.reason != nil
        }
        task.resume()
        // Cancelled or timed out before the task existed: end it now; its completion reports why.
        if endedAlready { task.cancel() }
    }

    func cancel() { end(.cancelled) }

    func timeOut() { end(.timedOut) }

    private func end(_ newReason: EndReason) {
        let task: URLSessionDataTask? = state.withLock { state in
            guard state.reason == nil else { return nil }
            state.reason = newReason
            return state.task
        }
        task?.cancel()
    }
}

/// Refuses redirects so a 3xx reaches the caller as it does with ``CurlHTTPClient``.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
