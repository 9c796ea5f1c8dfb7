internal import CCurl

/// An ``HTTPClient`` backed by libcurl, loaded at run time. The default on Linux.
///
/// libcurl is opened with `dlopen` (`libcurl.so.4` on Linux, the system `libcurl.4.dylib` on Apple
/// platforms), so building needs no libcurl headers. Creating the client throws
/// ``TransportError/Code-swift.struct/unavailable`` when it cannot be loaded.
///
/// All transfers of one client share one curl multi handle. `send` starts its transfer on the
/// calling thread (on a kept-alive connection libcurl writes the request there, without waiting
/// on the network) and suspends; a dedicated thread of the client waits for the answers and
/// resumes the callers. No Swift concurrency thread is ever blocked, however long the server
/// holds the request. Connections are kept alive and reused across requests. Cancelling the
/// calling task aborts the transfer at once (the connection it used is closed) and `send` throws
/// ``TransportError/Code-swift.struct/cancelled``.
///
/// HTTPS is verified against the system's certificate authorities, or against
/// ``HTTPClientConfiguration/certificateAuthorityFile`` when set. Redirects are not followed: a 3xx
/// is returned like any other response. Responses sent with `Content-Encoding: gzip` or
/// `deflate` are decoded; their headers are kept as the server sent them.
///
/// ```swift
/// let client = try CurlHTTPClient()
/// let response = try await client.send(HTTPRequest(host: "ps.pndsn.com", path: "/time/0"))
/// ```
///
/// The client is safe to share between tasks. Its thread stops when the client is released.
public final class CurlHTTPClient: HTTPClient {
    /// The configuration the client was created with.
    public let configuration: HTTPClientConfiguration
    private let engine: CurlEngine

    /// Loads libcurl and starts the client's transfer thread.
    ///
    /// - Parameters:
    ///   - configuration: Timeouts, the response size limit, connections per host and an optional
    ///     certificate-authority file; the defaults suit the PubNub service.
    ///   - libraryPath: Where to load libcurl from; `nil` uses the platform's default
    ///     (`libcurl.so.4` on Linux).
    /// - Throws: ``TransportError`` with code ``TransportError/Code-swift.struct/unavailable`` when
    ///   libcurl cannot be loaded, is older than 7.68, or cannot start.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration(), libraryPath: String? = nil)
        throws
    {
        try CurlLibrary.load(path: libraryPath ?? CurlLibrary.defaultPath)
        self.configuration = configuration
        self.engine = try CurlEngine(configuration: configuration)
    }

    deinit {
        engine.shutdown()
    }

    /// The version of the loaded libcurl, for example `7.88.1`, or `nil` when it is not loaded.
    public static var libcurlVersion: String? {
        guard let text = ccurl_version() else { return nil }
        let full = String(cString: text)
        // curl_version() reads "libcurl/7.88.1 OpenSSL/3.0 …"; keep the number only.
        guard let first = full.split(separator: " ").first, let slash = first.firstIndex(of: "/") else { return full }
        return String(first[first.index(after: slash)...])
    }

    /// The executor of the client's transfer thread: a task that prefers it resumes on the thread
    /// that read each answer, one thread wake-up per request instead of two. `PubNub/taskExecutor`
    /// is this executor when this client is the transport.
    ///
    /// The thread is shared with every transfer of the client: what such a task runs outside an
    /// actor must be short and must never block (a long lock, synchronous I/O, waiting on another
    /// request of this client), or every request in flight stalls. Actor-isolated code gains
    /// nothing. Jobs still queued when the client is released run on the global executor. When it
    /// helps and why: Transport.md, "Running on the client's thread".
    ///
    /// ```swift
    /// let user = try await withTaskExecutorPreference(curl.taskExecutor) {
    ///     try await pubnub.dataSync.getUser(id: "user-1")
    /// }
    /// ```
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    public var taskExecutor: (any TaskExecutor)? { engine }

    /// Whether the caller runs on the client's transfer thread (for tests of ``taskExecutor``).
    var isOnTransferThread: Bool { engine.isEngineThread }

    /// Sends `request` and suspends until the response is complete.
    ///
    /// - Throws: ``TransportError``: ``TransportError/Code-swift.struct/invalidRequest`` for a request
    ///   that cannot be sent, ``TransportError/Code-swift.struct/cancelled`` when the task is
    ///   cancelled, and the code matching any network failure.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, isolation: #isolation)
    }

    /// `send` on the caller's actor: the transfer starts there and the answer resumes there.
    private func send(_ request: HTTPRequest, isolation: isolated (any Actor)?) async throws -> HTTPResponse {
        try request.validateForSending()
        let engine = self.engine
        let id = engine.register()
        return try await withTaskCancellationHandler {
            // Capturing the isolated parameter keeps this closure on the caller's actor; a plain
            // closure here would hop to the global executor and back (two thread switches).
            _ = isolation
            return try await withCheckedThrowingContinuation(isolation: isolation) {
                (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                engine.submit(id: id, request: request, continuation: continuation)
            }
        } onCancel: {
            engine.cancel(id: id)
        }
    }
}

/// Loads libcurl once per process.
enum CurlLibrary {
    #if canImport(Darwin)
        static let defaultPath = "/usr/lib/libcurl.4.dylib"
    #else
        static let defaultPath = "libcurl.so.4"
    #endif

    static func load(path: String) throws {
        var buffer = [CChar](repeating: 0, count: 512)
        let status = buffer.withUnsafeMutableBufferPointer { pointer in
            ccurl_load(path, pointer.baseAddress, pointer.count)
        }
        guard status == 0 else {
            let reason = buffer.withUnsafeBufferPointer { pointer in
                pointer.baseAddress.map { String(cString: $0) } ?? "unknown reason"
            }
            throw TransportError(
                code: .unavailable, message: "libcurl is not available: \(reason)", isRetryable: false)
        }
    }
}
