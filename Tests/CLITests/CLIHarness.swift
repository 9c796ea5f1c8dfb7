import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the built `datasync` executable is: next to the test bundle in the build directory
/// (`.build/<configuration>/`), found from the running test binary, never from a fixed path.
/// `DATASYNC_CLI_BINARY` overrides it.
enum CLIBinary {
    static let url: URL? = locate()

    private final class Marker {}

    private static func locate() -> URL? {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["DATASYNC_CLI_BINARY"], !given.isEmpty { return URL(fileURLWithPath: given) }
        var starts: [URL] = []
        if let executable = Bundle.main.executableURL { starts.append(executable.deletingLastPathComponent()) }
        starts.append(Bundle(for: Marker.self).bundleURL.deletingLastPathComponent())
        starts.append(Bundle.main.bundleURL)
        if let first = CommandLine.arguments.first {
            starts.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        let manager = FileManager.default
        for start in starts {
            // On Linux the tests run from `.build/debug/X.xctest`; on macOS from
            // `.build/debug/X.xctest/Contents/MacOS/X`: look in the start and up to three parents.
            var directory = start.standardizedFileURL
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("datasync")
                var isDirectory: ObjCBool = false
                if manager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    manager.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        // Last resort: the package's own build directory, relative to this source file.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for configuration in ["debug", "release"] {
            let candidate = root.appendingPathComponent(".build").appendingPathComponent(configuration)
                .appendingPathComponent("datasync")
            if manager.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    static func require() throws -> URL {
        try #require(url, "the datasync executable was not found next to the tests; build it (swift build)")
    }
}

/// A finished run of the CLI.
struct CLIResult: Sendable, CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output split into non-empty lines.
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Standard output as one JSON value.
    func json() throws -> JSONValue { try JSONValue(parsing: stdout) }

    /// Each line of standard output as JSON (NDJSON).
    func ndjson() throws -> [JSONValue] { try lines.map { try JSONValue(parsing: $0) } }

    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// One `datasync` process: its output collected as it comes, signals, and its exit. A thin layer
/// over DataSyncTestSupport's `ChildProcess` (posix_spawn, not Foundation's `Process`).
final class CLIProcess: Sendable {
    private let child: ChildProcess

    init(_ arguments: [String], environment: [String: String], stdin: String? = nil) throws {
        child = try ChildProcess(
            executable: try CLIBinary.require().path, arguments: arguments, environment: environment,
            stdin: stdin.map { Array($0.utf8) })
    }

    var stdout: String { child.standardOutput }
    var stderr: String { child.standardError }
    var processIdentifier: Int32 { child.processIdentifier }
    var isRunning: Bool { child.isRunning }
    var terminationStatus: Int32 { child.terminationStatus }

    /// Sends a signal (SIGINT is what Ctrl-C sends).
    func send(_ signal: Int32) { child.send(signal) }

    /// Waits until `condition` holds for (stdout, stderr), polling; fails the test on timeout.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Duration = .seconds(20), _ condition: (String, String) -> Bool
    ) async throws -> (stdout: String, stderr: String) {
        try await child.waitFor(what, timeout: timeout, condition)
    }

    /// Waits for the exit (bounded; the process is killed past it) and returns what it printed.
    func finish(timeout: Duration = .seconds(30)) async throws -> CLIResult {
        let result = try await child.finish(timeout: timeout)
        return CLIResult(status: result.status, stdout: result.standardOutput, stderr: result.standardError)
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// An emulator served on an ephemeral loopback port of this test process, and the environment
/// that points the CLI at it.
struct LiveEmulator: Sendable, StoppableRig {
    let emulator: Emulator
    let url: URL
    /// A directory of its own for config files and as `HOME`.
    let home: URL

    static func start(_ configuration: EmulatorConfiguration = EmulatorConfiguration()) async throws -> LiveEmulator {
        let emulator = try Emulator(configuration: configuration)
        let url = try await emulator.start(host: "127.0.0.1", port: 0)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("datasync-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        return LiveEmulator(emulator: emulator, url: url, home: home)
    }

    /// `127.0.0.1:<port>`.
    var origin: String { "\(url.host ?? "127.0.0.1"):\(url.port ?? 0)" }

    /// A clean environment (no settings inherited from the machine running the tests) aimed at
    /// this emulator over plain HTTP with the demo keys.
    func environment(subscribeKey: String = "demo", extra: [String: String] = [:]) -> [String: String] {
        var environment = CLIEnvironment.clean(home: home)
        environment["DATASYNC_ORIGIN"] = origin
        environment["DATASYNC_INSECURE_HTTP"] = "1"
        environment["DATASYNC_SUBSCRIBE_KEY"] = subscribeKey
        environment["DATASYNC_PUBLISH_KEY"] = "demo"
        environment.merge(extra) { $1 }
        return environment
    }

    /// Runs `datasync arguments…` to its end.
    func run(_ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil) async throws
        -> CLIResult
    {
        try await CLIProcess(arguments, environment: environment ?? self.environment(), stdin: stdin).finish()
    }

    /// Starts `datasync arguments…` and returns at once.
    func launch(_ arguments: [String], environment: [String: String]? = nil) throws -> CLIProcess {
        try CLIProcess(arguments, environment: environment ?? self.environment())
    }

    func stop() async {
        await emulator.stop()
        try? FileManager.default.removeItem(at: home)
    }
}

enum CLIEnvironment {
    /// `PATH`, and `HOME` and `XDG_CONFIG_HOME` inside `home`, so no real config file is read.
    static func clean(home: URL) -> [String: String] {
        var environment: [String: String] = [
            "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
        ]
        if let path = ProcessInfo.processInfo.environment["PATH"] { environment["PATH"] = path }
        return environment
    }

    /// Runs `datasync arguments…` with a clean environment and no service.
    static func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> CLIResult {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("datasync-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        return try await CLIProcess(arguments, environment: clean(home: home).merging(extra) { $1 }).finish()
    }
}

/// Starts an emulator, runs `body`, stops it.
func withEmulator(
    _ configuration: EmulatorConfiguration = EmulatorConfiguration(), _ body: (LiveEmulator) async throws -> Void
) async throws {
    try await LiveEmulator.start(configuration).run(body)
}

/// Keyset `demo`/`demo` with access control on (secret `demo-secret`): the emulator checks tokens,
/// so requests without a valid one are refused with 403.
let protectedDemoEmulator = EmulatorConfiguration(
    pubSub: PubSubConfiguration(keysets: [
        .protected(publishKey: "demo", subscribeKey: "demo", secretKey: "demo-secret")
    ]))
