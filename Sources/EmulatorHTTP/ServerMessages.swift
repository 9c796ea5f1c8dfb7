/// A request as the emulator's HTTP server hands it to a handler: raw, exactly as received.
///
/// The emulator reads requests at this level on purpose; it never shares the SDK's request
/// building, so a wrong parameter name in the SDK cannot pass a test by agreeing with itself.
public struct ServerRequest: Sendable {
    /// The method token, for example `GET`.
    public var method: String
    /// The request target as sent (`/v1/…?a=b`), still percent-encoded. Setting it updates
    /// ``rawPath`` and ``rawQuery``.
    public var target: String {
        didSet { (rawPath, rawQuery) = Self.split(target) }
    }
    /// The header fields in the order received, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body bytes (de-chunked when sent chunked).
    public var body: [UInt8]
    /// The percent-encoded path: the target up to `?` (split once, when the target is set).
    public private(set) var rawPath: String
    /// The percent-encoded query after `?`, or an empty string (split once, when the target is set).
    public private(set) var rawQuery: String

    /// Creates a request as the server would parse it, for calling a handler directly in a test;
    /// `target` must be percent-encoded, as on the wire.
    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        (rawPath, rawQuery) = Self.split(target)
    }

    /// The target's path and query, split at the first `?` (found in its UTF-8 bytes).
    private static func split(_ target: String) -> (path: String, query: String) {
        let utf8 = target.utf8
        guard let mark = utf8.firstIndex(of: UInt8(ascii: "?")) else { return (target, "") }
        return (String(target[..<mark]), String(target[utf8.index(after: mark)...]))
    }

    /// The first value of the header `name`, compared without regard to ASCII case.
    public func header(_ name: String) -> String? {
        headers.first { Self.equalIgnoringASCIICase($0.name, name) }?.value
    }

    /// Whether `a` and `b` have the same UTF-8 bytes once ASCII letters are folded to lowercase.
    static func equalIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let x?, let y?):
                if x == y { continue }
                let lx = x >= 0x41 && x <= 0x5A ? x | 0x20 : x
                let ly = y >= 0x41 && y <= 0x5A ? y | 0x20 : y
                if lx != ly { return false }
            default: return false
            }
        }
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
///
/// A handler can also answer requests that need no waiting on the server's own thread, with no
/// task and no thread hop, through ``respondImmediately(to:)``; the default answers none that way.
public protocol ServerHandler: Sendable {
    /// Produces the response to `request`.
    func handle(_ request: ServerRequest) async -> ServerResponse

    /// Produces the reply to `request`: its response, or a ``PendingResponse`` that something
    /// else completes later (a parked long-poll). The server calls this, not ``handle(_:)``; the
    /// default answers with ``handle(_:)``.
    ///
    /// A pending reply ends the request's task while the connection stays open: no task waits
    /// for the answer. When the client goes away first the server calls
    /// ``PendingResponse/cancel()``, which is how the producer learns to stop waiting (there is no
    /// task to cancel). A handler that implements this should implement ``handle(_:)`` as
    /// `await reply(to: request).response`, so direct callers get the same answer.
    func reply(to request: ServerRequest) async -> ServerReply

    /// The response to `request` when it can be produced at once, or `nil` to have ``handle(_:)``
    /// answer it in a task as usual. The default returns `nil`.
    ///
    /// The server calls this on its event-loop thread, before starting a task for the request,
    /// and sends a non-nil answer straight away. While it runs no other connection is served, so
    /// an implementation must not block (no locks held by code that waits, no I/O, no sleeping)
    /// and must keep its cost small and bounded (a lookup, not a scan of unbounded size);
    /// anything that waits (long-polls, delays, clock sleeps) or may take long returns `nil`.
    /// It runs outside any task: `Task.isCancelled` is `false` there and nothing can cancel it.
    /// Returning `nil` must have no side effects, because ``handle(_:)`` then answers the same
    /// request; a non-nil answer must be the one ``handle(_:)`` would have given.
    func respondImmediately(to request: ServerRequest) -> ServerResponse?
}

extension ServerHandler {
    /// Answers with ``handle(_:)``: nothing is parked.
    public func reply(to request: ServerRequest) async -> ServerReply { .response(await handle(request)) }

    /// Answers nothing at once: every request goes to ``handle(_:)``.
    public func respondImmediately(to request: ServerRequest) -> ServerResponse? { nil }
}
