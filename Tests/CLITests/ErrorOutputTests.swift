import ArgumentParsing
import DataSyncEmulator
import Foundation
import JSONCore
import Testing
import Transport

@testable import datasync_cli

@Suite("datasync: --output json errors, --timeout, --retries and the retry line", .timeLimit(.minutes(2)))
struct ErrorOutputTests {
    @Test("a usage error with --output json (or DATASYNC_OUTPUT=json) is one JSON object on stderr")
    func usageErrorAsJSON() async throws {
        for (arguments, extra) in [
            (["usres", "list", "--output", "json"], [String: String]()),
            (["usres", "list"], ["DATASYNC_OUTPUT": "json"]),
            (["--output=json", "usres", "list"], [:]),
            (["usres", "-o", "json"], [:]),
        ] {
            let result = try await CLIEnvironment.run(arguments, extra: extra)
            #expect(result.status == 2, "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
            let lines = result.stderr.split(separator: "\n")
            try #require(lines.count == 1, "\(result)")
            let error = try #require(try JSONValue(parsing: String(lines[0]))["error"], "\(result)")
            #expect(error["kind"] == "usage")
            #expect(error["exitStatus"] == 2)
            #expect(error["message"] == "unknown command 'usres' for 'datasync'")
            #expect(error["suggestion"] == "users")
            #expect(error["help"] == "datasync --help")
        }
        // The default stays text.
        let text = try await CLIEnvironment.run(["usres", "list"])
        #expect(text.stderr.hasPrefix("datasync: unknown command 'usres'"), "\(text)")
    }

    @Test("a service error with --output json carries the reason, the HTTP status and the command")
    func serviceErrorAsJSON() async throws {
        try await withEmulator { live in
            let result = try await live.run(["users", "get", "nobody", "--output", "json"])
            #expect(result.status == 1, "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
            let error = try #require(try JSONValue(parsing: result.stderr)["error"], "\(result)")
            #expect(error["kind"] == "service")
            #expect(error["exitStatus"] == 1)
            #expect(error["command"] == "users get")
            #expect(error["reason"] == "resourceNotFound", "\(result)")
            #expect(error["httpStatus"] == 404, "\(result)")
        }
    }

    @Test("--timeout and --retries are checked before anything is sent")
    func invalidTimeoutAndRetries() async throws {
        let environment = ["DATASYNC_SUBSCRIBE_KEY": "demo", "DATASYNC_ORIGIN": "127.0.0.1:9"]
        for (arguments, message) in [
            (["time", "--timeout", "0"], "option '--timeout' takes a number of seconds above 0"),
            (["time", "--timeout", "soon"], "option '--timeout' takes a number of seconds above 0"),
            (["time", "--retries", "11"], "option '--retries' takes a whole number from 0 to 10, not '11'"),
        ] {
            let result = try await CLIEnvironment.run(arguments, extra: environment)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stderr.contains(message), "\(arguments): \(result)")
        }
    }

    @Test("an unreachable origin with --retries 1 says it is retrying, then fails with status 1")
    func retryLine() async throws {
        // Port 9 (discard) on loopback: nothing listens, so every attempt is refused at once.
        let environment = [
            "DATASYNC_SUBSCRIBE_KEY": "demo", "DATASYNC_ORIGIN": "127.0.0.1:9", "DATASYNC_INSECURE_HTTP": "1",
        ]
        let result = try await CLIEnvironment.run(["time", "--retries", "1"], extra: environment)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("datasync: GET 127.0.0.1:9/time/0: attempt 1 of 2 failed ("), "\(result)")
        #expect(result.stderr.contains("); retrying in "), "\(result)")
        let none = try await CLIEnvironment.run(["time", "--retries", "0"], extra: environment)
        #expect(none.status == 1, "\(none)")
        #expect(!none.stderr.contains("retrying"), "\(none)")
        let quiet = try await CLIEnvironment.run(["time", "--retries", "1", "--quiet"], extra: environment)
        #expect(!quiet.stderr.contains("retrying"), "\(quiet)")
    }

    @Test("the reporter prints one line per retry wait, only after a failure the SDK retries")
    func reporterUnit() async throws {
        let lines = Lines()
        let reporter = RetryReporter(retries: 3) { lines.append($0) }
        let middleware = reporter.middleware
        let get = HTTPRequest(method: .get, scheme: "http", host: "h", port: 1, path: "/time/0")
        let refused: @concurrent @Sendable (HTTPRequest) async throws -> HTTPResponse = { _ in
            throw TransportError(code: .cannotConnect, message: "connection refused")
        }
        await #expect(throws: TransportError.self) { try await middleware.intercept(get, next: refused) }
        reporter.waiting(.milliseconds(1200))
        #expect(lines.all == ["GET h:1/time/0: attempt 1 of 4 failed (connection refused); retrying in 1.2 s"])
        // A wait with no failure before it (a heartbeat) prints nothing.
        reporter.waiting(.seconds(1))
        #expect(lines.all.count == 1)
        // A POST is never resent, so its failure is not announced as a retry.
        var post = get
        post.method = .post
        await #expect(throws: TransportError.self) { try await middleware.intercept(post, next: refused) }
        reporter.waiting(.seconds(1))
        #expect(lines.all.count == 1)
    }
}

/// Lines collected from another task.
final class Lines: Sendable {
    private let storage = LockedLines()
    func append(_ line: String) { storage.append(line) }
    var all: [String] { storage.all }
}

private final class LockedLines: @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
