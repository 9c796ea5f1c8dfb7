import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Messaging
import PubNubCore
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
/// the byte-identical GET (issue 34 §1: the SDK's overhead under concurrency, for a read).
///
/// For profiling one pair alone (`perf record` of the whole group mixes every row):
/// `PUBLISH_BENCH_ROWS=reads` (or `publish`) runs only those rows, `PUBLISH_BENCH_BACKENDS=curl`
/// (or `URLSession`) only that backend, and `PUBLISH_BENCH_TRIALS=n` takes turns `n` times
/// instead of 7.
enum PublishBench {
    static let channel = "bench-publish"
    static let message: JSONValue = ["text": "hello from the publish bench", "n": 42]
    static let sequentialRound = 200
    static let concurrency = 16
    static let perWorker = 25
    /// How many times ours and the baseline take turns (each keeps its best round).
    static let trials = environment("PUBLISH_BENCH_TRIALS").flatMap { Int($0) }.map { max(1, $0) } ?? 7
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
            var sdkConcurrentCPU = Double.infinity
            var bareConcurrentCPU = Double.infinity
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
                sdkConcurrentCPU = min(
                    sdkConcurrentCPU,
                    try await cpuPerOperation(operations: total) {
                        try await concurrently { for _ in 0..<perWorker { try await publish(pubnub) } }
                    })
                bareConcurrentCPU = min(
                    bareConcurrentCPU,
                    try await cpuPerOperation(operations: total) {
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
                    unit: "µs/publish", ours: sdkConcurrentCPU,
                    baselineName: "bare \(backend) transport, \(concurrency) concurrent", baseline: bareConcurrentCPU,
                    higherIsBetter: false))
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
        let pythonSequential = pythonPublishes(python: python, port: port, threads: 1)
        let pythonConcurrent = pythonPublishes(python: python, port: port, threads: concurrency)
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
        let total = concurrency * perWorker
        var sdk = 0.0
        var bare = 0.0
        var sdkCPU = Double.infinity
        var bareCPU = Double.infinity
        let sdkRound: @Sendable () async throws -> Void = {
            try await concurrently {
                for _ in 0..<perWorker { _ = try await pubnub.dataSync.getUser(id: userID) }
            }
        }
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
        for _ in 0..<trials {
            sdk = max(sdk, try await Bench.throughputAsync(operations: total, sdkRound))
            bare = max(bare, try await Bench.throughputAsync(operations: total, bareRound))
            sdkCPU = min(sdkCPU, try await cpuPerOperation(operations: total, sdkRound))
            bareCPU = min(bareCPU, try await cpuPerOperation(operations: total, bareRound))
        }
        return [
            BenchRow(
                scenario: "getUser: \(concurrency) concurrent readers via the SDK, loopback emulator (\(backend))",
                unit: "reads/s", ours: sdk, baselineName: "bare \(backend) transport, \(concurrency) concurrent",
                baseline: bare),
            BenchRow(
                scenario:
                    "getUser: CPU per read, \(concurrency) concurrent via the SDK (\(backend), emulator included)",
                unit: "µs/read", ours: sdkCPU, baselineName: "bare \(backend) transport, \(concurrency) concurrent",
                baseline: bareCPU, higherIsBetter: false),
        ]
    }

    /// CPU time of the whole process (user and system, every thread: the in-process emulator's
    /// too, which is the same for both sides) per operation over `cpuRounds` rounds of `body`,
    /// after one warm-up round. Unlike a rate, it hardly moves when other processes load the
    /// machine, so it shows the SDK's own cost when the throughput rows are too noisy to.
    private static func cpuPerOperation(
        operations: Int, _ body: @Sendable () async throws -> Void
    ) async throws -> Double {
        try await body()
        let start = CurlRoundTripBench.usage()
        for _ in 0..<cpuRounds { try await body() }
        let used = CurlRoundTripBench.usage() - start
        return used.cpuSeconds * 1e6 / Double(operations * cpuRounds)
    }

    static let cpuRounds = 5

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
