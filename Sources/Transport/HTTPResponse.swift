/// A response as every ``HTTPClient`` returns it. Any status, 2xx or not, is a response; only a
/// failure to exchange it is an error.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The body, decompressed when it was sent with `Content-Encoding: gzip` or `deflate`.
    public var body: [UInt8]

    /// Creates a response, as a transport does when one arrives or a test double does to answer;
    /// `headers` and `body` default to empty.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the status is in 200...299.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
