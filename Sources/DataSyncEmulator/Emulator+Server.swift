import EmulatorHTTP
public import Foundation
import PubNubBase

extension Emulator {
    /// Serves this emulator over HTTP on `host` (default loopback) and `port` (default 0: an
    /// ephemeral port chosen by the system), and returns the base URL, e.g.
    /// `http://127.0.0.1:49152`. Calling it again while running returns the same URL.
    ///
    /// While serving, objects whose `expiresAt` passes on the emulator's clock are removed about
    /// once a second of that clock even when no request arrives, so their delete changes reach
    /// the change feed (with a manual clock: whenever it is moved a second or more).
    ///
    /// - Parameters:
    ///   - host: the address to listen on: an IPv4 or IPv6 literal, or `localhost`.
    ///   - port: the port to listen on; 0 lets the system choose a free one.
    ///   - requestLog: called with one line per answered request
    ///     (`GET /v1/… -> 200 (0.4 ms)`), or nil for no log. Secrets are redacted from the line
    ///     (see ``RequestLogRedaction``). It is called in the request's handler task, or on the
    ///     server's event-loop thread for a request answered at once, so it must not block: hand
    ///     the line to a `LineWriter` (module `EmulatorHTTP`), which never waits. The same line
    ///     also goes to ``EmulatorConfiguration/logger`` as an `info` record, either way.
    /// - Throws: ``EmulatorError`` with ``EmulatorError/Code-swift.struct/serverStart`` when the
    ///   address cannot be bound.
    public func start(
        host: String = "127.0.0.1", port: UInt16 = 0, requestLog: (@Sendable (String) -> Void)? = nil
    ) async throws(EmulatorError) -> URL {
        if let running = server { return running.url }
        // Anywhere but loopback, the admin API needs the admin secret from now on, and every
        // host name is answered (rebinding protection is for loopback services).
        admin.access.serving(onHost: host)
        router.hostPolicy?.serving(onHost: host)
        let logger = requestLogger.flatMap { $0.isEnabled(.info, .emulator) ? $0 : nil }
        let handler: any ServerHandler =
            requestLog == nil && logger == nil
            ? self.handler : LoggingHandler(inner: self.handler, log: requestLog, logger: logger)
        var configuration = HTTPServer.Configuration(host: host, port: port)
        configuration.maximumConnections = serverLimits.maximumConnections
        configuration.maximumBufferedRequestBytes = serverLimits.maximumBufferedRequestBytes
        if let eventLoops = serverLimits.eventLoops { configuration.eventLoops = eventLoops }
        let server = HTTPServer(configuration: configuration, handler: handler)
        do {
            try await server.start()
        } catch {
            throw EmulatorError(code: .serverStart, message: "cannot serve on \(host):\(port): \(error)")
        }
        guard let bound = server.port,
            let url = URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(bound)")
        else {
            await server.stop()
            throw EmulatorError(code: .serverStart, message: "the server reported no port")
        }
        // Another start may have finished while this one was suspended: keep the first.
        if let running = self.server {
            await server.stop()
            return running.url
        }
        self.server = RunningServer(server: server, url: url)
        await dataSync.startSweeping()
        return url
    }

    /// Stops serving (held requests are cancelled). The emulator's state stays, so it can be
    /// started again.
    public func stop() async {
        guard let running = server else { return }
        server = nil
        await dataSync.stopSweeping()
        await running.server.stop()
    }

    /// The base URL while serving, nil otherwise.
    public var baseURL: URL? { server?.url }
}

/// A started server and its base URL.
struct RunningServer: Sendable {
    let server: HTTPServer
    let url: URL
}

/// Logs one line per request, then answers it from the wrapped handler.
struct LoggingHandler: ServerHandler {
    let inner: any ServerHandler
    /// The `requestLog` closure of ``Emulator/start(host:port:requestLog:)``.
    var log: (@Sendable (String) -> Void)?
    /// ``EmulatorConfiguration/logger``: the line at `info`, the sizes at `debug`.
    var logger: (any PubNubLogger)?

    func handle(_ request: ServerRequest) async -> ServerResponse {
        let clock = ContinuousClock()
        let start = clock.now
        let response = await inner.handle(request)
        record(request, response, elapsed: start.duration(to: clock.now))
        return response
    }

    /// The wrapped handler's immediate answer, logged the same way.
    func respondImmediately(to request: ServerRequest) -> ServerResponse? {
        let clock = ContinuousClock()
        let start = clock.now
        guard let response = inner.respondImmediately(to: request) else { return nil }
        record(request, response, elapsed: start.duration(to: clock.now))
        return response
    }

    private func record(_ request: ServerRequest, _ response: ServerResponse, elapsed: Duration) {
        // The line is built only when someone reads it: a logger at `warning` costs nothing.
        guard log != nil || logger?.isEnabled(.info, .emulator) == true else {
            logDetails(request, response)
            return
        }
        let target = RequestLogRedaction.redact(target: request.target)
        let milliseconds = Self.milliseconds(elapsed)
        // `METHOD TARGET -> STATUS (T ms)`, built in one buffer of the right size.
        var line = ""
        line.reserveCapacity(request.method.utf8.count + target.utf8.count + milliseconds.utf8.count + 16)
        line += request.method
        line += " "
        line += target
        line += " -> "
        line += String(response.status)
        line += " ("
        line += milliseconds
        line += " ms)"
        log?(line)
        logger?.log(.info, .emulator, line)
        logDetails(request, response)
    }

