import DataSync
import DataSyncEmulator
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import Messaging
import PubNubCore
import Realtime
import Transport

/// Publish rows: round trips per second of `pubnub.publish` against the in-process emulator on
/// loopback, one at a time and 16 at once, on each HTTP backend. Two baselines:
///
/// - the bare transport: the same `HTTPClient` instance sending the byte-identical request (the
///   one the SDK builds for the same publish: path, query with `uuid` and `pnsdk`) in a loop, so
///   the ratio is the SDK's own cost (building, checking, the middleware chain, reading the
///   answer);
/// - PubNub's official Python SDK (`pubnub==10.8.0`, `PUBNUB_PYTHON`, else `.build/pyvenv`),
///   publishing the same message to the same emulator with `publish().sync()`, sequentially and
///   from 16 threads. Without the venv the group prints "python: not available".
///
/// The group also runs 16 concurrent `dataSync.getUser` calls against the bare transport sending
/// the byte-identical GET (issue 34 §1: the SDK's overhead under concurrency, for a read), once
/// from a plain client and once from a client that holds a long-poll meanwhile. Every concurrent
/// pair reports CPU and context switches per call beside the rate, and the reads begin with the
/// SDK's own cost per `getUser` over a canned answer (no network), against the transport's call alone.
///
/// For profiling one pair alone (`perf record` of the whole group mixes every row):
/// `PUBLISH_BENCH_ROWS=reads` (or `publish`) runs only those rows, `PUBLISH_BENCH_BACKENDS=curl`
/// (or `URLSession`) only that backend, `PUBLISH_BENCH_TRIALS=n` takes turns `n` times instead
/// of 7, `PUBLISH_BENCH_SIDE=sdk` (or `bare`) runs one side of the `getUser` pairs,
/// `PUBLISH_BENCH_SUBSCRIBED=0` leaves out the subscribed client, and `PUBLISH_BENCH_THREADS=1`
/// prints switches per read by thread and the SDK's own cost per `getUser` over a canned answer
/// (`PUBLISH_BENCH_CANNED_CALLS` calls, 20,000 by default).
enum PublishBench {
    static let channel = "bench-publish"
    static let message: JSONValue = ["text": "hello from the publish bench", "n": 42]
    static let sequentialRound = Bench.scale(200, smoke: 10)
    static let concurrency = 16
    static let perWorker = Bench.scale(25, smoke: 2)
    /// How many times ours and the baseline take turns (each keeps its best round).
    static let trials =
        environment("PUBLISH_BENCH_TRIALS").flatMap { Int($0) }.map { max(1, $0) } ?? Bench.scale(7, smoke: 1)
    /// `PUBLISH_BENCH_THREADS=1` prints, before the `getUser` rows, each thread's context switches
    /// per read (Linux only), to see which hand-off the SDK adds.
    static let threadBreakdown = environment("PUBLISH_BENCH_THREADS") == "1"
    /// `PUBLISH_BENCH_SIDE=sdk` (or `bare`) runs only that side of the `getUser` rows, so a profile
    /// of the process shows one loop alone.
    static let side = environment("PUBLISH_BENCH_SIDE")
    /// `PUBLISH_BENCH_SUBSCRIBED=0` leaves out the `getUser` rows of a client that holds a
    /// long-poll meanwhile.
    static let subscribedReads = environment("PUBLISH_BENCH_SUBSCRIBED") != "0"
    /// Which rows run: `reads`, `publish`, or both when unset.
    static let rowsFilter = environment("PUBLISH_BENCH_ROWS")
    /// Which backends run, comma-separated; both when unset.
    static let backends =
        environment("PUBLISH_BENCH_BACKENDS").map { $0.split(separator: ",").map(String.init) } ?? [
            "curl", "URLSession",
        ]

