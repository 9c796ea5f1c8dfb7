import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The `datasync-emulator` executable, run as a child process with its standard output on a pipe
/// the test controls.
///
/// Spawned with `posix_spawn` and every descriptor from 3 up closed in the child, rather than with
/// Foundation's `Process`: the child must not inherit other tests' sockets (a server would then
/// not see their clients leave), and `Process.run()` on Linux can crash reading `/proc/self/fd`
/// while many descriptors are open (swift-corelibs-foundation#5472).
final class EmulatorProcess: @unchecked Sendable {
    private(set) var pid: pid_t = 0
    /// The test's end of the child's standard output (-1 once closed).
    private(set) var outputFD: Int32 = -1
    private(set) var port: UInt16 = 0
    /// What the banner printed, up to and including `Press Ctrl-C to stop.`.
    private(set) var banner = ""
    private var exitStatus: Int32?
    private let lock = NSLock()

    /// The executable: `DATASYNC_EMULATOR_BINARY` when set, otherwise the one built next to the
    /// test bundle (`swift build` builds it with the tests).
    static func executable() throws -> URL {
        if let given = ProcessInfo.processInfo.environment["DATASYNC_EMULATOR_BINARY"], !given.isEmpty {
            return URL(fileURLWithPath: given)
        }
        var candidates: [URL] = []
        for start in [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap({ $0 }) {
            var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent("datasync-emulator"))
                directory = directory.deletingLastPathComponent()
            }
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        throw TestFailure(
            "datasync-emulator is not built next to the tests (looked in \(candidates.map(\.path))); "
                + "run `swift build --product datasync-emulator` or set DATASYNC_EMULATOR_BINARY")
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+), looked up at run time because
    /// Swift's Glibc module does not export it.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    /// Starts the emulator with `arguments` and reads its banner (the port comes from `origin:`).
    init(arguments: [String] = []) throws {
        let path = try Self.executable().path
        guard let closeFrom = Self.closeFrom else {
            throw TestFailure("posix_spawn_file_actions_addclosefrom_np is not available (glibc 2.34 or later)")
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe() failed: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        _ = closeFrom(&actions, 3)
        let argv = ([path, "--port", "0"] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, path, &actions, nil, argv, environment())
        closeDescriptor(ends[1])
        guard spawned == 0 else {
            closeDescriptor(ends[0])
            throw TestFailure("posix_spawn(\(path)) failed: \(spawned)")
        }
        pid = child
        outputFD = ends[0]
        do {
            banner = try readBanner()
        } catch {
            kill(child, SIGKILL)
            _ = waitForExit(timeout: 10)
            throw error
        }
        guard let line = banner.split(separator: "\n").first(where: { $0.hasPrefix("origin: ") }),
            let portText = line.split(separator: ":").last, let port = UInt16(portText)
        else { throw TestFailure("no origin line in the banner:\n\(banner)") }
        self.port = port
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = waitForExit(timeout: 10)
        }
        closeOutput()
    }

