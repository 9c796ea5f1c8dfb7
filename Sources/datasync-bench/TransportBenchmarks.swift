internal import CCurl
import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import PubNubCore
import Transport

/// The two HTTP client backends side by side against the in-process emulator server: small GETs
/// over keep-alive, one after another and 16 at a time. "ours" is libcurl (the Linux default),
/// the baseline is URLSession.
enum TransportBenchmarks {
    private struct SmallHandler: ServerHandler {
        func handle(_ request: ServerRequest) async -> ServerResponse {
            ServerResponse(status: 200, headers: [(name: "Content-Type", value: "text/plain")], body: Array("ok".utf8))
        }
    }

    static func run() async throws -> [BenchRow] {
        let server = HTTPServer(handler: SmallHandler())
        try await server.start()
        guard let port = server.port else { throw BenchFailure(message: "the server reported no port") }
        let request = HTTPRequest(scheme: "http", host: "127.0.0.1", port: Int(port), path: "/small")
        do {
            let curl = try CurlHTTPClient()
            let urlSession = try URLSessionHTTPClient()
            let curlSequential = try await sequential(curl, request)
            let sessionSequential = try await sequential(urlSession, request)
            let curlConcurrent = try await concurrent(curl, request)
            let sessionConcurrent = try await concurrent(urlSession, request)
            await server.stop()
            let version = CurlHTTPClient.libcurlVersion ?? "?"
            return [
                BenchRow(
                    scenario: "transport: sequential small GETs, keep-alive (curl \(version))", unit: "req/s",
                    ours: curlSequential, baselineName: "URLSession", baseline: sessionSequential),
                BenchRow(
                    scenario: "transport: 16 concurrent small GETs, keep-alive (curl \(version))", unit: "req/s",
                    ours: curlConcurrent, baselineName: "URLSession", baseline: sessionConcurrent),
            ]
        } catch {
            await server.stop()
            throw error
        }
    }

    private static func sequential(_ client: any HTTPClient, _ request: HTTPRequest) async throws -> Double {
        let count = Bench.scale(500, smoke: 20)
        return try await Bench.throughputAsync(operations: count, minimumTime: .seconds(2)) {
            for _ in 0..<count {
                let response = try await client.send(request)
                guard response.status == 200 else { throw BenchFailure(message: "status \(response.status)") }
            }
        }
    }

