import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Messaging
import PubNubCore
import Realtime
import Transport

/// Recovery after an outage (issue 36 §1, issue 30 §3): a subscriber reaches the emulator through a
/// `FaultProxy`, a publisher reaches it directly. For each fault of a schedule like the issue's, a
/// message is published while the subscriber is cut off; the row is the time from the end of the
/// fault to its delivery (median of three runs), against the goal of 2 s.
///
/// The subscriber runs the defaults but for heartbeats every 2 s with a 2 s request timeout, so a
/// blackhole or a stall is noticed by a failed heartbeat (dead long-poll detection); real time.
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
    }

    private struct Fault {
        var name: String
        var steps: [(FaultProxy.Fault, Duration)]
    }

    private static let faults = [
        Fault(name: "reset, then refused connects, 6 s", steps: [(.reset, .seconds(1)), (.refuse, .seconds(5))]),
        Fault(name: "blackhole, 7 s", steps: [(.blackhole, .seconds(7))]),
        Fault(name: "stalled answers, 6 s", steps: [(.stall, .seconds(6))]),
    ]

    static let goal: Double = 2_000

    static func run() async throws -> [BenchRow] {
        let emulator = try Emulator(configuration: EmulatorConfiguration())
        let url = try await emulator.start()
        let port = url.port ?? 0
        let proxy = try FaultProxy(upstreamPort: port)
        var configuration = PubNubConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: "bench-recovering", origin: "127.0.0.1:\(proxy.port)",
            useSecureConnections: false, transport: try CurlHTTPClient(), requestTimeout: .seconds(2))
        configuration.heartbeatInterval = .seconds(2)
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
        var next = 0
        func publish() async throws -> Int {
            next += 1
            _ = try await publisher.publish(
                channel: "bench-recovery", message: JSONValue.object(["n": .int(Int64(next))]))
            return next
        }
        func delivered(_ number: Int, within limit: Duration) async throws -> ContinuousClock.Instant {
            let deadline = ContinuousClock.now.advanced(by: limit)
            while ContinuousClock.now < deadline {
                if let time = arrivals.time(of: number) { return time }
                try await Task.sleep(for: .milliseconds(5))
            }
            throw BenchFailure(message: "recovery: message \(number) was not delivered within \(limit)")
        }
        defer {
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
        var rows: [BenchRow] = []
        for fault in faults {
            var samples: [Double] = []
            var seen: [String] = []
            for _ in 0..<3 {
                _ = try await delivered(try await publish(), within: .seconds(60))
                _ = arrivals.takeStatuses()
                var cutOff: Int?
                for (index, step) in fault.steps.enumerated() {
                    proxy.set(step.0)
                    if index == fault.steps.count - 1 {
                        try await Task.sleep(for: step.1 / 2)
                        cutOff = try await publish()
                        try await Task.sleep(for: step.1 / 2)
                    } else {
                        try await Task.sleep(for: step.1)
                    }
                }
                proxy.set(.none)
                let healed = ContinuousClock.now
                guard let cutOff else { continue }
                let arrival = try await delivered(cutOff, within: .seconds(120))
                samples.append(arrival < healed ? 0 : RealtimeBenchmarks.milliseconds(healed.duration(to: arrival)))
                seen.append(arrivals.takeStatuses().joined(separator: " "))
            }
            let median = samples.sorted()[samples.count / 2]
            print(
                "  recovery after \(fault.name): "
                    + samples.map { String(format: "%.0f ms", $0) }.joined(separator: ", ") + "; statuses per run: "
                    + seen.map { "[\($0)]" }.joined(separator: ", "))
            rows.append(
                BenchRow(
                    scenario:
                        "recovery: end of fault → message published during it delivered, \(fault.name) (median of 3)",
                    unit: "ms", ours: median, baselineName: "goal (issue 36)", baseline: goal, higherIsBetter: false))
        }
        return rows
    }
}
