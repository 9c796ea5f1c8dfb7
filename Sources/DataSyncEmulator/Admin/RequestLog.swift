import EmulatorHTTP
public import Foundation

/// One request the emulator answered, as its in-memory request log keeps it (the console's live
/// request log, `GET /_emulator/v1/requests`, ``Emulator/recentRequests(limit:)``).
///
/// Credentials never reach the log: the values of the `auth` and `signature` query parameters,
/// and the token of a revoke path (`/v3/pam/{sub}/grant/{token}`), read `REDACTED`.
public struct RequestLogEntry: Sendable, Hashable {
    /// Position in the log: 1 for the first request answered, one more for each after it.
    public var sequence: UInt64
    /// When the request reached the router, in real (system) time, not the emulator's clock.
    public var receivedAt: Date
    /// The method, as sent.
    public var method: String
    /// The request target, still percent-encoded, with credentials redacted.
    public var target: String
    /// The status answered.
    public var status: Int
    /// How long the answer took (a held subscribe long-poll shows its whole hold).
    public var duration: Duration
    /// The size of the answer's body in bytes.
    public var responseBytes: Int
    /// Whether the client went away (or the server stopped) before the answer was sent: the
    /// status is then what the service returned to a cancelled task, and nobody received it.
    public var cancelled: Bool
    /// Which part of the API the path belongs to: `datasync`, `pubsub`, `presence`, `access`,
    /// `time` or `other`.
    public var area: String
}

/// The router's in-memory request log: a bounded ring of ``RequestLogEntry`` values. It is fed by
/// ``EmulatorRouter`` for every request it answers, except the admin routes themselves (the
/// console's own polling would drown everything else); it never writes to standard output.
final class RequestLog: Sendable {
    /// The value shown in place of a credential.
    static let redacted = "REDACTED"
    /// Query parameters whose values are credentials.
    static let secretParameters: Set<String> = ["auth", "signature"]

    let journal: Journal<RequestLogEntry>
    /// Paths under this prefix are not logged.
    let excludedPrefix: String

    /// `excludedPrefix` and a slash: the paths below it.
    private let excludedPrefixSlash: String

    init(capacity: Int, excludedPrefix: String) {
        journal = Journal(capacity: capacity)
        self.excludedPrefix = excludedPrefix
        excludedPrefixSlash = excludedPrefix + "/"
    }

    /// Logs one answered request.
    func record(_ request: ServerRequest, response: ServerResponse, receivedAt: Date, duration: Duration) {
        let path = request.rawPath
        if path.hasPrefix(excludedPrefix) && (path == excludedPrefix || path.hasPrefix(excludedPrefixSlash)) {
            return
        }
        let cancelled = Task.isCancelled
        journal.append { sequence in
            RequestLogEntry(
                sequence: sequence, receivedAt: receivedAt, method: request.method,
                target: Self.redact(request.target), status: response.status, duration: duration,
                responseBytes: response.body.count, cancelled: cancelled, area: Self.area(of: path))
        }
    }

    /// `target` with the value of every `auth` and `signature` query parameter, and a revoke
    /// path's token, replaced by `REDACTED`; everything else stays as sent.
    static func redact(_ target: String) -> String {
        // Most targets carry no credential: skip the parsing for them (checked on the UTF-8
        // bytes; Foundation's string search costs more than the rest of the entry).
        // Without a query only a revoke path has something to hide.
        let bytes = target.utf8
        let hasQuery = bytes.contains(UInt8(ascii: "?"))
        guard
            target.hasPrefix("/v3/pam/")
                || hasQuery
                    && (bytes.contains(UInt8(ascii: "%")) || contains(bytes, "auth") || contains(bytes, "signature"))
        else {
            return target
        }
        var path = target
        var query: Substring?
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = target[target.index(after: mark)...]
        }
        // DELETE /v3/pam/{sub}/grant/{token}: the token is a credential too.
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        if segments.count >= 6, segments[1] == "v3", segments[2] == "pam", segments[4] == "grant",
            !segments[5].isEmpty
        {
            var kept = segments.prefix(5).map(String.init)
            kept.append(redacted)
            kept += segments.dropFirst(6).map(String.init)
            path = kept.joined(separator: "/")
        }
        guard let query else { return path }
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(pieces[0]) ?? String(pieces[0])
            guard secretParameters.contains(name) else { return String(part) }
            return pieces[0] + "=" + redacted
        }
        return path + "?" + parts.joined(separator: "&")
    }

    /// Whether `word` (ASCII) occurs in `bytes`.
    private static func contains(_ bytes: String.UTF8View, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard count > 0, bytes.count >= count else { return false }
        return word.withUTF8Buffer { needle -> Bool in
            guard let first = needle.first else { return false }
            var index = bytes.startIndex
            let last = bytes.index(bytes.endIndex, offsetBy: -count)
            while index <= last {
                if bytes[index] == first, bytes[index...].starts(with: needle) { return true }
                index = bytes.index(after: index)
            }
            return false
        }
    }

    /// The part of the API a raw path belongs to.
    static func area(of path: String) -> String {
        if path.hasPrefix(DataSyncService.pathPrefix) { return "datasync" }
        if path.hasPrefix("/v2/presence/") { return "presence" }
        if path.hasPrefix("/v3/pam/") { return "access" }
        if path == "/time/0" { return "time" }
        for prefix in ["/publish/", "/signal/", "/v2/subscribe/", "/v1/channel-registration/"]
        where path.hasPrefix(prefix) {
            return "pubsub"
        }
        return "other"
    }
}