    /// The `debug` record: sizes and the client's name (headers stay out: they may hold a
    /// credential).
    private func logDetails(_ request: ServerRequest, _ response: ServerResponse) {
        logger?.log(
            .debug, .emulator,
            "  \(request.body.count) request bytes, \(response.body.count) response bytes, user agent "
                + (request.header("User-Agent") ?? "none"))
    }

    /// `duration` in milliseconds with one decimal (`0.4`), without going through `String(format:)`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return "0.0" }
        // Tenths of a millisecond, rounded half up: 10^14 attoseconds each.
        let tenths = seconds.multipliedReportingOverflow(by: 10_000)
        guard !tenths.overflow else { return "\(seconds)000.0" }
        let total = tenths.partialValue + (attoseconds + 50_000_000_000_000) / 100_000_000_000_000
        return "\(total / 10).\(total % 10)"
    }
}

/// The limits of the HTTP server ``Emulator/start(host:port:requestLog:)`` runs (module
/// `EmulatorHTTP`'s `HTTPServer.Configuration` has the details).
public struct EmulatorServerLimits: Sendable, Hashable {
    /// The most connections open at once. At the limit a new connection closes the one idle
    /// longest, or, when none is idle, is answered `503` with `Retry-After: 1` at once. Default 16,384 (room for 10,000 held
    /// long-polls); at start the server raises the soft file-descriptor limit to fit it, or, where
    /// the hard limit is too low, serves fewer and says so on standard error.
    public var maximumConnections: Int
    /// The most request bytes buffered across all connections at once (a body counts at its
    /// declared length); a request over it is answered `503` with `Retry-After: 1`. Default 256 MiB.
    public var maximumBufferedRequestBytes: Int
    /// How many event-loop threads write the answers, 1 to 8; nil (the default) leaves the HTTP
    /// server's choice: 2, or 1 on a single core. A fan-out to thousands of held subscribers is
    /// written from that many cores at once; connections are dealt out to the loops in turn.
    public var eventLoops: Int?

    /// Creates limits; the defaults are the HTTP server's.
    public init(
        maximumConnections: Int = 16_384, maximumBufferedRequestBytes: Int = 256 * 1024 * 1024,
        eventLoops: Int? = nil
    ) {
        self.maximumConnections = maximumConnections
        self.maximumBufferedRequestBytes = maximumBufferedRequestBytes
        self.eventLoops = eventLoops
    }
}

/// What the request log hides: the values of the query parameters `auth` and `signature` (the
/// ones the SDK's `LoggingMiddleware` hides, matched after percent-decoding and without regard to
/// case, so `%61uth` and `AUTH` are hidden too) and the token in an Access Manager revoke path
/// (`/v3/pam/{sub}/grant/{token}`), each replaced by `REDACTED`.
public enum RequestLogRedaction {
    /// The text that replaces a secret.
    public static let redacted = "REDACTED"
    /// Query parameter names whose values are secrets (compared after decoding, ignoring case).
    public static let secretQueryNames: Set<String> = ["auth", "signature"]

    /// `target` (a raw, percent-encoded request target) with its secrets replaced.
    public static func redact(target: String) -> String {
        // Most targets carry no credential: skip the parsing for them (checked on the UTF-8 bytes,
        // cheaper than the rest of a log entry). Only a query naming a secret (or holding an
        // escape that may spell one) or an Access Manager path has something to hide.
        let bytes = target.utf8
        if !target.hasPrefix("/v3/pam/") {
            guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return target }
            let query = bytes[bytes.index(after: mark)...]
            guard
                query.contains(UInt8(ascii: "%")) || containsIgnoringASCIICase(query, "auth")
                    || containsIgnoringASCIICase(query, "signature")
            else { return target }
        }
        var path = Substring(target)
        var query: Substring?
        if let mark = target.firstIndex(of: "?") {
            path = target[..<mark]
            query = target[target.index(after: mark)...]
        }
        var result = redact(path: path)
        if let query {
            let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
                guard let equals = part.firstIndex(of: "=") else { return String(part) }
                let name = part[..<equals]
                let decoded = PercentDecoding.decode(name) ?? String(name)
                guard secretQueryNames.contains(decoded.lowercased()) else { return String(part) }
                return name + "=" + redacted
            }
            result += "?" + parts.joined(separator: "&")
        }
        return result
    }

    /// Whether `word` (lowercase ASCII) occurs in `bytes`, ASCII letters compared without case.
    private static func containsIgnoringASCIICase(_ bytes: Substring.UTF8View, _ word: StaticString) -> Bool {
        word.withUTF8Buffer { needle -> Bool in
            guard let first = needle.first, bytes.count >= needle.count else { return false }
            func folded(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
            var index = bytes.startIndex
            let last = bytes.index(bytes.endIndex, offsetBy: -needle.count)
            while index <= last {
                if folded(bytes[index]) == first,
                    bytes[index...].prefix(needle.count).elementsEqual(needle, by: { folded($0) == $1 })
                {
                    return true
                }
                index = bytes.index(after: index)
            }
            return false
        }
    }

    private static func redact(path: Substring) -> String {
        // /v3/pam/{sub}/grant/{token}: segments "", "v3", "pam", sub, "grant", token
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 6, segments[1] == "v3", segments[2] == "pam", segments[4] == "grant",
            !segments[5].isEmpty
        else {
            return String(path)
        }
        var kept = segments.prefix(5).map(String.init)
        kept.append(redacted)
        kept += segments.dropFirst(6).map(String.init)
        return kept.joined(separator: "/")
    }
}
