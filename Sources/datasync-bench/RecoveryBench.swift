import DataSync
import DataSyncEmulator
import DataSyncLive
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import Messaging
import PubNubCore
import Realtime
import Transport

/// Recovery after an outage (issue 36 §1, issue 30 §3): a subscriber reaches the emulator through a
/// `FaultProxy`, a publisher reaches it directly. For each fault of a schedule like the issue's, a
/// message is published and a user the subscriber watches in a live view is written while the
/// subscriber is cut off. Two rows per fault, each the median of three runs against the issue's
/// goal of 2 s: the time from the end of the fault to the message's delivery, and to the first
/// current snapshot of the view that shows the write.
///
/// The subscriber runs the defaults but for heartbeats every 2 s with a 2 s request timeout, so a
/// blackhole or a stall is noticed by a failed heartbeat (dead long-poll detection); real time.
/// With ``defaultsVariable`` set it runs every default instead (heartbeats as the presence
/// timeout derives them, 10 s request timeout).
enum RecoveryBench {
    private final class Arrivals: @unchecked Sendable {
        // @unchecked Sendable: `times` is only touched while holding `lock`.
        private let lock = NSLock()
        private var times: [Int: ContinuousClock.Instant] = [:]
        private var statuses: [String] = []

        func record(_ status: PubNubStatus) {
            guard status.operation == .subscribe else { return }
            lock.withLock { statuses.append("\(status.category)") }
        }

        /// The subscribe statuses since the last call.
        func takeStatuses() -> [String] {
            lock.withLock {
                defer { statuses = [] }
                return statuses
            }
        }

        func record(_ number: Int) {
            lock.withLock { if times[number] == nil { times[number] = ContinuousClock.now } }
        }

        func time(of number: Int) -> ContinuousClock.Instant? { lock.withLock { times[number] } }

        private var snapshots: [String: ContinuousClock.Instant] = [:]

        /// A current snapshot of the watched user, keyed by the status it shows.
        func recordSnapshot(status: String) {
            lock.withLock { if snapshots[status] == nil { snapshots[status] = ContinuousClock.now } }
        }

        func snapshotTime(of status: String) -> ContinuousClock.Instant? { lock.withLock { snapshots[status] } }
    }

    private struct Fault {
        var name: String
        var steps: [(FaultProxy.Fault, Duration)]
    }

    private static let faults = Bench.scale(
        [
            Fault(name: "truncated answers, 3 s", steps: [(.truncate, .seconds(3))]),
            Fault(name: "reset, then refused connects, 6 s", steps: [(.reset, .seconds(1)), (.refuse, .seconds(5))]),
            Fault(name: "blackhole, 7 s", steps: [(.blackhole, .seconds(7))]),
            Fault(name: "stalled answers, 6 s", steps: [(.stall, .seconds(6))]),
        ],
        // Smoke mode: every fault, shorter. A blackhole or a stall still lasts longer than the
        // 2 s heartbeat interval, so a heartbeat goes out into it as in a full run.
        smoke: [
            Fault(name: "truncated answers, 1 s", steps: [(.truncate, .seconds(1))]),
            Fault(
                name: "reset, then refused connects, 2 s",
                steps: [(.reset, .milliseconds(500)), (.refuse, .seconds(1.5))]),
            Fault(name: "blackhole, 3 s", steps: [(.blackhole, .seconds(3))]),
            Fault(name: "stalled answers, 3 s", steps: [(.stall, .seconds(3))]),
        ])

    /// Runs per fault; each row is their median.
    private static let runs = Bench.scale(3, smoke: 1)

    static let goal: Double = 2_000

    /// Set (to anything) to run the subscriber with every default instead of the short heartbeat.
    static let defaultsVariable = "DATASYNC_BENCH_RECOVERY_DEFAULTS"

    /// When `recorded` first answers, polled every 5 ms on the real clock (what this group
    /// measures); a failure saying `failure` and the limit once `limit` has passed.
    private static func arrival(
        within limit: Duration, _ failure: String, _ recorded: () -> ContinuousClock.Instant?
    ) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while ContinuousClock.now < deadline {
            if let time = recorded() { return time }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw BenchFailure(message: "recovery: \(failure) within \(limit)")
    }