    private static func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func run() async throws -> [BenchRow] {
        let emulator = try Emulator(configuration: EmulatorConfiguration())
        let url = try await emulator.start()
        defer { Task { await emulator.stop() } }
        guard let port = url.port else { throw BenchFailure(message: "the emulator reported no port") }
        var rows: [BenchRow] = []
        var curlFigures: (sequential: Double, concurrent: Double)?
        for backend in backends {
            let transport: any HTTPClient = backend == "curl" ? try CurlHTTPClient() : try URLSessionHTTPClient()
            let pubnub = PubNub(
                configuration: PubNubConfiguration(
                    publishKey: "demo", subscribeKey: "demo", userId: "bench-publisher", origin: "127.0.0.1:\(port)",
                    useSecureConnections: false, transport: transport, retryPolicy: .none))
            let request = try pubnub.attempt(
                PublishOptions(kind: .publish, channel: channel, message: message),
                custom: PubNub.RequestConfiguration()
            ).request

            if rowsFilter == "reads" {
                rows += try await concurrentReads(pubnub: pubnub, transport: transport, backend: backend)
                continue
            }
            // Ours and the baseline take turns, `trials` times each, and each keeps its best, so a
            // burst of load from elsewhere on the machine does not favour one of them.
            var sdkSequential = 0.0
            var bareSequential = 0.0
            var sdkConcurrent = 0.0
            var bareConcurrent = 0.0
            var sdkConcurrentCost = Cost.worst
            var bareConcurrentCost = Cost.worst
            let total = concurrency * perWorker
            for _ in 0..<trials {
                sdkSequential = max(
                    sdkSequential,
                    try await Bench.throughputAsync(operations: sequentialRound) {
                        for _ in 0..<sequentialRound { try await publish(pubnub) }
                    })
                bareSequential = max(
                    bareSequential,
                    try await Bench.throughputAsync(operations: sequentialRound) {
                        for _ in 0..<sequentialRound { try await send(request, transport) }
                    })
                sdkConcurrent = max(
                    sdkConcurrent,
                    try await Bench.throughputAsync(operations: total) {
                        try await concurrently { for _ in 0..<perWorker { try await publish(pubnub) } }
                    })
                bareConcurrent = max(
                    bareConcurrent,
                    try await Bench.throughputAsync(operations: total) {
                        try await concurrently { for _ in 0..<perWorker { try await send(request, transport) } }
                    })
                sdkConcurrentCost = sdkConcurrentCost.best(
                    try await costPerOperation(operations: total) {
                        try await concurrently { for _ in 0..<perWorker { try await publish(pubnub) } }
                    })
                bareConcurrentCost = bareConcurrentCost.best(
                    try await costPerOperation(operations: total) {
                        try await concurrently { for _ in 0..<perWorker { try await send(request, transport) } }
                    })
            }
            rows.append(
                BenchRow(
                    scenario: "publish: sequential round trips via the SDK, loopback emulator (\(backend))",
                    unit: "publishes/s", ours: sdkSequential,
                    baselineName: "bare \(backend) transport, byte-identical request", baseline: bareSequential))
            rows.append(
                BenchRow(
                    scenario:
                        "publish: \(concurrency) concurrent publishers via the SDK, loopback emulator (\(backend))",
                    unit: "publishes/s", ours: sdkConcurrent,
                    baselineName: "bare \(backend) transport, \(concurrency) concurrent", baseline: bareConcurrent))
            rows.append(
                BenchRow(
                    scenario:
                        "publish: CPU per publish, \(concurrency) concurrent via the SDK (\(backend), emulator included)",
                    unit: "µs/publish", ours: sdkConcurrentCost.cpu,
                    baselineName: "bare \(backend) transport, \(concurrency) concurrent",
                    baseline: bareConcurrentCost.cpu,
                    higherIsBetter: false))
            rows.append(
                BenchRow(
                    scenario:
                        "publish: context switches per publish, \(concurrency) concurrent via the SDK (\(backend), emulator included)",
                    unit: "switches/publish", ours: sdkConcurrentCost.switches,
                    baselineName: "bare \(backend) transport, \(concurrency) concurrent",
                    baseline: bareConcurrentCost.switches, higherIsBetter: false))
            if backend == "curl" { curlFigures = (sdkSequential, sdkConcurrent) }
            if rowsFilter != "publish" {
                rows += try await concurrentReads(pubnub: pubnub, transport: transport, backend: backend)
            }
        }

        guard let python = pythonPath() else {
            print("python: not available (set PUBNUB_PYTHON or create .build/pyvenv with pubnub==10.8.0)")
            return rows
        }
        guard let curl = curlFigures else { return rows }
        let pythonSequential = try Smoke.expectPython(
            pythonPublishes(python: python, port: port, threads: 1), "sequential publish")
        let pythonConcurrent = try Smoke.expectPython(
            pythonPublishes(python: python, port: port, threads: concurrency), "concurrent publish")
        if pythonSequential == nil || pythonConcurrent == nil {
            print("python: not available (the pubnub 10.8.0 script failed at \(python))")
        }
        if let pythonSequential {
            rows.append(
                BenchRow(
                    scenario: "publish: sequential round trips, ours (curl) vs the Python SDK", unit: "publishes/s",
                    ours: curl.sequential, baselineName: "pubnub 10.8.0 publish().sync()", baseline: pythonSequential))
        }
        if let pythonConcurrent {
            rows.append(
                BenchRow(
                    scenario: "publish: \(concurrency) concurrent publishers, ours (curl) vs the Python SDK",
                    unit: "publishes/s", ours: curl.concurrent,
                    baselineName: "pubnub 10.8.0 publish().sync(), \(concurrency) threads",
                    baseline: pythonConcurrent))
        }
        return rows
    }

