import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Messaging
import PubNubCore
import Realtime
import Transport

/// Realtime rows: subscribe-answer decoding (ours against the Python SDK's decoder on the same
/// bytes) and publish→onMessage latency on loopback through the emulator.
enum RealtimeBenchmarks {
    static func run() async throws -> [BenchRow] {
        var rows = try decodeRows()
        // The first 10 rounds warm up and are not counted.
        let latency = try await latencies(rounds: Bench.scale(300, smoke: 15))
        rows.append(
            BenchRow(
                scenario: "realtime: publish→onMessage p50, loopback via emulator (curl)", unit: "ms",
                ours: latency.p50, baselineName: "publish acknowledgment alone, p50", baseline: latency.ackP50,
                higherIsBetter: false))
        rows.append(
            BenchRow(
                scenario: "realtime: publish→onMessage p99, loopback via emulator (curl)", unit: "ms",
                ours: latency.p99, baselineName: "publish acknowledgment alone, p99", baseline: latency.ackP99,
                higherIsBetter: false))
        let subscriptions = Bench.scale(1_000, smoke: 20)
        if let perSubscription = await memoryPerSubscription(count: subscriptions) {
            let count = subscriptions.formatted()
            rows.append(
                BenchRow(
                    scenario: "realtime: memory of a client holding \(count) subscriptions (RSS delta / \(count))",
                    unit: "bytes", ours: perSubscription, higherIsBetter: false))
        }
        return rows
    }

    /// The subscribe-answer decode rows alone (the `realtime-decode` group): ours against the
    /// Python SDK's decode path, and JSONCore's parse of the same bytes against CPython's
    /// `json.loads`, both through the same interpreter in the same run.
    static func decodeRows() throws -> [BenchRow] {
        var rows: [BenchRow] = []
        let body = answer(messages: 100)
        if let which = ProcessInfo.processInfo.environment["REALTIME_BENCH_PROFILE"] {
            try profile(body, which: which)
            return []
        }
        guard case .decoded(let check) = SubscribeResponseDecoder.decode(body), check.envelopes.count == 100 else {
            throw BenchFailure(message: "the benchmark answer did not decode into 100 envelopes")
        }
        var decoded = 0
        let ours = Bench.throughput(operations: 100) {
            if case .decoded(let response) = SubscribeResponseDecoder.decode(body) {
                decoded &+= response.envelopes.count
            }
        }
        guard decoded > 0 else { throw BenchFailure(message: "nothing decoded") }
        let python = try Smoke.expectPython(pythonDecoder(body, mode: .sdk), "the subscribe-answer decode")
        rows.append(
            BenchRow(
                scenario: "realtime: decode a 100-message subscribe answer (\(body.count / 1024) KiB)",
                unit: "envelopes/s", ours: ours,
                baselineName: python == nil ? nil : "pubnub 10.8.0 json.loads + SubscribeEnvelope.from_json",
                baseline: python))
        let tree = Bench.throughput(operations: 100) {
            if case .decoded(let response) = SubscribeResponseDecoder.decodeThroughTree(body) {
                decoded &+= response.envelopes.count
            }
        }
        rows.append(
            BenchRow(
                scenario: "realtime: decode a 100-message subscribe answer, read from the bytes", unit: "envelopes/s",
                ours: ours, baselineName: "the same through a JSONValue tree (before)", baseline: tree))
        let parseOnly = Bench.throughput(operations: 100) {
            if case .object(let object)? = try? JSONValue(parsing: body) { decoded &+= object.count }
        }
        rows.append(
            BenchRow(
                scenario: "realtime: decode a 100-message subscribe answer, envelopes included", unit: "envelopes/s",
                ours: ours, baselineName: "JSONValue(parsing:) of the same bytes alone", baseline: parseOnly))
        let loads = try Smoke.expectPython(pythonDecoder(body, mode: .jsonLoads), "json.loads")
        rows.append(
            BenchRow(
                scenario: "realtime: parse the 100-message subscribe answer into JSONValue", unit: "answers/s",
                ours: parseOnly / 100, baselineName: loads == nil ? nil : "CPython json.loads of the same bytes",
                baseline: loads.map { $0 / 100 }))
        return rows
    }