    static func run() async throws -> [BenchRow] {
        let emulator = try Emulator(configuration: EmulatorConfiguration())
        let url = try await emulator.start()
        let port = url.port ?? 0
        let proxy = try FaultProxy(upstreamPort: port)
        var configuration = PubNubConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: "bench-recovering", origin: "127.0.0.1:\(proxy.port)",
            useSecureConnections: false, transport: try CurlHTTPClient())
        let tuned = ProcessInfo.processInfo.environment[defaultsVariable] == nil
        if tuned {
            configuration.requestTimeout = .seconds(2)
            configuration.heartbeatInterval = .seconds(2)
        }
        let settings = tuned ? "heartbeat 2 s, request timeout 2 s" : "default settings"
        let subscriber = PubNub(configuration: configuration)
        let publisher = PubNub(
            configuration: PubNubConfiguration(
                publishKey: "demo", subscribeKey: "demo", userId: "bench-publisher", origin: "127.0.0.1:\(port)",
                useSecureConnections: false, transport: try CurlHTTPClient(), retryPolicy: .none))
        let arrivals = Arrivals()
        subscriber.onMessage = { message in
            if let number = message.payload["n"]?.intValue { arrivals.record(number) }
        }
        subscriber.onStatus = { arrivals.record($0) }
        subscriber.subscribe(to: ["bench-recovery"])
        let watched = "bench-recovery-user"
        _ = try await publisher.dataSync.createUser(classVersion: 1, id: watched, status: "w0")
        let observation = try subscriber.liveViews.user(watched).observe { snapshot in
            if snapshot.isCurrent, let status = snapshot.value?.status { arrivals.recordSnapshot(status: status) }
        }
        var writes = 0
        /// Writes the watched user's status; the view is current with the write once it shows it.
        func write() async throws -> String {
            writes += 1
            let status = "w\(writes)"
            _ = try await publisher.dataSync.setUser(id: watched, classVersion: 1, status: status)
            return status
        }
        func shown(_ status: String, within limit: Duration) async throws -> ContinuousClock.Instant {
            try await arrival(within: limit, "the live view did not show \(status)") {
                arrivals.snapshotTime(of: status)
            }
        }
        var next = 0
        func publish() async throws -> Int {
            next += 1
            _ = try await publisher.publish(
                channel: "bench-recovery", message: JSONValue.object(["n": .int(Int64(next))]))
            return next
        }
        func delivered(_ number: Int, within limit: Duration) async throws -> ContinuousClock.Instant {
            try await arrival(within: limit, "message \(number) was not delivered") { arrivals.time(of: number) }
        }
        defer {
            observation.cancel()
            subscriber.unsubscribeAll()
            proxy.stop()
            Task { await emulator.stop() }
        }
        // Live first: connected (a message published before the handshake is not for this client),
        // then a message delivered.
        let start = ContinuousClock.now
        var connected = false
        while !connected, start.duration(to: .now) < .seconds(30) {
            connected = arrivals.takeStatuses().contains("connected")
            if !connected { try await Task.sleep(for: .milliseconds(5)) }
        }
        guard connected else { throw BenchFailure(message: "recovery: the subscriber did not connect") }
        _ = try await delivered(try await publish(), within: .seconds(30))
        _ = try await shown("w0", within: .seconds(30))
        var rows: [BenchRow] = []
        for fault in faults {
            var samples: [Double] = []
            var viewSamples: [Double] = []
            var seen: [String] = []
            for _ in 0..<runs {
                _ = try await delivered(try await publish(), within: .seconds(60))
                _ = try await shown(try await write(), within: .seconds(60))
                _ = arrivals.takeStatuses()
                var cutOff: Int?
                var written: String?
                for (index, step) in fault.steps.enumerated() {
                    proxy.set(step.0)
                    if index == fault.steps.count - 1 {
                        try await Task.sleep(for: step.1 / 2)
                        cutOff = try await publish()
                        written = try await write()
                        try await Task.sleep(for: step.1 / 2)
                    } else {
                        try await Task.sleep(for: step.1)
                    }
                }
                proxy.set(.none)
                let healed = ContinuousClock.now
                guard let cutOff, let written else { continue }
                let arrival = try await delivered(cutOff, within: .seconds(120))
                samples.append(arrival < healed ? 0 : RealtimeBenchmarks.milliseconds(healed.duration(to: arrival)))
                let current = try await shown(written, within: .seconds(120))
                viewSamples.append(
                    current < healed ? 0 : RealtimeBenchmarks.milliseconds(healed.duration(to: current)))
                seen.append(arrivals.takeStatuses().joined(separator: " "))
            }
            let median = samples.sorted()[samples.count / 2]
            let viewMedian = viewSamples.sorted()[viewSamples.count / 2]
            print(
                "  recovery after \(fault.name): message "
                    + samples.map { String(format: "%.0f ms", $0) }.joined(separator: ", ") + "; view "
                    + viewSamples.map { String(format: "%.0f ms", $0) }.joined(separator: ", ") + "; statuses per run: "
                    + seen.map { "[\($0)]" }.joined(separator: ", "))
            rows.append(
                BenchRow(
                    scenario:
                        "recovery: end of fault → message published during it delivered, \(fault.name), \(settings) "
                        + "(median of \(runs))",
                    unit: "ms", ours: median, baselineName: "goal (issue 36)", baseline: goal, higherIsBetter: false,
                    // 0 when the message arrived before the fault ended.
                    expectation: .nonNegative))
            rows.append(
                BenchRow(
                    scenario:
                        "recovery: end of fault → live view current with the write made during it, \(fault.name), "
                        + "\(settings) (median of \(runs))",
                    unit: "ms", ours: viewMedian, baselineName: "goal (issue 36)", baseline: goal,
                    higherIsBetter: false, expectation: .nonNegative))
        }
        return rows
    }
}