    /// 16 concurrent `getUser` through the SDK against the bare transport sending the request the
    /// SDK built for the same call (recorded once), alternating `trials` times, best of each.
    private static func concurrentReads(pubnub: PubNub, transport: any HTTPClient, backend: String) async throws
        -> [BenchRow]
    {
        let userID = "bench-reader-\(backend)"
        _ = try? await pubnub.dataSync.createUser(
            classVersion: 1, id: userID, status: "active", payload: ["firstName": "Ada", "lastName": "Lovelace"])
        let recorder = RecordingHTTPClient(transport)
        _ = try await pubnub.dataSync.getUser(id: userID, custom: PubNub.RequestConfiguration(transport: recorder))
        guard let request = recorder.lastRequest else { throw BenchFailure(message: "no getUser request recorded") }
        let canned = CannedClient(response: try await transport.send(request))
        if threadBreakdown { try await printCannedCost(pubnub, userID, canned, "\(backend)") }
        var rows = try await cannedRows(pubnub, userID, canned, request, backend)
        let total = concurrency * perWorker
        let sdkRound = readRound(pubnub, userID)
        let bareRound: @Sendable () async throws -> Void = {
            try await concurrently {
                for _ in 0..<perWorker {
                    let response = try await transport.send(request)
                    guard response.status == 200 else {
                        throw BenchFailure(message: "the bare getUser was answered \(response.status)")
                    }
                }
            }
        }
        if threadBreakdown {
            for (name, round) in [("SDK", sdkRound), ("bare", bareRound)] {
                try await round()
                let before = ThreadSwitches.now()
                for _ in 0..<cpuRounds { try await round() }
                print(
                    "getUser (\(backend), \(name)): switches per read by thread: "
                        + ThreadSwitches.perOperation(
                            from: before, to: ThreadSwitches.now(), operations: total * cpuRounds))
            }
        }
        rows += try await readRows(
            label: "via the SDK", backend: backend, sdkRound: sdkRound, bareRound: bareRound)
        guard subscribedReads else { return rows }
        // The same reads from a client that also holds a long-poll (as an app with a subscription
        // does): every answered call is an origin-health report its subscribe loop may need.
        let subscribed = PubNub(configuration: pubnub.configuration)
        subscribed.subscribe(to: ["bench-held-\(backend)"])
        defer { subscribed.unsubscribeAll() }
        var waited = 0
        while await subscribed.realtime.loop.state != .receiving {
            waited += 1
            guard waited < 2_000 else { throw BenchFailure(message: "the subscribed client never held its long-poll") }
            try await Task.sleep(for: .milliseconds(5))
        }
        if threadBreakdown { try await printCannedCost(subscribed, userID, canned, "\(backend), client subscribed") }
        rows += try await readRows(
            label: "via the SDK, client subscribed (long-poll held)", backend: backend,
            sdkRound: readRound(subscribed, userID), bareRound: bareRound)
        return rows
    }

