import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import PubNubBase
import Testing

/// The emulator logs through the SDK's logging types (issue 32 §4): request lines at `info` in
/// category `emulator`, their sizes at `debug`, filtered by the logger's level, with credentials
/// redacted, and the executables' `--log-level` and `--no-request-lines`.
@Suite("Emulator logging")
struct EmulatorLoggingTests {
    /// Serves an emulator logging to a recording logger at `level`, sends `targets`, and returns
    /// the records.
    private func records(
        level: PubNubLogLevel, logsRequests: Bool = true, targets: [String]
    ) async throws -> [PubNubLogRecord] {
        let recorded = Locked<[PubNubLogRecord]>([])
        var configuration = EmulatorConfiguration()
        configuration.logger = ClosureLogger(minimumLevel: level) { record in recorded.withLock { $0.append(record) } }
        configuration.logsRequests = logsRequests
        let emulator = try Emulator(configuration: configuration)
        let url = try await emulator.start()
        let port = try #require(url.port.flatMap { UInt16(exactly: $0) })
        do {
            try await onThread {
                let connection = try RawSocket(port: port, timeout: 10)
                defer { connection.close() }
                for target in targets {
                    try connection.request("GET", target, headers: [("User-Agent", "logging-test/1")])
                }
            }
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
        return recorded.withLock { $0 }
    }

    @Test("each answered request is an info record in category emulator, with credentials redacted")
    func requestLinesAtInfo() async throws {
        let records = try await records(
            level: .info, targets: ["/time/0?auth=SECRET-TOKEN", "/v3/pam/demo/grant/SECRET-REVOKED"])
        #expect(records.count == 2)
        #expect(records.allSatisfy { $0.level == .info && $0.category == .emulator })
        #expect(records.first?.message.hasPrefix("GET /time/0?auth=REDACTED -> 200 (") == true)
        #expect(records.last?.message.hasPrefix("GET /v3/pam/demo/grant/REDACTED -> ") == true)
        for record in records { #expect(!record.message.contains("SECRET"), "leaked: \(record)") }
    }

    @Test("debug adds each request's sizes and client; warning drops the request lines")
    func levelsFilter() async throws {
        let debug = try await records(level: .debug, targets: ["/time/0?auth=SECRET"])
        #expect(debug.map(\.level) == [.info, .debug])
        let details = try #require(debug.last?.message)
        #expect(details.contains("0 request bytes"))
        #expect(details.contains("user agent logging-test/1"))
        #expect(!debug.contains { $0.message.contains("SECRET") })
        #expect(try await records(level: .warning, targets: ["/time/0", "/time/0"]).isEmpty)
        #expect(try await records(level: .debug, logsRequests: false, targets: ["/time/0"]).isEmpty)
    }

    @Test("the executables' logger prints info bare on stdout, warnings on stderr, debug and error marked")
    func outputLogger() {
        let out = Locked<[String]>([])
        let err = Locked<[String]>([])
        let logger = EmulatorOutputLogger(
            minimumLevel: .debug, standardOutput: { line in out.withLock { $0.append(line) } },
            standardError: { line in err.withLock { $0.append(line) } })
        logger.log(.info, .emulator, "GET /time/0 -> 200 (0.1 ms)")
        logger.log(.debug, .emulator, "  0 request bytes")
        logger.log(.warning, .emulator, "WARNING: listening beyond loopback")
        logger.log(.error, .emulator, "cannot save")
        #expect(out.withLock { $0 } == ["GET /time/0 -> 200 (0.1 ms)", "debug:   0 request bytes"])
        #expect(err.withLock { $0 } == ["WARNING: listening beyond loopback", "error: cannot save"])
        let quiet = EmulatorOutputLogger(
            minimumLevel: .warning, standardOutput: { line in out.withLock { $0.append(line) } },
            standardError: { _ in })
        quiet.log(.info, .emulator, "not printed")
        #expect(out.withLock { $0 }.count == 2)
    }

    @Test("--log-level takes the four level names and refuses anything else, naming the flag")
    func logLevelFlag() throws {
        for level in PubNubLogLevel.allCases {
            guard case .run(let options) = try EmulatorOptions.parse(["--log-level", level.description]) else {
                Issue.record("expected options")
                return
            }
            #expect(options.logLevel == level)
        }
        guard case .run(let defaults) = try EmulatorOptions.parse([]) else {
            Issue.record("expected options")
            return
        }
        #expect(defaults.logLevel == .info)
        #expect(try defaults.configuration().logsRequests)
        do throws(EmulatorOptionsError) {
            _ = try EmulatorOptions.parse(["--log-level", "verbose"])
            Issue.record("verbose was accepted")
        } catch {
            #expect(error.option == "--log-level")
            #expect(error.message.contains("debug, info, warning or error"))
        }
    }
}
