import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase

/// Who may call the admin API (`/_emulator/v1/…`); Documentation/Emulator.md, "Admin routes",
/// has the rules:
///
/// - The admin secret is needed (`Authorization: Bearer <secret>`) when one was configured, when
///   access control is on for any keyset, or once the emulator serves on an address that is not
///   loopback. Without a configured secret a random one is made at start; the banner prints it
///   and ``Emulator/adminSecret`` returns it.
/// - Otherwise (the default: loopback, access control off) no secret is needed, but a request
///   with a `Host` header must name a loopback host or one the user allowed (`--allowed-host`),
///   so a page on another site cannot reach the admin API by rebinding its DNS name to 127.0.0.1.
/// - Always: a request carrying an `Origin` header must come from the emulator's own origin
///   (`http://` + its `Host`), so a page on another site cannot post to the admin API from the
///   developer's browser. curl and the SDKs send no `Origin`.
final class AdminAccess: Sendable {
    /// The secret that opens the admin API when one is needed.
    let secret: String
    private let required: Locked<Bool>
    /// The host names the emulator answers besides loopback ones (`--allowed-host`), which the
    /// admin API answers without a secret too; nil: loopback names only.
    let hostPolicy: HostPolicy?

    init(configuredSecret: String?, keysets: [PubSubKeyset], hostPolicy: HostPolicy? = nil) {
        self.hostPolicy = hostPolicy
        if let configuredSecret, !configuredSecret.isEmpty {
            secret = configuredSecret
        } else {
            var generator = SystemRandomNumberGenerator()
            secret = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
                .joined()
        }
        let configured = configuredSecret.map { !$0.isEmpty } ?? false
        required = Locked(configured || keysets.contains { $0.accessControl })
    }

    /// Whether admin requests need the secret right now.
    var isSecretRequired: Bool { required.withLock { $0 } }

    /// Records the address the emulator listens on: any address but loopback makes the secret
    /// required from now on.
    func serving(onHost host: String) {
        if !Self.isLoopback(host) { required.withLock { $0 = true } }
    }

    /// Nil when `request` may use the admin API, otherwise the refusal to send.
    func refusal(for request: ServerRequest) -> ServerResponse? {
        let host = request.header("Host")
        if let origin = request.header("Origin"), origin != "http://" + (host ?? "") {
            return AdminWire.error(403, "admin requests from another origin (\(origin)) are refused")
        }
        if isSecretRequired {
            let given = request.header("Authorization").flatMap { value -> String? in
                let parts = value.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
                return String(parts[1]).trimmingCharacters(in: .whitespaces)
            }
            guard let given, Self.constantTimeEqual(given, secret) else {
                var response = AdminWire.error(
                    401,
                    "the admin API needs the admin secret (Authorization: Bearer <secret>); the emulator prints it "
                        + "at start")
                response.headers.append((name: "WWW-Authenticate", value: #"Bearer realm="datasync-emulator admin""#))
                return response
            }
            return nil
        }
        if let host, !(hostPolicy?.allows(hostValue: host) ?? Self.isLoopback(Self.hostName(host))) {
            return AdminWire.error(
                403, "without an admin secret the admin API answers only loopback hosts, not \(host)")
        }
        return nil
    }

    /// `127.0.0.1`, any `127.x.y.z`, `::1` and `localhost` (with or without brackets).
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name == "::1" || name.hasSuffix(".localhost") { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The host of a `Host` header value, without its port.
    static func hostName(_ value: String) -> String {
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            return String(value[value.index(after: value.startIndex)..<close])
        }
        if let colon = value.lastIndex(of: ":"), value.firstIndex(of: ":") == colon {
            return String(value[..<colon])
        }
        return value
    }

    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }
}