    private func readBanner() throws -> String {
        var text = [UInt8]()
        let deadline = Date().addingTimeInterval(60)
        while !String(decoding: text, as: UTF8.self).contains("Press Ctrl-C to stop.\n") {
            guard Date() < deadline else {
                throw TestFailure("no banner in 60 s: \(String(decoding: text, as: UTF8.self))")
            }
            var descriptor = pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 1000) > 0 else { continue }
            // One byte at a time: nothing after the banner is taken from the pipe.
            var byte: UInt8 = 0
            guard read(outputFD, &byte, 1) == 1 else {
                throw TestFailure(
                    "the emulator's output ended before its banner: \(String(decoding: text, as: UTF8.self))")
            }
            text.append(byte)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Closes the test's end of the output pipe: the emulator's next write finds no reader.
    func closeOutput() {
        lock.lock()
        defer { lock.unlock() }
        guard outputFD >= 0 else { return }
        closeDescriptor(outputFD)
        outputFD = -1
    }

    /// Reads and discards the output from now on, on a thread of its own that owns the
    /// descriptor and closes it once the output ends (the child exited).
    func drainOutput() {
        lock.lock()
        let fd = outputFD
        outputFD = -1
        lock.unlock()
        guard fd >= 0 else { return }
        let thread = Thread {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while read(fd, &chunk, chunk.count) > 0 {}
            closeDescriptor(fd)
        }
        thread.start()
    }

    /// Whether the child has not exited yet (reaps it when it has).
    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = status
            return false
        }
        return true
    }

    /// Waits up to `timeout` seconds for the child to exit; returns its wait status.
    private func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            if Date() > deadline { return nil }
            usleep(5_000)
        }
        lock.lock()
        defer { lock.unlock() }
        return exitStatus
    }

    /// How the child ended.
    enum Ending: Equatable {
        case exited(Int32)
        case killed(Int32)
    }

    /// Stops the child: `number` (SIGTERM), then SIGKILL if it has not exited within `grace` seconds.
    @discardableResult
    func stop(signal number: Int32 = SIGTERM, grace: TimeInterval = 10) -> Ending {
        if isRunning { kill(pid, number) }
        var status = waitForExit(timeout: grace)
        if status == nil {
            kill(pid, SIGKILL)
            status = waitForExit(timeout: 30)
        }
        let raw = status ?? 0
        return raw & 0x7F == 0 ? .exited((raw >> 8) & 0xFF) : .killed(raw & 0x7F)
    }

    /// Starts the emulator from a thread of its own (reading the banner blocks), so the tests'
    /// cooperative threads stay free for in-process servers.
    static func start(arguments: [String] = []) async throws -> EmulatorProcess {
        try await onThread { try EmulatorProcess(arguments: arguments) }
    }

    /// ``stop(signal:grace:)`` from a thread of its own.
    @discardableResult
    func stopped(signal number: Int32 = SIGTERM, grace: TimeInterval = 10) async throws -> Ending {
        try await onThread { self.stop(signal: number, grace: grace) }
    }
}

func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(fd)
    #else
        _ = Darwin.close(fd)
    #endif
}

/// The process's environment, for `posix_spawn`.
private func environment() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    #if canImport(Glibc)
        return environ
    #else
        return _NSGetEnviron().pointee
    #endif
}

/// A fresh directory under the temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hardening-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A fresh temporary directory and the path of a `state.json` in it (not created), for a suite
/// whose tests all use one state file.
func temporaryStateFile() throws -> (directory: URL, path: String) {
    let directory = try temporaryDirectory()
    return (directory, directory.appendingPathComponent("state.json").path)
}

/// Runs `body` with the path of a `state.json` in a fresh temporary directory, and removes the
/// directory afterwards, also when `body` throws.
func withStateFile<Result>(_ body: (String) async throws -> Result) async throws -> Result {
    let (directory, path) = try temporaryStateFile()
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(path)
}

/// A DataSync path on keyset `demo`.
func dataSyncPath(_ rest: String, subscribeKey: String = "demo") -> String {
    "/v1/datasync/subkeys/\(subscribeKey)/\(rest)"
}

let userMediaType = "application/vnd.pubnub.objects.user+json;version=1"
let channelMediaType = "application/vnd.pubnub.objects.channel+json;version=1"
let membershipMediaType = "application/vnd.pubnub.objects.membership+json;version=1"

/// `{"data": data}` as bytes (JSONCore keeps every string's Unicode scalars as they are).
func dataBody(_ data: JSONValue) throws -> [UInt8] {
    try JSONValue.object(["data": data]).jsonBytes()
}

/// The scalars of a string, to compare ids exactly (Swift's `==` uses canonical equivalence).
func scalars(_ text: String?) -> [UInt32] {
    (text ?? "").unicodeScalars.map(\.value)
}

/// Percent-encodes every byte outside the unreserved set.
func percentEncoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            out += String(format: "%%%02X", byte)
        }
    }
    return out
}
