import Foundation
import PubNubBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process of the package's own tests (a peer SDK, a browser, the compiler, one of the
/// package's executables): its output collected as it arrives, signals, and its exit.
///
/// Spawned with `posix_spawn` rather than Foundation's `Process`: on Linux, `Process.run()` of
/// the Swift 6.3 toolchain can crash reading `/proc/self/fd` while the test process holds many
/// descriptors (swift-corelibs-foundation#5472), and the suite holds many. Every pipe is
/// close-on-exec, so a child inherits only its own three standard descriptors and end of file
/// arrives when it exits. Package access only: a test helper, not part of the public API.
package final class ChildProcess: Sendable {
    private struct Collected {
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var exitStatus: Int32?
    }

    private let pid: pid_t
    private let collected = Locked(Collected())
    private let readers = DispatchGroup()

    /// Writing to a child that already exited must fail with EPIPE, not kill the tests.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    #if canImport(Glibc)
        /// `posix_spawn_file_actions_addclosefrom_np` where the C library has it (glibc 2.34 and
        /// later), looked up at run time so older systems still build and run.
        private typealias AddCloseFrom =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32)
            -> Int32
        private static let addCloseFrom: AddCloseFrom? = {
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(symbol, to: AddCloseFrom.self)
        }()
    #endif

    /// Held from making a child's pipes to spawning it, so no other child of these tests
    /// inherits a pipe in the moment before it is marked close-on-exec.
    private static let spawnLock = NSLock()

    /// Starts `executable` (a path, or a name looked up in `PATH`) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; `nil` passes this process's own.
    ///   - stdin: bytes written to the child's standard input, which is then closed.
    ///   - workingDirectory: where the child starts; `nil` for this process's directory.
    ///   - mergingStandardError: `true` sends the child's standard error into its standard output.
    /// - Throws: ``ChildProcessFailure`` when the executable is not found or cannot start.
    package init(
        executable: String, arguments: [String], environment: [String: String]? = nil, stdin: [UInt8]? = nil,
        workingDirectory: String? = nil, mergingStandardError: Bool = false
    ) throws {
        Self.ignoreBrokenPipes
        var path = try Self.resolve(executable)
        var arguments = arguments
        if let workingDirectory {
            // posix_spawn has no portable chdir action: a shell changes directory, then execs.
            arguments = ["-c", "cd \"$0\" && exec \"$@\"", workingDirectory, path] + arguments
            path = "/bin/sh"
        }
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
        posix_spawn_file_actions_adddup2(&actions, mergingStandardError ? out.write : err.write, 2)
        #if canImport(Glibc)
            // The child gets standard input, output and error only: a socket it inherited would
            // stay open after this process closed it (a reset connection would not reset).
            if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
        #endif
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        #if canImport(Darwin)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #endif
        let variables = environment ?? ProcessInfo.processInfo.environment
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child = pid_t()
        let spawned = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        Self.spawnLock.unlock()
        locked = false
        close(input.read)
        close(out.write)
        close(err.write)
        guard spawned == 0 else {
            close(input.write)
            close(out.read)
            close(err.read)
            throw ChildProcessFailure("cannot start \(path): error \(spawned)")
        }
        pid = child
        read(out.read, errors: false)
        read(err.read, errors: true)
        if let stdin {
            var bytes = stdin[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { write(input.write, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                if written <= 0 { break }
                bytes = bytes.dropFirst(written)
            }
        }
        close(input.write)
    }

    /// A path as given when it holds a `/`, else the first executable of that name in `PATH`.
    private static func resolve(_ executable: String) throws -> String {
        if executable.contains("/") { return executable }
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for directory in directories {
            let candidate = "\(directory)/\(executable)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw ChildProcessFailure("\(executable) is not in PATH")
    }

    /// A pipe whose two ends are closed on exec.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        #if canImport(Glibc)
            let made = Glibc.pipe(&descriptors)
        #else
            let made = Darwin.pipe(&descriptors)
        #endif
        guard made == 0 else { throw ChildProcessFailure("pipe failed: \(errno)") }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    private func read(_ descriptor: Int32, errors isErrorStream: Bool) {
        readers.enter()
        // A thread of its own per pipe: blocking reads must not hold the shared dispatch pool,
        // which many concurrent tests (and long-running children) would exhaust.
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
                collected.withLock { collected in
                    if isErrorStream {
                        collected.errors.append(contentsOf: buffer[0..<count])
                    } else {
                        collected.output.append(contentsOf: buffer[0..<count])
                    }
                }
            }
            close(descriptor)
            readers.leave()
        }
        thread.start()
    }

    /// What the child wrote to standard output so far.
    package var standardOutput: String { collected.withLock { String(decoding: $0.output, as: UTF8.self) } }
    /// What the child wrote to standard error so far (empty when merged into standard output).
    package var standardError: String { collected.withLock { String(decoding: $0.errors, as: UTF8.self) } }
    /// The child's process id.
    package var processIdentifier: Int32 { pid }

    /// Whether the child still runs; reaps it (once) when it has exited.
    package var isRunning: Bool {
        collected.withLock { collected in
            if collected.exitStatus != nil { return false }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            guard reaped == pid else { return reaped == 0 }
            collected.exitStatus = Self.shellStatus(status)
            return false
        }
    }

    /// The exit code, or 128 + the signal for a child killed by one (as a shell reports it);
    /// -1 while it runs.
    package var terminationStatus: Int32 { collected.withLock { $0.exitStatus ?? -1 } }

    private static func shellStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Sends `signal` (SIGINT is what Ctrl-C sends) if the child still runs.
    package func send(_ signal: Int32) {
        guard isRunning else { return }
        kill(pid, signal)
    }

    /// Waits until `condition` holds for (standard output, standard error), polling every 20 ms
    /// of real time (a child runs in real time).
    ///
    /// - Throws: ``ChildProcessFailure`` when the child exits first or `timeout` passes (60 s by
    ///   default: a debug binary starting on a loaded 2-core machine can take many seconds).
    @discardableResult
    package func waitFor(
        _ what: String, timeout: Duration = .seconds(60), _ condition: (String, String) -> Bool
    ) async throws -> (stdout: String, stderr: String) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            let (out, err) = (standardOutput, standardError)
            if condition(out, err) { return (out, err) }
            if !isRunning {
                // One last look: the output may have arrived with the exit.
                try await Task.sleep(for: .milliseconds(50))
                let (out, err) = (standardOutput, standardError)
                if condition(out, err) { return (out, err) }
                throw ChildProcessFailure("the process exited (\(terminationStatus)) before \(what)\n\(out)\n\(err)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        // A last look: on a loaded machine this task may first run again after the deadline, when
        // the output has long been there.
        let (out, err) = (standardOutput, standardError)
        if condition(out, err) { return (out, err) }
        throw ChildProcessFailure("timed out waiting for \(what)\n--- stdout\n\(out)\n--- stderr\n\(err)")
    }

    /// Waits for the exit (killing the child past `timeout`) and returns what it printed.
    ///
    /// - Throws: ``ChildProcessFailure`` when the child had to be killed.
    package func finish(timeout: Duration = .seconds(120)) async throws -> ChildProcessResult {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while isRunning {
            if clock.now >= deadline {
                send(SIGKILL)
                throw ChildProcessFailure(
                    "the process did not exit within \(timeout)\n\(standardOutput)\n\(standardError)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        // The readers end at end of file, once the child closed its pipes.
        while readers.wait(timeout: .now()) == .timedOut {
            try await Task.sleep(for: .milliseconds(5))
        }
        return result
    }

    /// Blocks the calling thread until the child exits and its output is read, for synchronous
    /// callers (the child must end on its own).
    package func finishBlocking() -> ChildProcessResult {
        // Read everything first (the readers end at end of file), then reap. Never wait while
        // holding the lock: the readers need it to store output, and a child blocked on a full pipe
        // would never exit.
        readers.wait()
        if collected.withLock({ $0.exitStatus == nil }) {
            var status: Int32 = 0
            var reaped = waitpid(pid, &status, 0)
            while reaped < 0, errno == EINTR { reaped = waitpid(pid, &status, 0) }
            collected.withLock { collected in
                // `isRunning` on another thread may have reaped it first.
                if collected.exitStatus == nil, reaped == pid { collected.exitStatus = Self.shellStatus(status) }
            }
        }
        return result
    }

    private var result: ChildProcessResult {
        collected.withLock { collected in
            ChildProcessResult(
                status: collected.exitStatus ?? -1, standardOutput: String(decoding: collected.output, as: UTF8.self),
                standardError: String(decoding: collected.errors, as: UTF8.self))
        }
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }
}

/// A finished ``ChildProcess``.
package struct ChildProcessResult: Sendable, CustomStringConvertible {
    /// The exit code, or 128 + the signal that killed the child.
    package var status: Int32
    /// Everything written to standard output (and standard error, when merged).
    package var standardOutput: String
    /// Everything written to standard error.
    package var standardError: String

    /// The status and both streams.
    package var description: String {
        "exit \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
    }
}

/// A child process that could not start, exited early or did not end in time.
package struct ChildProcessFailure: Error, CustomStringConvertible {
    /// What went wrong, with what the child printed.
    package var description: String
    init(_ description: String) { self.description = description }
}
