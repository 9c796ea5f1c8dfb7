import Foundation
package import JSONCore

/// The permission bits of an Access Manager grant, as both the pub/sub and the DataSync resources use them.
package struct AccessBits: OptionSet, Sendable, Hashable {
    package let rawValue: UInt64
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    package static let read = AccessBits(rawValue: 1)
    package static let write = AccessBits(rawValue: 2)
    package static let manage = AccessBits(rawValue: 4)
    package static let delete = AccessBits(rawValue: 8)
    package static let create = AccessBits(rawValue: 16)
    package static let get = AccessBits(rawValue: 32)
    package static let update = AccessBits(rawValue: 64)
    package static let join = AccessBits(rawValue: 128)
}

/// The decoded content of an emulator-issued Access Manager v3 token.
package struct AccessTokenContent: Sendable, Equatable {
    /// `v`: always 2.
    package var version: UInt64 = 2
    /// `t`: issue time, whole Unix seconds.
    package var issuedAt: UInt64
    /// `ttl`: minutes.
    package var ttlMinutes: UInt64
    /// `res`: bucket (`chan`, `grp`, `uuid`, `datasync:entities`, …) → exact name → bits.
    package var resources: [String: [String: UInt64]]
    /// `pat`: bucket → regular expression → bits.
    package var patterns: [String: [String: UInt64]]
    /// `meta`: an object.
    package var meta: JSONValue
    /// `uuid`: the only user id allowed to use the token.
    package var authorizedUUID: String?
    /// `sig`: HMAC-SHA256 of the body.
    package var signature: [UInt8] = []

    package init(
        issuedAt: UInt64, ttlMinutes: UInt64, resources: [String: [String: UInt64]] = [:],
        patterns: [String: [String: UInt64]] = [:], meta: JSONValue = [:], authorizedUUID: String? = nil
    ) {
        self.issuedAt = issuedAt
        self.ttlMinutes = ttlMinutes
        self.resources = resources
        self.patterns = patterns
        self.meta = meta
        self.authorizedUUID = authorizedUUID
    }

    /// The second the token stops being valid.
    package var expiresAt: UInt64 { issuedAt &+ ttlMinutes &* 60 }

    /// Whether the token grants all of `bits` on `name` in `bucket`: an exact entry decides alone;
    /// otherwise any pattern (an unanchored regular expression) that matches and holds every bit.
    package func allows(_ bits: AccessBits, on name: String, in bucket: String) -> Bool {
        if let exact = resources[bucket]?[name] { return AccessBits(rawValue: exact).isSuperset(of: bits) }
        for (pattern, granted) in patterns[bucket] ?? [:] where AccessBits(rawValue: granted).isSuperset(of: bits) {
            if AccessTokenCodec.matches(pattern, name) { return true }
        }
        return false
    }
}

/// Why a token was refused.
package enum TokenRejection: Error, Equatable, Sendable {
    /// Not base64, not CBOR, a field missing or of the wrong type (the text says which).
    case malformed(String)
    /// The signature does not match the body under this keyset's secret key.
    case badSignature
}

