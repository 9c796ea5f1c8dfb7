/// A request as the emulator's HTTP server hands it to a handler: raw, exactly as received.
///
/// The emulator reads requests at this level on purpose; it never shares the SDK's request
/// building, so a wrong parameter name in the SDK cannot pass a test by agreeing with itself.
public struct ServerRequest: Sendable {
    /// The method token, for example `GET`.
    public var method: String
    /// The request target as sent (`/v1/…?a=b`), still percent-encoded.
    public var target: String
    /// The header fields in the order received, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body bytes (de-chunked when sent chunked).
    public var body: [UInt8]

    /// Creates a request as the server would parse it, for calling a handler directly in a test;
    /// `target` must be percent-encoded, as on the wire.
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The percent-encoded path: the target up to `?`.
    public var rawPath: String {
        if let mark = target.firstIndex(of: "?") { return String(target[..<mark]) }
        return target
    }

    /// The percent-encoded query after `?`, or an empty string.
    public var rawQuery: String {
        if let mark = target.firstIndex(of: "?") { return String(target[target.index(after: mark)...]) }
        return ""
    }

    /// The first value of the header `name`, compared without regard to ASCII case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A response a handler returns to the emulator's HTTP server. The server adds `Content-Length`
/// (or uses chunked framing when asked) and `Connection` handling itself.
public struct ServerResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields to send, in order.
    public var headers: [(name: String, value: String)]
    /// The body, sent byte for byte (compressed only when the handler made the response with
    /// ``gzipped(level:)``).
    public var body: [UInt8]
    /// How the body is framed on the wire: `Content-Length` (the default) or chunked.
    public var framing: ResponseFraming = .contentLength
    /// A deliberate protocol fault to inject when sending this response, for client tests;
    /// `nil` (the default) sends the response correctly.
    public var fault: ResponseFault?

    /// Creates a response framed with `Content-Length` and no fault; use ``chunked(chunkSize:)`` or
    /// ``injecting(_:)`` to change that. `Content-Length`, `Transfer-Encoding` and `Connection` are
    /// the server's to set: values given for them here are dropped.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Answers requests for the emulator's HTTP server. A handler may suspend for as long as it
/// likes (subscribe long-polls hold requests for minutes); when the client goes away or the
/// server stops, the task running `handle` is cancelled.
public protocol ServerHandler: Sendable {
    /// Produces the response to `request`.
    func handle(_ request: ServerRequest) async -> ServerResponse
}
