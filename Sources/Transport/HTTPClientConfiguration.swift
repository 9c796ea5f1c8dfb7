/// Settings shared by the built-in ``HTTPClient`` backends (``CurlHTTPClient`` and
/// ``URLSessionHTTPClient``).
///
/// Certificate verification is always on and cannot be switched off here. For a test server
/// with its own certificate authority, name that authority's PEM file in
/// ``certificateAuthorityFile``.
///
/// ```swift
/// var configuration = HTTPClientConfiguration()
/// configuration.defaultTimeout = .seconds(30)
/// let client = try PlatformHTTPClient.make(configuration: configuration)
/// ```
public struct HTTPClientConfiguration: Sendable, Hashable {
    /// The timeout of the whole exchange for requests whose ``HTTPRequest/timeout`` is `nil`.
    public var defaultTimeout: Duration
    /// How long establishing a connection (TCP and TLS) may take: 5 s by default, so an
    /// unreachable host fails fast even under a long-poll's long timeout. ``CurlHTTPClient``
    /// applies it (`CURLOPT_CONNECTTIMEOUT_MS`); URLSession has no separate connect limit, so
    /// ``URLSessionHTTPClient`` bounds connecting only by the request's own timeout.
    public var connectTimeout: Duration
    /// The largest response body accepted; a larger one fails with
    /// ``TransportError/Code-swift.struct/tooLarge``.
    public var maximumResponseBytes: Int
    /// The most connections opened to one host at once; further requests wait for a free one.
    public var maximumConnectionsPerHost: Int
    /// A PEM file of certificate authorities to trust instead of the system's, for test servers.
    /// Verification of the peer's certificate and host name stays on. Only ``CurlHTTPClient``
    /// supports it; ``URLSessionHTTPClient`` refuses a configuration that sets it.
    public var certificateAuthorityFile: String?
    /// TCP keep-alive on every connection: after this long without traffic the system starts
    /// probing the peer, and then probes at the same interval, so a connection whose path died
    /// silently (a NAT that forgot it, a peer that vanished) fails instead of holding a long-poll
    /// for its whole timeout. 15 s by default: a dead path is noticed after about 15 s plus the
    /// system's probe count times 15 s (9 probes on Linux, so about 2.5 minutes, against the
    /// subscribe long-poll's 310 s). `nil` leaves the system's setting (normally off).
    /// ``CurlHTTPClient`` applies it (`CURLOPT_TCP_KEEPALIVE`); URLSession has no such setting.
    public var tcpKeepAlive: Duration? = .seconds(15)

    /// Creates a configuration; the defaults suit the PubNub service.
    ///
    /// - Parameters:
    ///   - defaultTimeout: The limit on a whole exchange for requests without their own
    ///     ``HTTPRequest/timeout``; 60 s by default.
    ///   - connectTimeout: How long establishing TCP and TLS may take; 5 s by default (libcurl
    ///     only: URLSession has no separate connect limit).
    ///   - maximumResponseBytes: The largest body accepted before the request fails with `tooLarge`; 64
    ///     MiB by default.
    ///   - maximumConnectionsPerHost: How many connections to one host may be open at once; 16 by
    ///     default.
    ///   - certificateAuthorityFile: A PEM file of authorities to trust instead of the system's, for a
    ///     test server; `nil` (the default) trusts the system. Only ``CurlHTTPClient`` supports it.
    public init(
        defaultTimeout: Duration = .seconds(60), connectTimeout: Duration = .seconds(5),
        maximumResponseBytes: Int = 64 << 20, maximumConnectionsPerHost: Int = 16,
        certificateAuthorityFile: String? = nil
    ) {
        self.defaultTimeout = defaultTimeout
        self.connectTimeout = connectTimeout
        self.maximumResponseBytes = maximumResponseBytes
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.certificateAuthorityFile = certificateAuthorityFile
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a tiny positive duration never becomes "no limit".
    var roundedUpMilliseconds: Int64 {
        let parts = components
        let fromAttoseconds = (parts.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        let (scaled, overflow) = parts.seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return parts.seconds > 0 ? Int64.max : 0 }
        return max(0, scaled + fromAttoseconds)
    }

    /// The duration in seconds as a `Double`.
    var doubleSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

extension HTTPRequest {
    /// Checks what every backend needs before sending: a supported scheme, a host, a path, and
    /// header fields that cannot smuggle extra lines into the request.
    func validateForSending() throws {
        let lowered = scheme.lowercased()
        guard lowered == "https" || lowered == "http" else {
            throw TransportError(code: .invalidRequest, message: "unsupported scheme '\(scheme)' (use https or http)")
        }
        guard !host.isEmpty, !host.utf8.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: "/") }) else {
            throw TransportError(code: .invalidRequest, message: "invalid host '\(host)'")
        }
        guard path.hasPrefix("/"), !path.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "#") })
        else {
            throw TransportError(code: .invalidRequest, message: "the path must start with / and be percent-encoded")
        }
        if let port, !(1...65535).contains(port) {
            throw TransportError(code: .invalidRequest, message: "invalid port \(port)")
        }
        guard !method.rawValue.isEmpty, method.rawValue.utf8.allSatisfy(Self.isTokenByte) else {
            throw TransportError(code: .invalidRequest, message: "invalid method '\(method.rawValue)'")
        }
        for field in headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(Self.isTokenByte) else {
                throw TransportError(code: .invalidRequest, message: "invalid header name '\(field.name)'")
            }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw TransportError(code: .invalidRequest, message: "header '\(field.name)' contains a line break")
            }
        }
    }

    /// RFC 9110 token characters.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
