import EmulatorHTTP
import JSONCore

/// Reading raw pub/sub requests and writing their answers: the wire rules the SDKs rely on
/// (split the path before decoding, keep `+`, tolerate literal `{}[]:,` in query values) and the
/// exact error bodies.
package enum PubSubWire {
    static let contentType = (name: "Content-Type", value: "text/javascript; charset=\"UTF-8\"")

    /// The path split on `/` (before decoding), each segment percent-decoded; the leading empty
    /// segment is dropped, empty ones in the middle are kept. nil when an escape is broken.
    package static func segments(_ rawPath: String) -> [String]? {
        var parts = rawPath.split(separator: "/", omittingEmptySubsequences: false)
        if parts.first == "" { parts.removeFirst() }
        var decoded: [String] = []
        for part in parts {
            guard let text = PercentDecoding.decode(part) else { return nil }
            decoded.append(text)
        }
        return decoded
    }

    /// A raw list segment split on `,` first, then each name decoded; empty names dropped.
    package static func names(_ rawList: Substring) -> [String] {
        rawList.split(separator: ",", omittingEmptySubsequences: true).compactMap { PercentDecoding.decode($0) }
            .filter { !$0.isEmpty }
    }

    /// The raw (still encoded) path segments, for lists and size limits.
    static func rawSegments(_ rawPath: String) -> [Substring] {
        var parts = rawPath.split(separator: "/", omittingEmptySubsequences: false)
        if parts.first == "" { parts.removeFirst() }
        return parts
    }

    /// Query items; a value whose escapes are broken is kept as sent.
    package static func query(_ rawQuery: String) -> Query {
        var items: [(String, String)] = []
        for part in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(pieces[0]) ?? String(pieces[0])
            let raw = pieces.count > 1 ? pieces[1] : ""
            items.append((name, PercentDecoding.decode(raw) ?? String(raw)))
        }
        return Query(items: items, raw: rawQuery)
    }

    /// An integer query value clamped into `bounds`: an optional sign and ASCII digits, however
    /// many (a value past what `Int` holds clamps to the nearer bound rather than being dropped or
    /// trapping). nil when absent or not an integer.
    package static func clampedInteger(_ text: String?, in bounds: ClosedRange<Int>) -> Int? {
        guard let text else { return nil }
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        guard let magnitude = Int(digits) else { return negative ? bounds.lowerBound : bounds.upperBound }
        return min(max(negative ? -magnitude : magnitude, bounds.lowerBound), bounds.upperBound)
    }

    package struct Query: Sendable {
        package var items: [(String, String)]
        var raw: String

        subscript(name: String) -> String? { items.first { $0.0 == name }?.1 }

        func has(_ name: String) -> Bool { items.contains { $0.0 == name } }

        /// A comma list in a query value (`channel-group=a,b` or `a%2Cb`), empty names dropped.
        func list(_ name: String) -> [String] {
            guard let value = self[name] else { return [] }
            return value.split(separator: ",").map(String.init).filter { !$0.isEmpty }
        }

        /// `true`/`1` are true, anything else false.
        func flag(_ name: String) -> Bool {
            guard let value = self[name]?.lowercased() else { return false }
            return value == "1" || value == "true"
        }
    }

    static func json(_ status: Int, _ value: JSONValue, headers: [(name: String, value: String)] = []) -> ServerResponse
    {
        let body = (try? value.jsonBytes()) ?? Array("{}".utf8)
        return ServerResponse(status: status, headers: [contentType] + headers, body: body)
    }

    /// The headers of a plain answer, one array shared by every answer (a fan-out makes N).
    private static let contentTypeOnly = [contentType]

    static func bytes(_ status: Int, _ body: [UInt8]) -> ServerResponse {
        ServerResponse(status: status, headers: contentTypeOnly, body: body)
    }

    /// `[1,"Sent","<tt>"]` or, for errors (status 400), `[0,"<text>","<tt>"]`.
    static func publishReply(_ status: Int, sent: Bool, text: String, timetoken: UInt64) -> ServerResponse {
        bytes(status, Array("[\(sent ? 1 : 0),\"\(text)\",\"\(timetoken)\"]".utf8))
    }

    /// The classic service error object: `{"status":…,"message":…,"error":true,"service":…}`.
    static func serviceError(_ status: Int, _ message: String, service: String) -> ServerResponse {
        json(
            status,
            ["status": .int(Int64(status)), "message": .string(message), "error": true, "service": .string(service)])
    }

    /// The longest request target (path and query) the service takes: 32 KiB, the limit of its
    /// request line. The HTTP server enforces the same bound on the wire; checking it here too
    /// bounds what a request handed to ``Emulator/respond(to:)`` in process can cost.
    static let maximumTargetBytes = 32 * 1024

    /// The service's `414` for a request whose target is longer than ``maximumTargetBytes``;
    /// nil for any other request.
    static func uriTooLong(_ request: ServerRequest) -> ServerResponse? {
        guard request.rawPath.utf8.count + request.rawQuery.utf8.count + 1 > maximumTargetBytes else { return nil }
        return json(
            414, ["message": "Request URI Too Long", "error": true, "service": "Balancer", "status": 414])
    }

    static func invalidSubscribeKey() -> ServerResponse {
        serviceError(400, "Invalid Subscribe Key", service: "Access Manager")
    }

    /// Decodes a POST body that may be plain, gzip, zlib or raw deflate, whatever the headers say.
    static func inflateBody(_ body: [UInt8], limit: Int) -> [UInt8]? {
        guard body.count >= 2 else { return body }
        if body[0] == 0x1F, body[1] == 0x8B { return Gzip.inflate(body, format: .gzip, maximumBytes: limit) }
        if body[0] & 0x0F == 8, (UInt16(body[0]) << 8 | UInt16(body[1])) % 31 == 0 {
            if let plain = Gzip.inflate(body, format: .zlib, maximumBytes: limit) { return plain }
        }
        if (try? JSONValue(parsing: body)) != nil { return body }
        return Gzip.inflate(body, format: .raw, maximumBytes: limit) ?? body
    }
}