    /// Prints the SDK's own CPU and context switches per `getUser` over an answer given at once (no
    /// network, one caller): what the SDK adds to each call, whatever the transport.
    private static func printCannedCost(_ pubnub: PubNub, _ userID: String, _ canned: CannedClient, _ label: String)
        async throws
    {
        let calls = environment("PUBLISH_BENCH_CANNED_CALLS").flatMap { Int($0) } ?? Bench.scale(20_000, smoke: 200)
        let custom = PubNub.RequestConfiguration(transport: canned)
        _ = try await pubnub.dataSync.getUser(id: userID, custom: custom)
        let start = CurlRoundTripBench.usage()
        for _ in 0..<calls { _ = try await pubnub.dataSync.getUser(id: userID, custom: custom) }
        let used = CurlRoundTripBench.usage() - start
        let cpu = String(format: "%.2f", used.cpuSeconds * 1e6 / Double(calls))
        let switches = String(format: "%.3f", Double(used.switches) / Double(calls))
        print("getUser (\(label)): the SDK's own cost per call over a canned answer: \(cpu) µs, \(switches) switches")
    }

    /// The SDK's own cost per `getUser`, with no network: one caller, the transport answering at
    /// once with the bytes the emulator gave (recorded once), against the same call on that
    /// transport alone, which neither builds a request nor decodes an answer. The CPU row is what
    /// the SDK adds to each read, whatever the backend; the concurrent rows' gap follows it.
    private static func cannedRows(
        _ pubnub: PubNub, _ userID: String, _ canned: CannedClient, _ request: HTTPRequest, _ backend: String
    ) async throws -> [BenchRow] {
        let calls = Bench.scale(2_000, smoke: 20)
        let custom = PubNub.RequestConfiguration(transport: canned)
        let sdkRound: @Sendable () async throws -> Void = {
            for _ in 0..<calls { _ = try await pubnub.dataSync.getUser(id: userID, custom: custom) }
        }
        let bareRound: @Sendable () async throws -> Void = {
            for _ in 0..<calls { _ = try await sendOpaque(canned, request) }
        }
        var sdk = 0.0
        var bare = 0.0
        var sdkCost = Cost.worst
        var bareCost = Cost.worst
        for _ in 0..<trials {
            sdk = max(sdk, try await Bench.throughputAsync(operations: calls, sdkRound))
            sdkCost = sdkCost.best(try await costPerOperation(operations: calls, sdkRound))
            bare = max(bare, try await Bench.throughputAsync(operations: calls, bareRound))
            bareCost = bareCost.best(try await costPerOperation(operations: calls, bareRound))
        }
        let baselineName = "the canned transport's send alone (no request built, nothing decoded)"
        let body = canned.response.body
        let decode = try Bench.compare(
            "getUser's answer decoded to a PubNubDataSyncUser (\(body.count) bytes)", unit: "decodes/s",
            ours: { _ = try DataSyncEnvelope.object(PubNubDataSyncUser.self, from: body) },
            baselineName: "JSONValue(parsing:) of the same bytes alone", baseline: { _ = try JSONValue(parsing: body) })
        let paths = try Bench.compare(
            "getUser's answer decoded by the byte reader (DataSyncEnvelope.objectDirectly)", unit: "decodes/s",
            ours: {
                guard DataSyncEnvelope.objectDirectly(PubNubDataSyncUser.self, from: body) != nil else {
                    throw BenchFailure(message: "the byte reader did not take the getUser answer")
                }
            },
            baselineName: "the tree decoder (objectThroughTree)",
            baseline: { _ = try DataSyncEnvelope.objectThroughTree(PubNubDataSyncUser.self, from: body) })
        return [
            decode, paths,
            BenchRow(
                scenario: "getUser over a canned answer, one caller, no network (\(backend)'s answer)",
                unit: "calls/s", ours: sdk, baselineName: baselineName, baseline: bare),
            BenchRow(
                scenario: "getUser over a canned answer: CPU per call (\(backend)'s answer)", unit: "µs/call",
                ours: sdkCost.cpu, baselineName: baselineName, baseline: bareCost.cpu, higherIsBetter: false),
        ]
    }

    /// `client.send(request)` through an existential the optimiser cannot see through, so a loop
    /// of canned answers is not folded away.
    @inline(never)
    private static func sendOpaque(_ client: any HTTPClient, _ request: HTTPRequest) async throws -> HTTPResponse {
        try await client.send(request)
    }

    /// One round of `getUser` from `concurrency` tasks, `perWorker` each.
    private static func readRound(_ pubnub: PubNub, _ userID: String) -> @Sendable () async throws -> Void {
        {
            try await concurrently {
                for _ in 0..<perWorker { _ = try await pubnub.dataSync.getUser(id: userID) }
            }
        }
    }

