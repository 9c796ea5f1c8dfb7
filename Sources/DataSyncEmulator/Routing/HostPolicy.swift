import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase

/// Which `Host` names the emulator answers: its defence against DNS rebinding
/// (Documentation/Emulator.md, "Security").
///
/// A page on `evil.example` whose DNS name is rebound to `127.0.0.1` talks to a loopback
/// emulator as its own origin, so the browser's same-origin rules do not stop it; only the
/// `Host` header still says `evil.example`. While the emulator is not serving beyond loopback,
/// a request naming any host but a loopback one (`localhost`, `*.localhost`, `127.x.y.z`,
/// `[::1]`, with or without a port) or a name the user allowed is refused with a `403`.
///
/// Once it serves on an address beyond loopback (`--host 0.0.0.0`) every host is answered: other
/// machines reach it by whatever name or address they know it by, and rebinding protection is a
/// loopback service's concern (what reaches the LAN is reachable without rebinding anyway).
///
/// A request without `Host` (HTTP/1.0, or built in process) is answered: browsers always send
/// one. An absolute-form target (`GET http://name/path`) names its host in the target, which
/// then counts instead of the header (RFC 9112, section 3.2.2).
final class HostPolicy: Sendable {
    /// Host names (lowercased, without port) answered besides loopback ones; a name starting
    /// with `.` allows that domain and every name under it.
    let allowedHosts: [String]
    /// Whether names are checked: true until the emulator serves beyond loopback.
    private let enforcing = Locked(true)

    init(allowedHosts: [String]) {
        self.allowedHosts = allowedHosts.compactMap(Self.normalizedName)
    }

    /// Records the address the emulator listens on: loopback checks names, anything else does not.
    func serving(onHost host: String) {
        let loopback = AdminAccess.isLoopback(host)
        enforcing.withLock { $0 = loopback }
    }

    var isEnforcing: Bool { enforcing.withLock { $0 } }

    /// Whether `name` (a `Host` value or an allowed-host entry, any case, maybe with a port) is
    /// answered while names are checked.
    func allows(hostValue value: String) -> Bool {
        guard let name = Self.normalizedName(value) else { return false }
        if AdminAccess.isLoopback(name) { return true }
        return allowedHosts.contains { allowed in
            allowed.hasPrefix(".") ? name == allowed.dropFirst() || name.hasSuffix(allowed) : name == allowed
        }
    }

    /// Nil when `request` may be answered, otherwise the refusal to send.
    func refusal(for request: ServerRequest) -> ServerResponse? {
        guard isEnforcing, let host = Self.requestedHost(request), !allows(hostValue: host) else { return nil }
        let name = Self.normalizedName(host) ?? host
        let message =
            "the emulator listens on loopback and answers only loopback host names (127.0.0.1, localhost, "
            + "[::1]), not \(host): a page elsewhere could reach it by rebinding its DNS name to 127.0.0.1. "
            + "To use this name, start it with --allowed-host \(name) (EmulatorConfiguration.allowedHosts)."
        let body: JSONValue = ["error": ["status": 403, "message": .string(message), "source": "emulator"]]
        return ServerResponse(
            status: 403, headers: [(name: "Content-Type", value: "application/json")],
            body: (try? body.jsonBytes()) ?? Array(message.utf8))
    }

    /// The host a request names: the authority of an absolute-form target, else its `Host`.
    static func requestedHost(_ request: ServerRequest) -> String? {
        if let (authority, _) = absoluteForm(request.target) { return authority }
        return request.header("Host")
    }

    /// `http://authority/path?query` split into the authority and the origin-form target
    /// (`/path?query`, `/` when the path is empty); nil for any other target.
    static func absoluteForm(_ target: String) -> (authority: String, originForm: String)? {
        guard let schemeEnd = target.range(of: "://"), !target.hasPrefix("/") else { return nil }
        let rest = target[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        // Userinfo (`user@host`) is not part of the host.
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let remainder = rest[authorityEnd...]
        let originForm = remainder.hasPrefix("/") ? String(remainder) : "/" + remainder
        return (String(authority), originForm)
    }

    /// A host name from a `Host` value or an allowed-host entry: lowercased, without port,
    /// brackets or a trailing dot; nil when empty.
    static func normalizedName(_ value: String) -> String? {
        var name = AdminAccess.hostName(value.trimmingCharacters(in: .whitespaces)).lowercased()
        if name.hasSuffix(".") && name.count > 1 { name.removeLast() }
        return name.isEmpty ? nil : name
    }
}
