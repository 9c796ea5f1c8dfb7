import DataSyncTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `datasync-emulator` in a child process, for the rows whose emulator must not share this
/// process (the idle wake-up count, the transport rows' "child process" placement).
enum EmulatorChild {
    /// The emulator binary built alongside this executable, if there is one.
    static func binary() -> String? {
        let own = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidate = own.deletingLastPathComponent().appendingPathComponent("datasync-emulator").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    /// Starts `binary` on a free loopback port and returns once it accepts connections; send the
    /// child `SIGKILL` when done. Its request log goes to /dev/null, so no thread of this process
    /// wakes to read it.
    static func start(_ binary: String) async throws -> (child: ChildProcess, port: UInt16) {
        let port = try LoopbackSocket.freePort()
        let child = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "exec \"$0\" --host 127.0.0.1 --port \"$1\" > /dev/null 2>&1", binary, "\(port)"])
        Smoke.children.add(child)
        do {
            var attempts = 0
            while true {
                if let fd = try? LoopbackSocket.connect(port: port) {
                    close(fd)
                    return (child, port)
                }
                attempts += 1
                guard attempts < 500, child.isRunning else {
                    throw BenchFailure(message: "the emulator child did not start listening on port \(port)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        } catch {
            child.send(SIGKILL)
            throw error
        }
    }
}
