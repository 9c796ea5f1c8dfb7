import Foundation

/// PubNub's request signatures (Documentation/Emulator.md, "Request signatures"), computed and checked with a keyset's secret
/// key: what a server SDK holding the secret key adds to every request as `timestamp` and
/// `signature`.
///
/// - v2 (every request): `METHOD\npublishKey\npath\nquery\nbody`, HMAC-SHA256, URL-safe base64
///   without `=`, prefixed `v2.`.
/// - Legacy forms accepted on `/publish` paths only: v1 `subscribeKey\npublishKey\npath\nquery`
///   (unprefixed, as Python and Kotlin sign POST publishes) and v2 with `GET` and no body (as
///   JavaScript signs every publish).
///
/// `query` is every query parameter but `signature`, sorted by name, each value
/// percent-encoded except `A–Z a–z 0–9 - _ .` (uppercase hex); `path` is the raw path as sent.
///
/// **Replay.** As on the service, a signature is checked, not remembered: the same signed request
/// sent again while its `timestamp` is within ``timestampTolerance`` of the clock is accepted
/// again. The scheme has no nonce (the SDKs sign with a timestamp in whole seconds and re-sign
/// every retry), so two legitimate identical calls in one second carry the same signature, and a
/// replay cache would refuse the second. The window is what bounds a replay.
///
/// **Publish bodies.** The legacy forms accepted on `/publish` paths (v1, and v2 with `GET`) do
/// not cover a POST publish's body: a body changed in flight still verifies. The service accepts
/// the SDKs that sign so (Python, Kotlin and JavaScript), and so does the emulator.
public enum RequestSignature {
    /// The most a `timestamp` may differ from the emulator's clock: 60 seconds.
    public static let timestampTolerance: Int64 = 60

    /// Why a signature was refused.
    package enum Failure: Error, Equatable {
        case missingTimestamp
        case staleTimestamp
        case mismatch
    }

    /// The `signature` value for a request, v2 form.
    ///
    /// - Parameters:
    ///   - method: the HTTP method (any case; it is signed upper-cased).
    ///   - path: the request path as sent, percent-encoding included.
    ///   - query: the query parameters, decoded, including `timestamp` and excluding `signature`.
    ///   - body: the request body; empty for GET and DELETE.
    ///   - publishKey: the keyset's publish key, part of the signed text.
    ///   - secretKey: the keyset's secret key, the HMAC-SHA256 key. Never give it to a client.
    /// - Returns: `v2.` followed by the unpadded URL-safe base64 of the HMAC.
    public static func sign(
        method: String, path: String, query: [(name: String, value: String)], body: [UInt8] = [],
        publishKey: String, secretKey: String
    ) -> String {
        var input = Array("\(method.uppercased())\n\(publishKey)\n\(path)\n\(canonicalQuery(query))\n".utf8)
        input += body
        return "v2." + base64URL(SHA256.hmac(key: Array(secretKey.utf8), message: input), padded: false)
    }

    /// The sorted, encoded query that is signed.
    public static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        query.filter { $0.name != "signature" }.sorted { $0.name < $1.name }
            .map { "\($0.name)=\(encode($0.value))" }.joined(separator: "&")
    }

    /// Checks `signature` (already decoded from the query) against every accepted form.
    package static func verify(
        method: String, path: String, query: [(name: String, value: String)], body: [UInt8], publishKey: String,
        subscribeKey: String, secretKey: String, now: Int64
    ) -> Result<Void, Failure> {
        guard let stamp = query.first(where: { $0.name == "timestamp" })?.value, let seconds = Int64(stamp) else {
            return .failure(.missingTimestamp)
        }
        let given = (query.first { $0.name == "signature" }?.value ?? "")
        let key = Array(secretKey.utf8)
        var candidates = [
            sign(method: method, path: path, query: query, body: body, publishKey: publishKey, secretKey: secretKey)
        ]
        if path.hasPrefix("/publish/") {
            candidates.append(
                sign(method: "GET", path: path, query: query, publishKey: publishKey, secretKey: secretKey))
            let legacy = Array("\(subscribeKey)\n\(publishKey)\n\(path)\n\(canonicalQuery(query))".utf8)
            candidates.append(base64URL(SHA256.hmac(key: key, message: legacy), padded: false))
        }
        let trimmed = Array(given.replacingOccurrences(of: "=", with: "").utf8)
        let matched = candidates.contains { AccessTokenCodec.constantTimeEqual(Array($0.utf8), trimmed) }
        guard matched else { return .failure(.mismatch) }
        // A correct signature over a stale timestamp is still refused (a replayed request). The
        // timestamp is any Int64 the request chose: the distance must not overflow.
        let (distance, overflow) = now.subtractingReportingOverflow(seconds)
        guard !overflow, distance.magnitude <= UInt64(timestampTolerance) else { return .failure(.staleTimestamp) }
        return .success(())
    }

    static func encode(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded
            }
        }
        return out
    }

    static func base64URL(_ bytes: [UInt8], padded: Bool) -> String {
        let text = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        return padded ? text : text.replacingOccurrences(of: "=", with: "")
    }
}

extension String {
    /// A one-digit hex string padded to two.
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
