/// How the emulator's HTTP server frames a response body on the wire.
///
/// The default, ``contentLength``, sends a `Content-Length` header and the body in one piece.
/// ``chunked(chunkSize:)`` sends `Transfer-Encoding: chunked` with the body cut into chunks of at
/// most `chunkSize` bytes, which lets client tests exercise chunked decoding. The server picks the
/// framing headers itself; a handler never sets `Content-Length` or `Transfer-Encoding`.
public struct ResponseFraming: Sendable, Hashable {
    /// The largest chunk to send, or `nil` for `Content-Length` framing.
    package let chunkSize: Int?

    /// `Content-Length` framing: the whole body in one piece.
    public static let contentLength = ResponseFraming(chunkSize: nil)

    /// Chunked transfer coding with chunks of at most `chunkSize` bytes (values below 1 count as 1).
    public static func chunked(chunkSize: Int = 16 * 1024) -> ResponseFraming {
        ResponseFraming(chunkSize: max(1, chunkSize))
    }

    /// Whether this framing is chunked.
    public var isChunked: Bool { chunkSize != nil }
}

/// A deliberate fault the emulator's HTTP server injects while sending a response, so client
/// tests can check that a broken exchange surfaces as an error and never as a truncated success.
public struct ResponseFault: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        case truncateBody(sentBytes: Int)
        case dropConnection
    }

    package let kind: Kind

    /// Sends the status line and headers as if the whole body followed (the full
    /// `Content-Length`, or chunked framing without the final chunk), then only the first
    /// `sentBytes` bytes of the body, then closes the connection.
    public static func truncateBody(sentBytes: Int) -> ResponseFault {
        ResponseFault(kind: .truncateBody(sentBytes: max(0, sentBytes)))
    }

    /// Closes the connection without sending any response bytes.
    public static let dropConnection = ResponseFault(kind: .dropConnection)
}

extension ServerResponse {
    /// A copy of this response whose body is gzip-compressed, with `Content-Encoding: gzip` added.
    ///
    /// Compression uses the system zlib. If zlib reports a failure (only possible when memory runs
    /// out) the response is returned unchanged, without the `Content-Encoding` header, so it stays
    /// truthful.
    ///
    /// - Parameter level: the zlib compression level, 0 (none) to 9 (best); -1 is zlib's default.
    public func gzipped(level: Int = -1) -> ServerResponse {
        guard let compressed = Gzip.compress(body, level: level) else { return self }
        var copy = self
        copy.body = compressed
        copy.headers.removeAll { $0.name.lowercased() == "content-encoding" }
        copy.headers.append((name: "Content-Encoding", value: "gzip"))
        return copy
    }

    /// A copy of this response sent with ``ResponseFraming/chunked(chunkSize:)`` framing.
    public func chunked(chunkSize: Int = 16 * 1024) -> ServerResponse {
        var copy = self
        copy.framing = .chunked(chunkSize: chunkSize)
        return copy
    }

    /// A copy of this response sent with `fault` injected.
    public func injecting(_ fault: ResponseFault) -> ServerResponse {
        var copy = self
        copy.fault = fault
        return copy
    }
}