/// Mints and verifies Access Manager v3 tokens as PubNub shapes them: a CBOR map whose keys are
/// byte strings (`v`, `t`, `ttl`, `res`, `pat`, `meta`, `uuid`, `sig`), in URL-safe base64 that
/// keeps its `=` padding.
///
/// The signature is HMAC-SHA256 under the secret key over the *body*: the same map without its
/// `sig` entry, that is a map header counting one entry fewer followed by the other entries'
/// bytes exactly as they appear in the token. Verification works on those raw bytes, so a token
/// whose bytes differ from the ones signed in any way is refused.
package enum AccessTokenCodec {
    /// The longest token text read (64 KiB); longer ones are refused before decoding.
    package static let maximumTextLength = 64 * 1024

    /// How a minted token writes its `sig` entry before the 32 signature bytes: the key as a
    /// 3-byte byte string (`43 's' 'i' 'g'`), then a byte-string header of length 32 (`58 20`).
    static let signatureEntryPrefix: [UInt8] = [0x43, 0x73, 0x69, 0x67, 0x58, 0x20]

    /// The token text for `content`, signed with `secretKey`.
    package static func mint(_ content: AccessTokenContent, secretKey: String) -> String {
        var entries: [CBORPair] = [
            CBORPair(key("v"), .unsigned(content.version)),
            CBORPair(key("t"), .unsigned(content.issuedAt)),
            CBORPair(key("ttl"), .unsigned(content.ttlMinutes)),
            CBORPair(key("res"), grants(content.resources)),
            CBORPair(key("pat"), grants(content.patterns)),
            CBORPair(key("meta"), CBORItem(json: content.meta.objectValue == nil ? [:] : content.meta)),
        ]
        if let uuid = content.authorizedUUID { entries.append(CBORPair(key("uuid"), .text(uuid))) }
        var body: [UInt8] = []
        CBORWriter.header(major: 5, UInt64(entries.count), into: &body)
        var rest: [UInt8] = []
        for entry in entries {
            CBORWriter.write(entry.key, into: &rest)
            CBORWriter.write(entry.value, into: &rest)
        }
        let signature = SHA256.hmac(key: Array(secretKey.utf8), message: body + rest)
        var token: [UInt8] = []
        CBORWriter.header(major: 5, UInt64(entries.count + 1), into: &token)
        token += rest
        CBORWriter.write(key("sig"), into: &token)
        CBORWriter.write(.bytes(signature), into: &token)
        return Data(token).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }

    /// Reads `text` (URL-safe or standard base64, padded or not), checks its signature under
    /// `secretKey` and returns its content. Never checks expiry or revocation: that is the
    /// caller's, on its own clock.
    package static func verify(_ text: String, secretKey: String) -> Result<AccessTokenContent, TokenRejection> {
        guard let bytes = decodeText(text) else { return .failure(.malformed("the token is not base64")) }
        return verify(bytes: bytes, secretKey: secretKey)
    }

    /// ``verify(_:secretKey:)`` on decoded bytes.
    package static func verify(bytes: [UInt8], secretKey: String) -> Result<AccessTokenContent, TokenRejection> {
        switch read(bytes: bytes, secretKey: secretKey) {
        case .failure(let rejection): return .failure(rejection)
        case .success(let read): return read.signatureValid ? .success(read.content) : .failure(.badSignature)
        }
    }

    /// Reads `text` as ``verify(_:secretKey:)`` does, but answers a well-formed token whose
    /// signature does not match too, saying so: what the console's token helper shows for a token
    /// minted for another keyset. Never use it to let a request in.
    package static func inspect(_ text: String, secretKey: String) -> Result<
        (content: AccessTokenContent, signatureValid: Bool), TokenRejection
    > {
        guard let bytes = decodeText(text) else { return .failure(.malformed("the token is not base64")) }
        return read(bytes: bytes, secretKey: secretKey)
    }

    private static func read(bytes: [UInt8], secretKey: String) -> Result<
        (content: AccessTokenContent, signatureValid: Bool), TokenRejection
    > {
        var parser = CBORParser(bytes)
        let count: UInt64
        do {
            let header = try parser.header()
            guard header.major == 5 else { return .failure(.malformed("a token is a CBOR map")) }
            count = header.argument
        } catch {
            return .failure(.malformed(error.message))
        }
        guard count <= 16 else { return .failure(.malformed("a token has at most 16 fields")) }
        var fields: [String: CBORItem] = [:]
        var signedRest: [UInt8] = []
        var signature: [UInt8]?
        for _ in 0..<count {
            let start = parser.offset
            let keyItem: CBORItem
            let value: CBORItem
            do {
                keyItem = try parser.item()
                value = try parser.item()
            } catch {
                return .failure(.malformed(error.message))
            }
            guard let name = keyItem.keyText else { return .failure(.malformed("a field name is not text")) }
            guard fields.updateValue(value, forKey: name) == nil else {
                return .failure(.malformed("field '\(name)' appears twice"))
            }
            if name == "sig" {
                guard case .bytes(let sig) = value, sig.count == 32 else {
                    return .failure(.malformed("field 'sig' is not 32 bytes"))
                }
                // The one entry the signature cannot cover: it must stand exactly as minted (a
                // byte-string key, the shortest length header), or the same signature would
                // verify under other encodings (found by fuzz-token-verifier: a text-string key).
                guard Array(parser.slice(from: start)) == Self.signatureEntryPrefix + sig else {
                    return .failure(.malformed("field 'sig' is not encoded as minted"))
                }
                signature = sig
            } else {
                signedRest += parser.slice(from: start)
            }
        }
        guard parser.atEnd else { return .failure(.malformed("bytes follow the token")) }
        guard let signature else { return .failure(.malformed("field 'sig' is missing")) }
        var body: [UInt8] = []
        CBORWriter.header(major: 5, count - 1, into: &body)
        let expected = SHA256.hmac(key: Array(secretKey.utf8), message: body + signedRest)
        let signatureValid = constantTimeEqual(expected, signature)
        return content(fields, signature: signature).map { (content: $0, signatureValid: signatureValid) }
    }

    private static func content(_ fields: [String: CBORItem], signature: [UInt8]) -> Result<
        AccessTokenContent, TokenRejection
    > {
        guard case .unsigned(let version) = fields["v"], version == 2 else {
            return .failure(.malformed("field 'v' is not 2"))
        }
        guard case .unsigned(let issued) = fields["t"] else { return .failure(.malformed("field 't' is missing")) }
        guard case .unsigned(let ttl) = fields["ttl"] else { return .failure(.malformed("field 'ttl' is missing")) }
        guard let resources = readGrants(fields["res"]), let patterns = readGrants(fields["pat"]) else {
            return .failure(.malformed("field 'res' or 'pat' is not a map of maps of integers"))
        }
        var meta: JSONValue = [:]
        if let item = fields["meta"] {
            guard case .map = item, let json = item.json else {
                return .failure(.malformed("field 'meta' is not a map"))
            }
            meta = json
        }
        var uuid: String?
        switch fields["uuid"] {
        case nil, .null?: uuid = nil
        case .text(let text)?: uuid = text
        default: return .failure(.malformed("field 'uuid' is not text"))
        }
        var content = AccessTokenContent(
            issuedAt: issued, ttlMinutes: ttl, resources: resources, patterns: patterns, meta: meta,
            authorizedUUID: uuid)
        content.signature = signature
        return .success(content)
    }

    private static func key(_ name: String) -> CBORItem { .bytes(Array(name.utf8)) }

    private static func grants(_ table: [String: [String: UInt64]]) -> CBORItem {
        .map(
            table.keys.sorted().map { bucket in
                let names = table[bucket] ?? [:]
                return CBORPair(
                    key(bucket), .map(names.keys.sorted().map { CBORPair(key($0), .unsigned(names[$0] ?? 0)) }))
            })
    }

    private static func readGrants(_ item: CBORItem?) -> [String: [String: UInt64]]? {
        guard let item else { return [:] }
        guard case .map(let buckets) = item else { return nil }
        var table: [String: [String: UInt64]] = [:]
        for bucket in buckets {
            guard let bucketName = bucket.key.keyText, case .map(let names) = bucket.value else { return nil }
            var entries: [String: UInt64] = [:]
            for entry in names {
                guard let name = entry.key.keyText, case .unsigned(let bits) = entry.value else { return nil }
                entries[name] = bits
            }
            table[bucketName] = entries
        }
        return table
    }

    /// Base64 in either alphabet, with or without `=` padding.
    static func decodeText(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= maximumTextLength else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        switch standard.utf8.count % 4 {
        case 0: break
        case 2: standard += "=="
        case 3: standard += "="
        default: return nil
        }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    /// Whether the regular expression `pattern` matches anywhere in `name`; an invalid pattern
    /// never matches.
    package static func matches(_ pattern: String, _ name: String) -> Bool {
        guard let regex = try? Regex(pattern) else { return false }
        return (try? regex.firstMatch(in: name)) != nil
    }
}
