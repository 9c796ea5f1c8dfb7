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
        guard let binary = EmulatorChild.binary() else {
            try Smoke.notice("idle: no datasync-emulator next to this binary (swift build builds it); no rows")
            return []
        }
        let seconds =
            ProcessInfo.processInfo.environment["IDLE_BENCH_SECONDS"].flatMap(Double.init) ?? Bench.scale(60, smoke: 1)
        let window = Duration.milliseconds(Int64(seconds * 1000))
        let (child, port) = try await EmulatorChild.start(binary)
        defer { child.send(SIGKILL) }

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
                baseline: floor.cpuSeconds * 1000 * perMinute, higherIsBetter: false,
                // An idle window of a second (smoke mode) may see no CPU tick at all.
                expectation: .nonNegative),
        ]
    }

    private static func usage(over window: Duration) async throws -> CurlRoundTripBench.Usage {
        let start = CurlRoundTripBench.usage()
        try await Task.sleep(for: window)
        return CurlRoundTripBench.usage() - start
    }
}
