import DataSyncTestSupport
import Foundation
import PubNubCore
import Realtime
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What an idle subscription costs (issue 34, point 5): context switches and CPU time of this
/// process while a client with default settings holds one subscription that receives nothing,
/// the emulator (a child process, so its own timers are not counted) holding the long-poll and the
/// presence heartbeat on. The baseline is the same process over the same window with no client.
///
/// The window is real time, because real wake-ups are what it counts: 60 s by default,
/// `IDLE_BENCH_SECONDS` in the environment to shorten it (the rows are scaled to a minute).
enum IdleBench {
    static func run() async throws -> [BenchRow] {
        guard let binary = emulatorBinary() else {
            print("idle: no datasync-emulator next to this binary (swift build builds it); no rows")
            return []
        }
        let seconds = ProcessInfo.processInfo.environment["IDLE_BENCH_SECONDS"].flatMap(Double.init) ?? 60
        let window = Duration.milliseconds(Int64(seconds * 1000))
        let port = try LoopbackSocket.freePort()
        let child = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "exec \"$0\" --host 127.0.0.1 --port \"$1\" > /dev/null 2>&1", binary, "\(port)"])
        defer { child.send(SIGKILL) }
        try await waitForListener(port: port, child: child)

        let floor = try await usage(over: window)

        let configuration = PubNubConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: "idle-bench", origin: "127.0.0.1:\(port)",
            useSecureConnections: false, transport: try CurlHTTPClient())
        let pubnub = PubNub(configuration: configuration)
        let (statuses, continuation) = AsyncStream.makeStream(of: PubNubStatus.self)
        pubnub.onStatus = { continuation.yield($0) }
        let subscription = pubnub.channel("idle-bench").subscription()
        subscription.onMessage = { _ in }
        subscription.subscribe()
        for await status in statuses where status.category == .connected { break }
        // Let the first heartbeat and the first long-poll go out before the window opens.
        try await Task.sleep(for: .milliseconds(500))
        let idle = try await usage(over: window)
        subscription.unsubscribe()
        child.send(SIGINT)
        _ = try? await child.finish(timeout: .seconds(10))

        let perMinute = 60 / seconds
        let heartbeat = configuration.effectiveHeartbeatInterval
        let heartbeatsPerMinute = heartbeat > .zero ? 60 / Double(heartbeat.components.seconds) : 0
        print(
            "idle: the configuration asks for \(String(format: "%.2f", heartbeatsPerMinute)) heartbeats a minute "
                + "(every \(heartbeat)) and the emulator renews the long-poll every 280 s "
                + "(\(String(format: "%.2f", 60.0 / 280)) a minute); window \(seconds) s")
        return [
            BenchRow(
                scenario: "idle: context switches per minute, one idle subscription (emulator in a child process)",
                unit: "switches/min", ours: Double(idle.switches) * perMinute,
                baselineName: "the same process with no client", baseline: Double(floor.switches) * perMinute,
                higherIsBetter: false),
            BenchRow(
                scenario: "idle: CPU time per minute, one idle subscription", unit: "ms/min",
                ours: idle.cpuSeconds * 1000 * perMinute, baselineName: "the same process with no client",
                baseline: floor.cpuSeconds * 1000 * perMinute, higherIsBetter: false),
        ]
    }

    private static func usage(over window: Duration) async throws -> CurlRoundTripBench.Usage {
        let start = CurlRoundTripBench.usage()
        try await Task.sleep(for: window)
        return CurlRoundTripBench.usage() - start
    }

    private static func emulatorBinary() -> String? {
        let own = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidate = own.deletingLastPathComponent().appendingPathComponent("datasync-emulator").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }

    private static func waitForListener(port: UInt16, child: ChildProcess) async throws {
        var attempts = 0
        while true {
            if let fd = try? LoopbackSocket.connect(port: port) {
                close(fd)
                return
            }
            attempts += 1
            guard attempts < 500, child.isRunning else {
                throw BenchFailure(message: "the emulator child did not start listening on port \(port)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
