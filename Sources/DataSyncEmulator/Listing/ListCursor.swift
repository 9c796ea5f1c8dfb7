import JSONCore

/// An opaque, signed, forward-only list cursor: the position of the last object of the previous
/// page, the query it belongs to and the revision at which paging started, signed with a keyed
/// MAC so any edit is detected.
struct ListCursor {
    var fingerprint: String
    var position: SortPosition
    /// The feed revision when the first page was served.
    var startRevision: UInt64

    func encode(key: [UInt8]) -> String {
        let body: JSONValue = [
            "q": .string(fingerprint), "k": .array(position.values.map(\.jsonValue)), "i": .string(position.id),
            "r": .int(Int64(truncatingIfNeeded: startRevision)),
        ]
        let bytes = (try? body.jsonBytes()) ?? []
        let mac = Array(SHA256.hmac(key: key, message: bytes).prefix(16))
        return Base64URL.encode(bytes) + "." + Base64URL.encode(mac)
    }

    /// Decodes and verifies `text`; any tampering, a cursor from another query or keyset, or
    /// garbage is a 400 on `cursor`.
    static func decode(_ text: String, key: [UInt8], fingerprint: String, sortCount: Int) throws(APIError) -> ListCursor
    {
        let invalid = APIError.invalid("the cursor is not valid for this request", path: "cursor")
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let bytes = Base64URL.decode(String(parts[0])),
            let mac = Base64URL.decode(String(parts[1])), mac.count == 16
        else { throw invalid }
        let expected = Array(SHA256.hmac(key: key, message: bytes).prefix(16))
        var difference: UInt8 = 0
        for (left, right) in zip(mac, expected) { difference |= left ^ right }
        guard difference == 0 else { throw invalid }
        guard let body = try? JSONValue(parsing: bytes), body["q"]?.stringValue == fingerprint,
            let values = body["k"]?.arrayValue, values.count == sortCount, let id = body["i"]?.stringValue,
            let revision = body["r"]?.int64Value
        else { throw invalid }
        return ListCursor(
            fingerprint: fingerprint, position: SortPosition(values: values.map { SortValue($0) }, id: id),
            startRevision: UInt64(truncatingIfNeeded: revision))
    }
}

/// The key list cursors are signed with: random per state, kept in the state file, so a cursor
/// stays valid across restarts of one state and is refused by any other.
final class CursorSigner {
    /// 32 bytes; replaced only when a state file is loaded.
    var key: [UInt8]

    init() {
        var generator = SystemRandomNumberGenerator()
        key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    func sign(_ cursor: ListCursor) -> String { cursor.encode(key: key) }

    /// The cursor `text` stands for, when it was signed here for the query `fingerprint`.
    func verify(_ text: String, fingerprint: String, sortCount: Int) throws(APIError) -> ListCursor {
        try ListCursor.decode(text, key: key, fingerprint: fingerprint, sortCount: sortCount)
    }
}