    /// Profiling: with `REALTIME_BENCH_PROFILE=decode` (or `parse`) in the environment, the
    /// decode rows perform exactly `REALTIME_BENCH_COUNT` (default 1,000) decodes of the answer
    /// (or `JSONValue(parsing:)` calls on it) and nothing else, for `valgrind --tool=callgrind`;
    /// instructions per answer are the difference between two counts divided by the difference
    /// in iterations.
    static func profile(_ body: [UInt8], which: String) throws {
        let count = ProcessInfo.processInfo.environment["REALTIME_BENCH_COUNT"].flatMap { Int($0) } ?? 1_000
        var seen = 0
        for _ in 0..<count {
            switch which {
            case "parse":
                if case .object(let object) = try JSONValue(parsing: body) { seen &+= object.count }
            default:
                if case .decoded(let response) = SubscribeResponseDecoder.decode(body) {
                    seen &+= response.envelopes.count
                }
            }
        }
        print("profiled \(count) \(which == "parse" ? "parses" : "decodes") of the answer (\(seen) items)")
    }

    /// The resident memory one subscription adds to a client whose loop is subscribed to all of
    /// them (the long-poll is held by a transport that never answers), or nil off Linux.
    static func memoryPerSubscription(count: Int) async -> Double? {
        let held = MockHeldTransport()
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: nil, subscribeKey: "sub-c-bench", userId: "bench", origin: "127.0.0.1",
                useSecureConnections: false, transport: held))
        guard let before = Bench.residentBytes() else { return nil }
        var subscriptions: [Subscription] = []
        subscriptions.reserveCapacity(count)
        for index in 0..<count {
            let subscription = pubnub.channel("bench-channel-\(index)").subscription()
            subscription.onMessage = { _ in }
            subscription.subscribe()
            subscriptions.append(subscription)
        }
        // Let the loop take in the channel set before measuring.
        for _ in 0..<100 { await Task.yield() }
        guard let after = Bench.residentBytes() else { return nil }
        withExtendedLifetime(subscriptions) {}
        pubnub.unsubscribeAll()
        return Double(max(0, after - before)) / Double(count)
    }

    /// A subscribe answer shaped as the service writes it: `t` first, envelopes with `a`, `f`, `i`,
    /// `p`, `k`, `c`, `d` (a small chat object), `u` on every other one.
    static func answer(messages: Int) -> [UInt8] {
        var items: [JSONValue] = []
        for index in 0..<messages {
            var item: [String: JSONValue] = [
                "a": "1", "f": 0, "i": .string("user-\(index % 7)"),
                "p": ["t": .string(String(17_900_000_000_000_000 + index)), "r": 1], "k": "sub-c-bench",
                "c": .string("room.\(index % 5)"),
                "d": ["text": .string("message number \(index) with some text"), "n": .int(Int64(index))],
            ]
            if index.isMultiple(of: 2) { item["u"] = ["lang": "en"] }
            items.append(.object(item))
        }
        let value: JSONValue = ["t": ["t": "17900000000000100", "r": 1], "m": .array(items)]
        return (try? value.jsonBytes()) ?? []
    }

    /// What the Python child times on the answer's bytes.
    enum PythonDecode {
        /// `json.loads` followed by the SDK's `SubscribeEnvelope.from_json`: its whole decode path.
        case sdk
        /// `json.loads` alone (CPython's C parser).
        case jsonLoads
    }

    /// Envelopes per second (100 per answer) of the Python side on the same bytes, or nil without
    /// the venv (`PUBNUB_PYTHON`, else `.build/pyvenv/bin/python`).
    static func pythonDecoder(_ body: [UInt8], mode: PythonDecode) -> Double? {
        let environment = ProcessInfo.processInfo.environment["PUBNUB_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
        let python = environment ?? FileManager.default.currentDirectoryPath + "/.build/pyvenv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { return nil }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-subscribe-\(getpid()).json")
        guard (try? Data(body).write(to: file)) != nil else { return nil }
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import json, sys, time
            data = open(sys.argv[1], 'rb').read()
            if sys.argv[2] == 'sdk':
                from pubnub.models.server.subscribe import SubscribeEnvelope
                def once():
                    envelope = SubscribeEnvelope.from_json(json.loads(data))
                    assert len(envelope.messages) == 100
            else:
                def once():
                    assert len(json.loads(data)['m']) == 100
            once()
            best = 0.0
            deadline = time.perf_counter() + 0.4
            rounds = 0
            while time.perf_counter() < deadline or rounds < 3:
                start = time.perf_counter(); once(); elapsed = time.perf_counter() - start
                if elapsed > 0: best = max(best, 100 / elapsed)
                rounds += 1
            print(best)
            """
        // posix_spawn through ChildProcess: Foundation's Process crashes intermittently here.
        guard
            let child = try? ChildProcess(
                executable: python, arguments: ["-c", script, file.path, mode == .sdk ? "sdk" : "loads"])
        else {
            return nil
        }
        let result = child.finishBlocking()
        guard result.status == 0 else { return nil }
        return Double(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    struct Latency {
        var p50: Double
        var p99: Double
        var ackP50: Double
        var ackP99: Double
    }

    /// Publishes one message at a time and times until the subscriber's `onMessage` sees it.
    static func latencies(rounds: Int) async throws -> Latency {
        let emulator = try Emulator(configuration: EmulatorConfiguration())
        let url = try await emulator.start()
        defer { Task { await emulator.stop() } }
        let origin = "127.0.0.1:\(url.port ?? 0)"
        let subscriber = PubNub(
            configuration: PubNubConfiguration(
                publishKey: "demo", subscribeKey: "demo", userId: "bench-sub", origin: origin,
                useSecureConnections: false, transport: try CurlHTTPClient()))
        let publisher = PubNub(
            configuration: PubNubConfiguration(
                publishKey: "demo", subscribeKey: "demo", userId: "bench-pub", origin: origin,
                useSecureConnections: false, transport: try CurlHTTPClient(), retryPolicy: .none))
        let (arrivals, continuation) = AsyncStream.makeStream(of: ContinuousClock.Instant.self)
        let (statuses, statusContinuation) = AsyncStream.makeStream(of: PubNubStatus.self)
        subscriber.onMessage = { _ in continuation.yield(ContinuousClock.now) }
        subscriber.onStatus = { statusContinuation.yield($0) }
        subscriber.subscribe(to: ["bench"])
        for await status in statuses where status.category == .connected { break }
        var iterator = arrivals.makeAsyncIterator()
        let clock = ContinuousClock()
        var delivered: [Double] = []
        var acknowledged: [Double] = []
        for index in 0..<rounds {
            let start = clock.now
            _ = try await publisher.publish(channel: "bench", message: JSONValue.object(["n": .int(Int64(index))]))
            let acked = clock.now
            guard let arrival = await iterator.next() else { break }
            if index >= 10 {
                delivered.append(milliseconds(start.duration(to: arrival)))
                acknowledged.append(milliseconds(start.duration(to: acked)))
            }
        }
        subscriber.unsubscribeAll()
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        return Latency(
            p50: percentile(delivered, 0.5), p99: percentile(delivered, 0.99), ackP50: percentile(acknowledged, 0.5),
            ackP99: percentile(acknowledged, 0.99))
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

/// A transport whose requests never finish until cancelled: a subscribe long-poll that is held.
private struct MockHeldTransport: HTTPClient {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(3600))
        }
        throw CancellationError()
    }
}