    /// Rate, CPU and switches per read of the two rounds, taking turns `trials` times, best of each.
    private static func readRows(
        label: String, backend: String, sdkRound: @escaping @Sendable () async throws -> Void,
        bareRound: @escaping @Sendable () async throws -> Void
    ) async throws -> [BenchRow] {
        let total = concurrency * perWorker
        var sdk = 0.0
        var bare = 0.0
        var sdkCost = Cost.worst
        var bareCost = Cost.worst
        for _ in 0..<trials {
            if side != "bare" {
                sdk = max(sdk, try await Bench.throughputAsync(operations: total, sdkRound))
                sdkCost = sdkCost.best(try await costPerOperation(operations: total, sdkRound))
            }
            if side != "sdk" {
                bare = max(bare, try await Bench.throughputAsync(operations: total, bareRound))
                bareCost = bareCost.best(try await costPerOperation(operations: total, bareRound))
            }
        }
        let baselineName = "bare \(backend) transport, \(concurrency) concurrent"
        return [
            BenchRow(
                scenario: "getUser: \(concurrency) concurrent readers \(label), loopback emulator (\(backend))",
                unit: "reads/s", ours: sdk, baselineName: baselineName, baseline: bare),
            BenchRow(
                scenario: "getUser: CPU per read, \(concurrency) concurrent \(label) (\(backend), emulator included)",
                unit: "µs/read", ours: sdkCost.finite.cpu, baselineName: baselineName,
                baseline: bareCost.finite.cpu, higherIsBetter: false),
            BenchRow(
                scenario:
                    "getUser: context switches per read, \(concurrency) concurrent \(label) (\(backend), emulator included)",
                unit: "switches/read", ours: sdkCost.finite.switches, baselineName: baselineName,
                baseline: bareCost.finite.switches, higherIsBetter: false),
        ]
    }

    /// What one operation costs the whole process (every thread: the in-process emulator's too,
    /// which is the same for both sides): CPU time (user and system) in µs and context switches
    /// (voluntary and involuntary), from `getrusage`.
    struct Cost {
        var cpu: Double
        var switches: Double

        static let worst = Cost(cpu: .infinity, switches: .infinity)

        /// Zero for a side that did not run (`PUBLISH_BENCH_SIDE`), which the table prints as no ratio.
        var finite: Cost {
            Cost(cpu: cpu.isFinite ? cpu : 0, switches: switches.isFinite ? switches : 0)
        }

        /// The lower of each figure; the two may come from different rounds.
        func best(_ other: Cost) -> Cost {
            Cost(cpu: min(cpu, other.cpu), switches: min(switches, other.switches))
        }
    }

    /// ``Cost`` per operation over `cpuRounds` rounds of `body`, after one warm-up round. Unlike a
    /// rate, it hardly moves when other processes load the machine, so it shows the SDK's own cost
    /// when the throughput rows are too noisy to; the switches count the thread hand-offs (a
    /// continuation resumed on another thread, a lock waited for, a sleeping thread woken).
    private static func costPerOperation(
        operations: Int, _ body: @Sendable () async throws -> Void
    ) async throws -> Cost {
        try await body()
        let start = CurlRoundTripBench.usage()
        for _ in 0..<cpuRounds { try await body() }
        let used = CurlRoundTripBench.usage() - start
        let count = Double(operations * cpuRounds)
        return Cost(cpu: used.cpuSeconds * 1e6 / count, switches: Double(used.switches) / count)
    }

    static let cpuRounds = Bench.scale(5, smoke: 1)

    private static func publish(_ pubnub: PubNub) async throws {
        _ = try await pubnub.publish(channel: channel, message: message)
    }

    /// One bare exchange, checked as the SDK checks it (a `[1,"Sent",…]` answer).
    private static func send(_ request: HTTPRequest, _ transport: any HTTPClient) async throws {
        let response = try await transport.send(request)
        guard response.status == 200, response.body.first == UInt8(ascii: "["), response.body.dropFirst().first == 0x31
        else {
            throw BenchFailure(message: "the bare publish was answered \(response.status)")
        }
    }

