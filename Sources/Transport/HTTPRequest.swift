/// An HTTP method. Server-defined values beyond the static members can be created from their name.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method name as sent on the wire, upper case.
    public let rawValue: String
    /// Creates a method from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The method name.
    public var description: String { rawValue }

    /// `GET`
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST`
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `OPTIONS`
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2), so
    /// that the retry middleware may resend it without being told.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options: return true
        default: return false
        }
    }
}

/// One query parameter. Names and values are kept unencoded; ``HTTPRequest/url`` encodes them.
public struct HTTPQueryItem: Hashable, Sendable {
    /// The parameter name.
    public var name: String
    /// The parameter value; `nil` writes the name alone (`?flag`).
    public var value: String?

    /// Creates a query item.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

/// A request as every ``HTTPClient`` receives it.
///
/// The path is stored already percent-encoded (build segments with
/// ``HTTPRequest/encodePathSegment(_:)``), because the service distinguishes `/` inside an id
/// (`%2F`) from a path separator. Query items are stored unencoded and encoded strictly when the
/// URL is built: everything but RFC 3986 unreserved characters is percent-encoded.
public struct HTTPRequest: Sendable, Hashable {
    /// The method; `GET` by default. Only idempotent methods are resent by ``RetryMiddleware``
    /// unless ``isRetryable`` is set.
    public var method: HTTPMethod
    /// `https` (the default) or `http`.
    public var scheme: String
    /// The host name or address, without port. IPv6 literals are written without brackets.
    public var host: String
    /// The port, or `nil` for the scheme's default.
    public var port: Int?
    /// The percent-encoded path, starting with `/`.
    public var path: String
    /// The query parameters in the order they will be sent.
    public var queryItems: [HTTPQueryItem]
    /// The request headers.
    public var headers: HTTPHeaders
    /// The body, or `nil` for none.
    public var body: [UInt8]?
    /// How long the whole exchange may take before it fails with
    /// ``TransportError/Code-swift.struct/timedOut``; `nil` uses the client's default.
    public var timeout: Duration?
    /// Marks a request whose method is not idempotent as safe to retry (for example a publish
    /// that carries its own de-duplication key). Idempotent methods are always retryable.
    public var isRetryable: Bool

    /// Creates a request. Only `host` is required: the defaults make an `https` `GET` of `/` with no
    /// query, headers or body, the client's timeout, and no retries beyond what the method allows.
    /// `path` must already be percent-encoded (see ``encodePathSegment(_:)``); query items are
    /// encoded when the request is sent.
    public init(
        method: HTTPMethod = .get, scheme: String = "https", host: String, port: Int? = nil, path: String = "/",
        queryItems: [HTTPQueryItem] = [], headers: HTTPHeaders = HTTPHeaders(), body: [UInt8]? = nil,
        timeout: Duration? = nil, isRetryable: Bool = false
    ) {
        self.method = method
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.isRetryable = isRetryable
    }

    /// Whether a retry policy may resend this request: an idempotent method, or explicitly marked.
    public var mayRetry: Bool { isRetryable || method.isIdempotent }

    /// The value of the first query item named `name`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value ?? nil
    }

    /// The encoded query string without the leading `?` (empty when there are no items).
    public var encodedQuery: String {
        var output: [UInt8] = []
        appendEncodedQuery(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// The path and query as sent in an HTTP/1.1 request line (`/v1/x?a=1`).
    public var target: String {
        var output: [UInt8] = []
        appendTarget(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// The full URL text, for example `https://ps.pndsn.com/time/0?uuid=a`.
    public var url: String {
        // One buffer for the whole URL: this runs for every request sent.
        var output: [UInt8] = []
        output.reserveCapacity(scheme.utf8.count + host.utf8.count + path.utf8.count + 16 + queryItems.count * 24)
        output.append(contentsOf: scheme.utf8)
        output.append(contentsOf: "://".utf8)
        let bracketed = host.utf8.contains(UInt8(ascii: ":"))
        if bracketed { output.append(UInt8(ascii: "[")) }
        output.append(contentsOf: host.utf8)
        if bracketed { output.append(UInt8(ascii: "]")) }
        if let port {
            output.append(UInt8(ascii: ":"))
            output.append(contentsOf: String(port).utf8)
        }
        appendTarget(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private func appendTarget(to output: inout [UInt8]) {
        output.append(contentsOf: path.utf8)
        guard !queryItems.isEmpty else { return }
        output.append(UInt8(ascii: "?"))
        let mark = output.count
        appendEncodedQuery(to: &output)
        // A query that encodes to nothing (one nameless item) sends no "?".
        if output.count == mark { output.removeLast() }
    }

    private func appendEncodedQuery(to output: inout [UInt8]) {
        for (index, item) in queryItems.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "&")) }
            Self.appendPercentEncoded(item.name, to: &output)
            if let value = item.value {
                output.append(UInt8(ascii: "="))
                Self.appendPercentEncoded(value, to: &output)
            }
        }
    }

    /// Percent-encodes one path segment: every byte but RFC 3986 unreserved characters is encoded,
    /// so `/`, `?`, `#`, `%`, spaces and non-ASCII text can appear in ids.
    public static func encodePathSegment(_ segment: String) -> String {
        // `.` and `..` would be removed as dot segments by URL parsers (libcurl, Foundation) and
        // address another resource; encoded, they reach the server as the names they are.
        if segment == "." { return "%2E" }
        if segment == ".." { return "%2E%2E" }
        return percentEncode(segment)
    }

    /// Query names whose values are secrets (credentials, signatures): hidden by ``redactedURL``,
    /// by ``description`` and by ``LoggingMiddleware``. Names are compared ignoring ASCII case.
    public static let secretQueryNames: Set<String> = ["auth", "signature"]

    /// Whether the query item `name` carries a secret: one of ``secretQueryNames``, in any case.
    public static func isSecretQueryName(_ name: String) -> Bool {
        secretQueryNames.contains { HTTPHeaders.namesMatch($0, name) }
    }

    /// ``url`` with the values of ``secretQueryNames`` (in any letter case) replaced by
    /// `REDACTED`: the form to put in error messages and logs.
    public var redactedURL: String {
        var copy = self
        copy.queryItems = queryItems.map { item in
            guard item.value != nil, Self.isSecretQueryName(item.name) else { return item }
            return HTTPQueryItem(name: item.name, value: "REDACTED")
        }
        return copy.url
    }

    /// Percent-encodes `text`, leaving only `A-Z a-z 0-9 - . _ ~` as they are.
    public static func percentEncode(_ text: String) -> String {
        // Keys and ids are usually plain: hand the string back rather than copy it byte by byte.
        if text.utf8.allSatisfy(isUnreserved) { return text }
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        appendPercentEncoded(text, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private static func appendPercentEncoded(_ text: String, to output: inout [UInt8]) {
        for byte in text.utf8 {
            if isUnreserved(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
        }
    }

    /// Whether `byte` is an RFC 3986 unreserved character (`A-Z a-z 0-9 - . _ ~`), sent as it is.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// The uppercase hexadecimal digit of `nibble` (0...15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}

// Printing a request (interpolation, `print`, `debugPrint`, `dump`, a debugger's summary) never
// shows a credential: the URL is redacted, secret headers are hidden by `HTTPHeaders`, and the
// body is reduced to its size, because a body may carry user data that logs should not keep.
extension HTTPRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The method and the redacted URL, with the body's size when there is one:
    /// `GET https://ps.pndsn.com/time/0?auth=REDACTED`.
    public var description: String {
        var text = "\(method) \(redactedURL)"
        if let body { text += " (\(body.count)-byte body)" }
        return text
    }

    /// The same as ``description``.
    public var debugDescription: String { "HTTPRequest(\(description))" }

    /// The request's parts with credentials redacted and the body reduced to its size, for `dump`
    /// and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method.rawValue, "url": redactedURL, "headers": headers,
                "bodyByteCount": body?.count as Int? as Any, "timeout": timeout as Any,
                "isRetryable": isRetryable,
            ],
            displayStyle: .struct)
    }
}
