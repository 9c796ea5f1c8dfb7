import DataSyncEmulator
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

/// One `datasync` process: its output collected as it comes, signals, and its exit.
///
/// Spawned with `posix_spawn` rather than Foundation's `Process`: on Linux, `Process.run()` of
/// this toolchain can crash reading `/proc/self/fd` while the test process holds many
/// descriptors (swift-corelibs-foundation#5472). Every pipe is close-on-exec, so a child inherits
/// only its own three standard descriptors and end of file arrives when it exits.
final class CLIProcess: @unchecked Sendable {
    private let pid: pid_t
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    private var exitStatus: Int32?
    private let readers = DispatchGroup()

    /// Writing to a child that already exited must fail with EPIPE, not kill the tests.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Held from making a child's pipes to spawning it, so no other child of these tests
    /// inherits a pipe in the moment before it is marked close-on-exec.
    private static let spawnLock = NSLock()

    init(_ arguments: [String], environment: [String: String], stdin: String? = nil) throws {
        Self.ignoreBrokenPipes
        let executable = try CLIBinary.require().path
        Self.spawnLock.lock()
        var locked = true
        defer { if locked { Self.spawnLock.unlock() } }
        let input = try Self.pipe()
        let out = try Self.pipe()
        let err = try Self.pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input.read, 0)
        posix_spawn_file_actions_adddup2(&actions, out.write, 1)
        posix_spawn_file_actions_adddup2(&actions, err.write, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        #if canImport(Darwin)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #endif
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child = pid_t()
        let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        Self.spawnLock.unlock()
        locked = false
        close(input.read)
        close(out.write)
        close(err.write)
        guard spawned == 0 else {
            close(input.write)
            close(out.read)
            close(err.read)
            throw HarnessFailure("cannot start \(executable): error \(spawned)")
        }
        pid = child
        read(out.read, errors: false)
        read(err.read, errors: true)
        if let stdin {
            var bytes = Array(stdin.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { write(input.write, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                bytes = bytes.dropFirst(written)
            }
        }
        close(input.write)
    }

    /// A pipe whose two ends are closed on exec.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        #if canImport(Glibc)
            let made = Glibc.pipe(&descriptors)
        #else
            let made = Darwin.pipe(&descriptors)
        #endif
        guard made == 0 else { throw HarnessFailure("pipe failed: \(errno)") }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    private func read(_ descriptor: Int32, errors isErrorStream: Bool) {
        readers.enter()
        // A thread of its own per pipe: blocking reads must not hold the shared dispatch pool,
        // which many concurrent tests (and long-running `watch` processes) would exhaust.
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { raw in
                    #if canImport(Glibc)
                        Glibc.read(descriptor, raw.baseAddress, raw.count)
                    #else
                        Darwin.read(descriptor, raw.baseAddress, raw.count)
                    #endif
                }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                let chunk = Data(buffer[0..<count])
                lock.withLock {
                    if isErrorStream { errors.append(chunk) } else { output.append(chunk) }
                }
            }
            close(descriptor)
            readers.leave()
        }
        thread.start()
    }

    var stdout: String { lock.withLock { String(decoding: output, as: UTF8.self) } }
    var stderr: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }
    var processIdentifier: Int32 { pid }

    /// Whether the process still runs; reaps it (once) when it has exited.
    var isRunning: Bool {
        lock.withLock {
            if exitStatus != nil { return false }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            guard reaped == pid else { return reaped == 0 }
            // Exited: the code; killed by a signal: 128 + the signal, as a shell reports it.
            let signal = status & 0x7f
            exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
            return false
        }
    }

    /// The exit status once the process has exited.
    var terminationStatus: Int32 { lock.withLock { exitStatus ?? -1 } }

    /// Sends a signal (SIGINT is what Ctrl-C sends).
    func send(_ signal: Int32) {
        guard isRunning else { return }
        kill(pid, signal)
    }

    /// Waits until `condition` holds for (stdout, stderr), polling; fails the test on timeout.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (String, String) -> Bool
    ) async throws -> (stdout: String, stderr: String) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            let (out, err) = (stdout, stderr)
            if condition(out, err) { return (out, err) }
            if !isRunning {
                // One last look: the output may have arrived with the exit.
                try await Task.sleep(for: .milliseconds(50))
                let (out, err) = (stdout, stderr)
                if condition(out, err) { return (out, err) }
                throw HarnessFailure("the process exited (\(terminationStatus)) before \(what)\n\(out)\n\(err)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessFailure("timed out waiting for \(what)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)")
    }

    /// Waits for the exit (bounded; the process is killed past it) and returns what it printed.
    func finish(timeout: Duration = .seconds(30)) async throws -> CLIResult {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while isRunning {
            if clock.now >= deadline {
                send(SIGKILL)
                throw HarnessFailure("the process did not exit within \(timeout)\n\(stdout)\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        // The readers end at end of file, once the process closed its pipes.
        while readers.wait(timeout: .now()) == .timedOut {
            try await Task.sleep(for: .milliseconds(5))
        }
        return CLIResult(status: terminationStatus, stdout: stdout, stderr: stderr)
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// An emulator served on an ephemeral loopback port of this test process, and the environment
/// that points the CLI at it.
struct LiveEmulator: Sendable {
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
    let live = try await LiveEmulator.start(configuration)
    do {
        try await body(live)
    } catch {
        await live.stop()
        throw error
    }
    await live.stop()
}
