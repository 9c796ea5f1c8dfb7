import EmulatorHTTP
public import Foundation

/// One request the emulator answered, as its in-memory request log keeps it (the console's live
/// request log, `GET /_emulator/v1/requests`, ``Emulator/recentRequests(limit:)``).
///
/// Credentials never reach the log: the values of the `auth` and `signature` query parameters
/// (whatever the letter case of their names), and the token of a revoke path
/// (`/v3/pam/{sub}/grant/{token}`), read `REDACTED` (``RequestLogRedaction``).
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

    /// Logs one answered request; `cancelled` says whether its client went away (by default,
    /// whether the calling task is cancelled).
    func record(
        _ request: ServerRequest, response: ServerResponse, receivedAt: Date, duration: Duration,
        cancelled: Bool? = nil
    ) {
        let path = request.rawPath
        guard !isExcluded(path) else { return }
        append(
            method: request.method, target: request.target, area: Self.area(of: path), response: response,
            receivedAt: receivedAt, duration: duration, cancelled: cancelled ?? Task.isCancelled)
    }

    private func isExcluded(_ path: String) -> Bool {
        path.hasPrefix(excludedPrefix) && (path == excludedPrefix || path.hasPrefix(excludedPrefixSlash))
    }

    private func append(
        method: String, target: String, area: String, response: ServerResponse, receivedAt: Date,
        duration: Duration, cancelled: Bool
    ) {
        journal.append { sequence in
            RequestLogEntry(
                sequence: sequence, receivedAt: receivedAt, method: method, target: Self.redact(target),
                status: response.status, duration: duration, responseBytes: response.body.count,
                cancelled: cancelled, area: area)
        }
    }

    /// What logging a parked request's answer later needs, and nothing more: a held long-poll
    /// keeps this for as long as it waits, instead of the whole request.
    final class PendingEntry: Sendable {
        private let log: RequestLog?
        private let method: String
        /// In storage of its own (see ``ownCopy(of:)``).
        let target: String
        private let area: String
        private let receivedAt: Date
        private let start: ContinuousClock.Instant

        init(log: RequestLog, request: ServerRequest, receivedAt: Date, start: ContinuousClock.Instant) {
            let path = request.rawPath
            self.log = log.isExcluded(path) ? nil : log
            method = request.method
            target = Self.ownCopy(of: request.target)
            area = RequestLog.area(of: path)
            self.receivedAt = receivedAt
            self.start = start
        }

        /// `text` in storage of its own. The server parsed the target on its event-loop thread,
        /// between that request's short-lived buffers and its task; keeping that string for as
        /// long as the request is held would pin those pages once the rest is freed, so a held
        /// request keeps a copy made here instead (issue 34 §2, Documentation/Benchmarks.md).
        private static func ownCopy(of text: String) -> String {
            let bytes = text.utf8
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                _ = buffer.initialize(fromContentsOf: bytes)
                return bytes.count
            }
        }

        /// Logs the completed answer and passes it on unchanged (as cancelled when the completing
        /// task is, as ``RequestLog/record(_:response:receivedAt:duration:cancelled:)`` does).
        func record(_ response: ServerResponse) -> ServerResponse {
            log?.append(
                method: method, target: target, area: area, response: response, receivedAt: receivedAt,
                duration: start.duration(to: .now), cancelled: Task.isCancelled)
            return response
        }

        /// Logs the `503` a cancelled wait answers, marked as cancelled.
        func recordCancelled() {
            log?.append(
                method: method, target: target, area: area, response: ServerResponse(status: 503),
                receivedAt: receivedAt, duration: start.duration(to: .now), cancelled: true)
        }
    }

    /// `target` with its credentials replaced by `REDACTED`: the request log and the standard
    /// output lines share ``RequestLogRedaction``, so a name one of them hides (in any letter case,
    /// percent-encoded or not) the other hides too.
    static func redact(_ target: String) -> String { RequestLogRedaction.redact(target: target) }

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