    private static func concurrent(_ client: any HTTPClient, _ request: HTTPRequest) async throws -> Double {
        let width = 16
        let perTask = Bench.scale(100, smoke: 5)
        return try await Bench.throughputAsync(operations: width * perTask, minimumTime: .seconds(2)) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<width {
                    group.addTask {
                        for _ in 0..<perTask {
                            let response = try await client.send(request)
                            guard response.status == 200 else {
                                throw BenchFailure(message: "status \(response.status)")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

/// `getUser` round trips against the emulator on loopback (issue 22, point 1): the SDK over the
/// curl backend, called from a plain task and from the main actor, against a bare libcurl loop
/// through the same `CCurl` shim on a thread of its own, with one reused easy handle sending the
/// request the SDK sent (recorded from the SDK's first call). Each side also reports its context
/// switches per call (`getrusage` voluntary plus involuntary, whole process) and, against the
/// child process, its CPU time per call. A third SDK loop runs in a task preferring the curl
/// client's executor (`CurlHTTPClient.taskExecutor`). With `ROUNDTRIP_PROFILE_CALLS=N` set, each
/// placement makes only N such calls and prints no rows, for `perf record` or `perf sched`: by
/// default from the executor-preferring task (all of the client's work then runs on the thread
/// named `CurlHTTPClient`: `perf report --comms CurlHTTPClient`), or from the caller that
/// `ROUNDTRIP_PROFILE_CALLER` names (`task` or `main`).
///
/// The emulator runs twice: first as a child process (the `datasync-emulator` binary built next
/// to this one, as `swift build -c release` leaves it), so the switches and the CPU counted are
/// the client's alone, as they are for an app talking to a server; then in this process, where
/// the emulator's threads and tasks share the process (and its concurrency pool) with the client.
/// The goal rows are the child-process ones; without the binary only the in-process rows print.
enum CurlRoundTripBench {
    static let calls = Bench.scale(300, smoke: 10)
    /// How many times the three loops take turns; each keeps its best round.
    static let trials = Bench.scale(5, smoke: 1)

    /// One measured loop: time, context switches and CPU time per call.
    struct Figures {
        var microseconds = Double.infinity
        var switches: [Double] = []
        var cpu: [Double] = []

        mutating func keep(seconds: Double, usage: Usage, calls: Int) {
            microseconds = min(microseconds, seconds * 1e6 / Double(calls))
            switches.append(Double(usage.switches) / Double(calls))
            cpu.append(usage.cpuSeconds * 1e6 / Double(calls))
        }

        /// The median of the rounds' switches per call.
        var switchesPerCall: Double { Self.median(switches) }
        /// The median of the rounds' CPU microseconds per call (user plus system, whole process).
        var cpuMicrosecondsPerCall: Double { Self.median(cpu) }

        private static func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }
    }

    /// What `getrusage` says the whole process has used so far.
    struct Usage {
        var switches: Int
        var cpuSeconds: Double

        static func - (lhs: Usage, rhs: Usage) -> Usage {
            Usage(switches: lhs.switches - rhs.switches, cpuSeconds: lhs.cpuSeconds - rhs.cpuSeconds)
        }
    }

    static func run() async throws -> [BenchRow] {
        var rows: [BenchRow] = []
        if let binary = EmulatorChild.binary() {
            rows += try await againstChild(binary)
        } else {
            try Smoke.notice(
                "roundtrip: no datasync-emulator next to this binary (build it: swift build -c release); in-process rows only"
            )
        }
        rows += await ResumeFloor.rows()
        let emulator = try Emulator(configuration: EmulatorConfiguration())
        let url = try await emulator.start()
        guard let port = url.port else {
            await emulator.stop()
            throw BenchFailure(message: "the emulator reported no port")
        }
        do {
            rows += try await measure(port: port, placement: "in-process emulator")
            await emulator.stop()
            return rows
        } catch {
            await emulator.stop()
            throw error
        }
    }

    private static func againstChild(_ binary: String) async throws -> [BenchRow] {
        let (child, port) = try await EmulatorChild.start(binary)
        defer { child.send(SIGKILL) }
        let rows = try await measure(port: Int(port), placement: "emulator in a child process")
        child.send(SIGINT)
        _ = try? await child.finish(timeout: .seconds(10))
        return rows
    }

    private static func measure(port: Int, placement: String) async throws -> [BenchRow] {
        let curl = try CurlHTTPClient()
        func client(_ transport: any HTTPClient) -> PubNub {
            PubNub(
                configuration: PubNubConfiguration(
                    publishKey: "demo", subscribeKey: "demo", userId: "bench-reader", origin: "127.0.0.1:\(port)",
                    useSecureConnections: false, transport: transport, retryPolicy: .none))
        }
        // The recorder only captures the request for the bare loop: it is a transport of the test
        // support module, whose `send` runs on the global executor, so the timed loops go to
        // the curl client directly.
        let recorder = RecordingHTTPClient(curl)
        let recording = client(recorder)
        let userID = "bench-user-\(getpid())-\(port)"
        _ = try await recording.dataSync.createUser(
            classVersion: 1, id: userID, status: "active", payload: ["firstName": "Ada", "lastName": "Lovelace"])
        _ = try await recording.dataSync.getUser(id: userID)
        guard let request = recorder.lastRequest else { throw BenchFailure(message: "no getUser request recorded") }
        let bare = try BareCurlRequest(request)
        let pubnub = client(curl)

        let environment = ProcessInfo.processInfo.environment
        if let profiled = environment["ROUNDTRIP_PROFILE_CALLS"].flatMap(Int.init) {
            // For a profiler: only the SDK's calls, from the caller ROUNDTRIP_PROFILE_CALLER names
            // (`executor`, the default: a task preferring the client's executor; `task`; `main`).
            switch environment["ROUNDTRIP_PROFILE_CALLER"] ?? "executor" {
            case "task":
                try await Task.detached {
                    for _ in 0..<profiled { _ = try await pubnub.dataSync.getUser(id: userID) }
                }.value
            case "main":
                try await profileOnMainActor(pubnub, userID: userID, calls: profiled)
            default:
                try await Task.detached {
                    try await withTaskExecutorPreference(curl.taskExecutor) {
                        for _ in 0..<profiled { _ = try await pubnub.dataSync.getUser(id: userID) }
                    }
                }.value
            }
            return []
        }
        var sdkTask = Figures()
        var sdkMain = Figures()
        var sdkExecutor = Figures()
        var bareFigures = Figures()
        let executor = curl.taskExecutor
        for _ in 0..<trials {
            let (bareSeconds, bareUsage) = try await LoopbackSocket.onThread { try bare.loop(calls: calls) }
            bareFigures.keep(seconds: bareSeconds, usage: bareUsage, calls: calls)
            let (taskSeconds, taskUsage) = try await Task.detached {
                try await sdkLoop(pubnub, userID: userID)
            }.value
            sdkTask.keep(seconds: taskSeconds, usage: taskUsage, calls: calls)
            let (mainSeconds, mainUsage) = try await mainActorLoop(pubnub, userID: userID)
            sdkMain.keep(seconds: mainSeconds, usage: mainUsage, calls: calls)
            let (executorSeconds, executorUsage) = try await Task.detached {
                try await withTaskExecutorPreference(executor) { try await sdkLoop(pubnub, userID: userID) }
            }.value
            sdkExecutor.keep(seconds: executorSeconds, usage: executorUsage, calls: calls)
        }
        let baselineName = "bare libcurl loop, one easy handle, same request"
        let bareSwitches = bareFigures.switchesPerCall
        // CPU per call says what the SDK costs the machine, apart from how long the wake-ups take;
        // only the child-process placement counts the client alone.
        let cpuRows: [BenchRow] =
            placement.hasPrefix("emulator in a child")
            ? [
                BenchRow(
                    scenario: "transport: CPU per getUser, plain task caller (curl, \(placement))", unit: "CPU µs/call",
                    ours: sdkTask.cpuMicrosecondsPerCall, baselineName: baselineName,
                    baseline: bareFigures.cpuMicrosecondsPerCall, higherIsBetter: false),
                BenchRow(
                    scenario: "transport: CPU per getUser, task preferring the client's executor (curl, \(placement))",
                    unit: "CPU µs/call", ours: sdkExecutor.cpuMicrosecondsPerCall, baselineName: baselineName,
                    baseline: bareFigures.cpuMicrosecondsPerCall, higherIsBetter: false),
            ] : []
        return cpuRows + [
            BenchRow(
                scenario: "transport: getUser round trip, plain task caller (curl, \(placement))", unit: "µs/call",
                ours: sdkTask.microseconds, baselineName: baselineName, baseline: bareFigures.microseconds,
                higherIsBetter: false),
            BenchRow(
                scenario: "transport: getUser round trip, @MainActor caller (curl, \(placement))", unit: "µs/call",
                ours: sdkMain.microseconds, baselineName: baselineName, baseline: bareFigures.microseconds,
                higherIsBetter: false),
            BenchRow(
                scenario: "transport: getUser round trip, task preferring the client's executor (curl, \(placement))",
                unit: "µs/call", ours: sdkExecutor.microseconds, baselineName: baselineName,
                baseline: bareFigures.microseconds, higherIsBetter: false),
            BenchRow(
                scenario: "transport: context switches per getUser, plain task caller (curl, \(placement))",
                unit: "switches/call", ours: sdkTask.switchesPerCall, baselineName: baselineName,
                baseline: bareSwitches, higherIsBetter: false),
            BenchRow(
                scenario: "transport: context switches per getUser, @MainActor caller (curl, \(placement))",
                unit: "switches/call", ours: sdkMain.switchesPerCall, baselineName: baselineName,
                baseline: bareSwitches, higherIsBetter: false),
            BenchRow(
                scenario:
                    "transport: context switches per getUser, task preferring the client's executor (curl, \(placement))",
                unit: "switches/call", ours: sdkExecutor.switchesPerCall, baselineName: baselineName,
                baseline: bareSwitches, higherIsBetter: false),
        ]
    }

    /// Warms up, then times `calls` getUser calls on the caller's isolation: none from a detached
    /// task, the main actor from ``mainActorLoop(_:userID:)``.
    private static func sdkLoop(
        _ pubnub: PubNub, userID: String, isolation: isolated (any Actor)? = #isolation
    ) async throws -> (Double, Usage) {
        for _ in 0..<20 { _ = try await pubnub.dataSync.getUser(id: userID) }
        let before = usage()
        let start = ContinuousClock.now
        for _ in 0..<calls { _ = try await pubnub.dataSync.getUser(id: userID) }
        return (seconds(since: start), usage() - before)
    }

    @MainActor
    private static func profileOnMainActor(_ pubnub: PubNub, userID: String, calls: Int) async throws {
        for _ in 0..<calls { _ = try await pubnub.dataSync.getUser(id: userID) }
    }

    @MainActor
    private static func mainActorLoop(_ pubnub: PubNub, userID: String) async throws -> (Double, Usage) {
        try await sdkLoop(pubnub, userID: userID)
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Voluntary plus involuntary context switches, and user plus system CPU time, of the whole
    /// process so far.
    static func usage() -> Usage {
        var usage = rusage()
        #if canImport(Darwin)
            _ = getrusage(RUSAGE_SELF, &usage)
        #else
            _ = getrusage(RUSAGE_SELF.rawValue, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return Usage(
            switches: usage.ru_nvcsw + usage.ru_nivcsw, cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }
}

/// What a resumed continuation costs with no network and no SDK in the way: a thread of its own
/// resumes a waiting task, the task hands it the next continuation, and so on. Once with a plain
/// task waiting, once with the main actor waiting. The difference is what the platform charges a
/// main-actor caller for each answer that arrives on another thread (on Linux the main queue is
/// drained by a libdispatch worker after `dispatch_main`), which no transport can avoid; the
/// `@MainActor` round-trip rows above carry it too.
enum ResumeFloor {
    /// Hands each continuation to its thread, which resumes it at once.
    final class Resumer: @unchecked Sendable {
        // @unchecked Sendable: `pending` and `stopped` are touched only while holding `condition`.
        private let condition = NSCondition()
        private var pending: [CheckedContinuation<Void, Never>] = []
        private var stopped = false

        init() {
            Thread { [self] in
                while true {
                    condition.lock()
                    while pending.isEmpty, !stopped { condition.wait() }
                    if pending.isEmpty {
                        condition.unlock()
                        return
                    }
                    let next = pending.removeFirst()
                    condition.unlock()
                    next.resume()
                }
            }.start()
        }

        func hand(_ continuation: CheckedContinuation<Void, Never>) {
            condition.lock()
            pending.append(continuation)
            condition.signal()
            condition.unlock()
        }

        func stop() {
            condition.lock()
            stopped = true
            condition.signal()
            condition.unlock()
        }
    }

    static let hops = Bench.scale(20_000, smoke: 200)

    static func rows() async -> [BenchRow] {
        let resumer = Resumer()
        defer { resumer.stop() }
        var plain = CurlRoundTripBench.Figures()
        var main = CurlRoundTripBench.Figures()
        for _ in 0..<Bench.scale(3, smoke: 1) {
            let (plainSeconds, plainUsage) = await Task.detached { await loop(resumer) }.value
            plain.keep(seconds: plainSeconds, usage: plainUsage, calls: hops)
            let (mainSeconds, mainUsage) = await mainActorLoop(resumer)
            main.keep(seconds: mainSeconds, usage: mainUsage, calls: hops)
        }
        let baselineName = "the same, plain task waiting"
        return [
            BenchRow(
                scenario: "transport: resume from another thread, @MainActor waiter (no network: the platform's floor)",
                unit: "µs/resume", ours: main.microseconds, baselineName: baselineName, baseline: plain.microseconds,
                higherIsBetter: false),
            BenchRow(
                scenario: "transport: context switches per resume, @MainActor waiter (no network)",
                unit: "switches/resume", ours: main.switchesPerCall, baselineName: baselineName,
                baseline: plain.switchesPerCall, higherIsBetter: false),
        ]
    }

    private static func loop(
        _ resumer: Resumer, isolation: isolated (any Actor)? = #isolation
    ) async -> (Double, CurlRoundTripBench.Usage) {
        let before = CurlRoundTripBench.usage()
        let start = ContinuousClock.now
        for _ in 0..<hops {
            await withCheckedContinuation(isolation: isolation) { resumer.hand($0) }
        }
        return (CurlRoundTripBench.seconds(since: start), CurlRoundTripBench.usage() - before)
    }

    @MainActor
    private static func mainActorLoop(_ resumer: Resumer) async -> (Double, CurlRoundTripBench.Usage) {
        await loop(resumer)
    }
}

/// What the bare loop's write callback fills: the body of the current response.
private final class BareSink {
    var body: [UInt8] = []
}

private func bareWrite(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?
) -> Int {
    guard let user, let data else { return 0 }
    let sink = Unmanaged<BareSink>.fromOpaque(user).takeUnretainedValue()
    let length = size * count
    UnsafeRawPointer(data).withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
        sink.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
    }
    return length
}

/// The request the bare loop sends: the recorded request's URL and header lines, set on one easy
/// handle with the options the curl backend sets that change the bytes on the wire.
struct BareCurlRequest: Sendable {
    let url: String
    let headerLines: [String]

    init(_ request: HTTPRequest) throws {
        guard request.method == .get, request.body == nil else {
            throw BenchFailure(message: "the bare loop only sends GETs without a body")
        }
        url = request.url
        var lines = request.headers.map { $0.value.isEmpty ? $0.name + ";" : $0.name + ": " + $0.value }
        if !request.headers.contains("Expect") { lines.append("Expect:") }
        headerLines = lines
    }

    /// Sends the request `calls` times, one after another, on the calling thread (after 20
    /// unmeasured calls); returns the seconds taken and what the process used meanwhile.
    func loop(calls: Int) throws -> (Double, CurlRoundTripBench.Usage) {
        guard let easy = ccurl_easy_init() else { throw BenchFailure(message: "curl_easy_init failed") }
        defer { ccurl_easy_cleanup(easy) }
        var list: OpaquePointer?
        for line in headerLines { list = ccurl_slist_append(list, line) }
        defer { if let list { ccurl_slist_free_all(list) } }
        let sink = BareSink()
        let user = Unmanaged.passUnretained(sink).toOpaque()
        _ = url.withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_URL), $0) }
        _ = ccurl_easy_setopt_long(easy, Int32(CCURLOPT_NOSIGNAL), 1)
        _ = ccurl_easy_setopt_long(easy, Int32(CCURLOPT_TCP_NODELAY), 1)
        _ = ccurl_easy_setopt_long(easy, Int32(CCURLOPT_HTTPGET), 1)
        _ = "".withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_ACCEPT_ENCODING), $0) }
        _ = ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_HTTPHEADER), UnsafeRawPointer(list))
        _ = ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_WRITEFUNCTION), bareWrite)
        _ = ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_WRITEDATA), user)
        func once() throws {
            sink.body.removeAll(keepingCapacity: true)
            let code = ccurl_easy_perform(easy)
            var status = 0
            _ = ccurl_easy_getinfo_long(easy, Int32(CCURLINFO_RESPONSE_CODE), &status)
            guard code == 0, status == 200, !sink.body.isEmpty else {
                throw BenchFailure(message: "bare libcurl: code \(code), status \(status)")
            }
        }
        for _ in 0..<20 { try once() }
        let before = CurlRoundTripBench.usage()
        let start = ContinuousClock.now
        for _ in 0..<calls { try once() }
        return (CurlRoundTripBench.seconds(since: start), CurlRoundTripBench.usage() - before)
    }
}
