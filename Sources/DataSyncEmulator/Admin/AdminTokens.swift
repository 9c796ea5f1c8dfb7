import EmulatorHTTP
import Foundation
import JSONCore

/// The console's token helper behind `/_emulator/v1/keysets/{sub}/tokens` (mint) and
/// `…/tokens/parse` (read): what `datasync grant` and `datasync token parse` do from a shell,
/// for a browser that must never hold the keyset's secret key.
///
/// Minting here skips the request signature the grant route wants, because the admin API is
/// already behind the admin secret (``AdminAccess``), and whoever holds that can import any state
/// anyway. The answers never carry the secret key.
struct AdminTokens: Sendable {
    let registry: AccessRegistry

    /// Permission letters in bit order, as `datasync grant` takes them and `token parse` shows them.
    static let letters: [(Character, AccessBits)] = [
        ("r", .read), ("w", .write), ("m", .manage), ("d", .delete), ("c", .create), ("g", .get), ("u", .update),
        ("j", .join),
    ]

    /// `POST …/tokens` with the grant route's body (`{"ttl":…,"permissions":{…}}`): the token,
    /// signed with the keyset's secret key and issued at the emulator's clock.
    func mint(subscribeKey: String, body: [UInt8]) -> ServerResponse {
        guard let keyset = registry.keysets[subscribeKey] else { return Self.noPubSub(subscribeKey) }
        let now = max(0, registry.nowSeconds)
        switch AccessManagerService.parseGrant(body, issuedAt: UInt64(now)) {
        case .failure(let refusal):
            return AdminWire.error(400, "\(refusal.message): \(refusal.detail) (at \(refusal.location))")
        case .success(let content):
            let token = AccessTokenCodec.mint(content, secretKey: keyset.secretKey)
            return AdminWire.json(
                [
                    "token": .string(token), "ttlMinutes": .int(Int64(content.ttlMinutes)),
                    "expiresAt": .string(Self.time(content.expiresAt)),
                ], status: 201)
        }
    }

    /// `POST …/tokens/parse` with `{"token":"…"}`: what the token grants, whether this keyset's
    /// secret key signed it, and whether it is expired or revoked on the emulator's clock.
    func parse(subscribeKey: String, body: [UInt8]) -> ServerResponse {
        guard let keyset = registry.keysets[subscribeKey] else { return Self.noPubSub(subscribeKey) }
        guard let json = try? JSONValue(parsing: body), let text = json["token"]?.stringValue else {
            return AdminWire.error(400, #"send the token as {"token":"…"}"#)
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch AccessTokenCodec.inspect(trimmed, secretKey: keyset.secretKey) {
        case .failure(.malformed(let reason)):
            return AdminWire.error(400, "not a token: \(reason)")
        case .failure(.badSignature):
            return AdminWire.error(400, "not a token: its signature cannot be read")
        case .success(let (content, signatureValid)):
            let now = registry.nowSeconds
            var result: JSONObject = [
                "version": .int(Int64(content.version)), "issuedAt": .string(Self.time(content.issuedAt)),
                "ttlMinutes": .int(Int64(content.ttlMinutes)), "expiresAt": .string(Self.time(content.expiresAt)),
                "expired": .bool(now < 0 || UInt64(now) >= content.expiresAt),
                "signedByThisKeyset": .bool(signatureValid),
                "revoked": .bool(signatureValid && registry.isRevoked(content.signature, subscribeKey: subscribeKey)),
                "resources": Self.grants(content.resources), "patterns": Self.grants(content.patterns),
                "meta": content.meta,
            ]
            if let user = content.authorizedUUID { result["authorizedUserId"] = .string(user) }
            return AdminWire.json(.object(result))
        }
    }

    /// bucket → name → letters such as `"rw"` (unknown high bits as a number after them).
    static func grants(_ table: [String: [String: UInt64]]) -> JSONValue {
        var object: JSONObject = [:]
        for (bucket, names) in table where !names.isEmpty {
            var entries: JSONObject = [:]
            for (name, bits) in names { entries[name] = .string(letterString(bits)) }
            object[bucket] = .object(entries)
        }
        return .object(object)
    }

    static func letterString(_ bits: UInt64) -> String {
        let granted = AccessBits(rawValue: bits)
        var text = String(letters.filter { granted.contains($0.1) }.map(\.0))
        let unknown = bits & ~0xFF
        if unknown != 0 { text += (text.isEmpty ? "" : "+") + String(unknown) }
        return text.isEmpty ? "-" : text
    }

    private static func time(_ seconds: UInt64) -> String {
        // A token's own numbers: a huge `t` or `ttl` must print, not trap.
        let micros = seconds > UInt64(Int64.max / 1_000_000) ? Int64.max : Int64(seconds) * 1_000_000
        return Timestamp.wholeSecondString(micros: micros)
    }

    private static func noPubSub(_ subscribeKey: String) -> ServerResponse {
        AdminWire.error(
            404, "keyset \(subscribeKey) has no pub/sub service, so no secret key to sign tokens with")
    }
}
