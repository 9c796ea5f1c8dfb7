public import PubNubBase

/// Where a client's requests go: scheme, host and optional port, checked once.
///
/// Build one from the configuration's ``PubNubConfiguration/origin`` text and
/// ``PubNubConfiguration/useSecureConnections``. The text is a host with an optional port and no
/// scheme or path: `ps.pndsn.com`, `127.0.0.1:8090`, `[::1]:8090`, or a bare IPv6 literal (`::1`).
///
/// ```swift
/// let origin = try PubNubOrigin("127.0.0.1:8090", secure: false)
/// origin.host   // "127.0.0.1"
/// origin.port   // 8090
/// ```
public struct PubNubOrigin: Sendable, Hashable, CustomStringConvertible {
    /// `https` or `http`.
    public let scheme: String
    /// The host name or IP literal, without brackets.
    public let host: String
    /// The port, when the text named one.
    public let port: Int?

    /// Parses and checks `origin`.
    ///
    /// - Throws: `PubNubError` with reason `.invalidConfiguration` when the text is empty, carries a
    ///   scheme or path, has an unclosed IPv6 bracket, no host, or a port outside 1...65535.
    public init(_ origin: String, secure: Bool) throws(PubNubError) {
        scheme = secure ? "https" : "http"
        func invalid(_ why: String) -> PubNubError {
            PubNubError(reason: .invalidConfiguration, message: "origin \"\(origin)\" \(why)")
        }
        guard !origin.isEmpty else { throw invalid("is empty") }
        guard !origin.contains("/") else {
            throw invalid("must be a host with an optional port, without scheme or path")
        }
        var hostPart = Substring(origin)
        var portPart: Substring?
        if origin.hasPrefix("[") {
            guard let close = origin.firstIndex(of: "]") else { throw invalid("has an unclosed IPv6 bracket") }
            hostPart = origin[origin.index(after: origin.startIndex)..<close]
            let rest = origin[origin.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid("has text after the IPv6 address") }
                portPart = rest.dropFirst()
            }
        } else if let colon = origin.firstIndex(of: ":"), origin.lastIndex(of: ":") == colon {
            hostPart = origin[..<colon]
            portPart = origin[origin.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw invalid("has no host") }
        guard !hostPart.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw invalid("has a space or control character in its host")
        }
        host = String(hostPart)
        if let portPart {
            guard let number = Int(portPart), (1...65_535).contains(number) else {
                throw invalid("has an invalid port \"\(portPart)\"")
            }
            port = number
        } else {
            port = nil
        }
    }

    /// Whether the host names this machine: `localhost` (and names under `.localhost`, which
    /// RFC 6761 reserves for it), an IPv4 address in `127.0.0.0/8`, `::1`, or an IPv4-mapped
    /// loopback address such as `::ffff:127.0.0.1`. No name is resolved to decide.
    public var isLoopback: Bool {
        let name = host.lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") || name == "localhost." { return true }
        if Self.isLoopbackIPv4(name) { return true }
        if name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        for prefix in ["::ffff:", "0:0:0:0:0:ffff:"] where name.hasPrefix(prefix) {
            return Self.isLoopbackIPv4(String(name.dropFirst(prefix.count)))
        }
        return false
    }

    private static func isLoopbackIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        var octets: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = Int(part), value <= 255 else {
                return false
            }
            octets.append(value)
        }
        return octets.first == 127
    }

    /// `scheme://host[:port]`, with IPv6 hosts in brackets.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return scheme + "://" + shownHost + (port.map { ":\($0)" } ?? "")
    }
}