    private static func concurrently(_ work: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency { group.addTask { try await work() } }
            try await group.waitForAll()
        }
    }

    /// The Python interpreter with pubnub 10.8.0: `PUBNUB_PYTHON`, else `.build/pyvenv/bin/python`.
    static func pythonPath() -> String? {
        let environment = ProcessInfo.processInfo.environment["PUBNUB_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
        let python = environment ?? FileManager.default.currentDirectoryPath + "/.build/pyvenv/bin/python"
        return FileManager.default.isExecutableFile(atPath: python) ? python : nil
    }

    /// Publishes per second of the Python SDK against the emulator at `port`, measured like
    /// ``Bench/throughputAsync(operations:minimumTime:_:)`` (one warm-up round, then the best
    /// round over at least 0.4 s and 3 rounds), with `threads` threads sharing one client.
    static func pythonPublishes(python: String, port: Int, threads: Int) -> Double? {
        let script = """
            import os, sys, time
            from concurrent.futures import ThreadPoolExecutor
            from pubnub.pnconfiguration import PNConfiguration
            from pubnub.pubnub import PubNub
            import importlib.metadata
            assert importlib.metadata.version("pubnub") == "10.8.0"
            port, threads, per = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
            config = PNConfiguration()
            config.publish_key = "demo"
            config.subscribe_key = "demo"
            config.user_id = "bench-python"
            config.origin = "127.0.0.1:%d" % port
            config.ssl = False
            pubnub = PubNub(config)
            message = {"text": "hello from the publish bench", "n": 42}
            def worker(count):
                for _ in range(count):
                    envelope = pubnub.publish().channel("\(channel)").message(message).sync()
                    assert envelope.result.timetoken > 0
            pool = ThreadPoolExecutor(max_workers=threads)
            def round_():
                list(pool.map(worker, [per] * threads))
            round_()
            best, rounds = 0.0, 0
            deadline = time.perf_counter() + 0.4
            while time.perf_counter() < deadline or rounds < 3:
                start = time.perf_counter(); round_(); elapsed = time.perf_counter() - start
                if elapsed > 0: best = max(best, threads * per / elapsed)
                rounds += 1
            pool.shutdown()
            print(best, flush=True)
            os._exit(0)
            """
        let perThread = threads == 1 ? sequentialRound : perWorker
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, String(port), String(threads), String(perThread)]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Answers every request with one recorded response, at once.
struct CannedClient: HTTPClient {
    let response: HTTPResponse

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }
}

/// Context switches of each thread of this process, by thread name, from `/proc/self/task`
/// (empty where there is no such directory).
enum ThreadSwitches {
    /// Voluntary and involuntary switches so far, per thread id, with the thread's name.
    static func now() -> [Int: (name: String, voluntary: Int, involuntary: Int)] {
        var result: [Int: (name: String, voluntary: Int, involuntary: Int)] = [:]
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return result }
        for task in tasks {
            guard let id = Int(task),
                let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)
            else { continue }
            var name = "?"
            var voluntary = 0
            var involuntary = 0
            for line in status.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                switch parts[0] {
                case "Name": name = value
                case "voluntary_ctxt_switches": voluntary = Int(value) ?? 0
                case "nonvoluntary_ctxt_switches": involuntary = Int(value) ?? 0
                default: break
                }
            }
            result[id] = (name, voluntary, involuntary)
        }
        return result
    }

    /// "name[thread id] voluntary+involuntary" per operation for each thread that switched,
    /// busiest first. By thread, not by name: the emulator's event loop and the concurrency pool's
    /// workers carry the same name on Linux (a thread started from a worker inherits it).
    static func perOperation(
        from before: [Int: (name: String, voluntary: Int, involuntary: Int)],
        to after: [Int: (name: String, voluntary: Int, involuntary: Int)], operations: Int
    ) -> String {
        let count = Double(max(1, operations))
        let deltas = after.map { id, end in
            let start = before[id] ?? (end.name, 0, 0)
            return (
                label: "\(end.name)[\(id)]", voluntary: end.voluntary - start.voluntary,
                involuntary: end.involuntary - start.involuntary
            )
        }
        return deltas.filter { $0.voluntary + $0.involuntary > 0 }
            .sorted { $0.voluntary + $0.involuntary > $1.voluntary + $1.involuntary }
            .map { "\($0.label) \(format(Double($0.voluntary) / count))+\(format(Double($0.involuntary) / count))" }
            .joined(separator: ", ")
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}
