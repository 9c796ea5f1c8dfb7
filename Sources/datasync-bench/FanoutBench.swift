import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fan-out in the emulator (issue 34, point 4): N long-polls held on one channel, one publish,
/// and the time from sending the publish to each subscriber's whole answer; beside it the same
/// server's rate of small keep-alive GETs (`/time/0`) over the same N connections.
///
/// The emulator runs in a child process: this binary again, in the role `fanout-server`, which
/// serves an in-process ``Emulator`` and prints how many long-polls it holds. At 10,000 the two
/// sides need 10,000 descriptors each, more than one process may open on many machines (20,000
/// here), and in separate processes the load generator's CPU is not counted as the server's
/// memory. The child reports the held count so a round publishes only once all N are waiting.
///
/// Why that baseline: both sides then write N small answers to N distinct sockets and the same
/// client reads them with the same code, so what differs is only how the server comes to answer
/// (a request to parse and answer at once, or a waiter to wake and a message to encode). A fixed
/// pool of a few connections would measure pipelining instead. The GET side also pays for
/// reading N requests, which the fan-out read before the clock started, so the baseline is if
/// anything a little slow.
///
/// Sizes: `FANOUT_BENCH_SIZES` (comma-separated, default `1000,10000`). Event loops of the
/// emulator's server: `FANOUT_BENCH_LOOPS` (comma-separated, for example `1,2`: one child each, in
/// turn, rows labelled with the count; default the server's own choice, rows unlabelled).
enum FanoutBench {
    static let roleVariable = "DATASYNC_BENCH_ROLE"
    static let serverRole = "fanout-server"
    /// The child's event-loop count, when the parent asks for one.
    static let loopsVariable = "DATASYNC_BENCH_EVENT_LOOPS"

    static func run() async throws -> [BenchRow] {
        let environment = ProcessInfo.processInfo.environment
        let sizes =
            environment["FANOUT_BENCH_SIZES"]?.split(separator: ",").compactMap { Int($0) }
            ?? Bench.scale([1000, 10_000], smoke: [20])
        let largest = sizes.max() ?? 0
        guard raiseOwnDescriptorLimit(to: UInt64(largest + 256)) else {
            throw BenchFailure(message: "fanout: cannot open \(largest + 256) descriptors (ulimit -n)")
        }
        let loopCounts: [Int?] =
            environment["FANOUT_BENCH_LOOPS"]?.split(separator: ",").compactMap { Int($0) } ?? [nil]
        var rows: [BenchRow] = []
        for loops in loopCounts { rows += try await run(sizes: sizes, loops: loops) }
        return rows
    }

    private static func run(sizes: [Int], loops: Int?) async throws -> [BenchRow] {
        let label = loops.map { ", \($0) event loop\($0 == 1 ? "" : "s")" } ?? ""
        var environment = ProcessInfo.processInfo.environment
        environment[roleVariable] = serverRole
        environment[loopsVariable] = loops.map(String.init)
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let child = try ChildProcess(executable: binary, arguments: [], environment: environment)
        defer { child.send(SIGKILL) }
        try await child.waitFor("the server child's port", timeout: .seconds(120)) { output, _ in
            output.contains("port ")
        }
        guard let port = lastValue("port", in: child.standardOutput).flatMap(UInt16.init(exactly:)) else {
            throw BenchFailure(message: "fanout: the server child reported no port")
        }
        var rows: [BenchRow] = []
        for size in sizes {
            let rounds = Bench.scale(size >= 10_000 ? 4 : 10, smoke: 2)
            let figures = try await measure(size: size, rounds: rounds, port: port, child: child)
            let goal = size >= 10_000 ? 50.0 : 5.0
            rows.append(
                BenchRow(
                    scenario: "fanout: publish→deliver p50, \(size) held on one channel (emulator in a child)\(label)",
                    unit: "ms", ours: figures.p50, baselineName: "goal (issue 34)", baseline: goal,
                    higherIsBetter: false))
            rows.append(
                BenchRow(
                    scenario: "fanout: publish→deliver p99, \(size) held\(label)", unit: "ms", ours: figures.p99,
                    higherIsBetter: false))
            rows.append(
                BenchRow(
                    scenario: "fanout: deliveries/s, \(size) held (best of \(rounds) rounds)\(label)",
                    unit: "answers/s",
                    ours: figures.deliveries, baselineName: "GET /time/0 on the same \(size) keep-alive connections",
                    baseline: figures.getRate))
        }
        if let held = lastValue("held", in: child.standardOutput), held != 0 {
            print("fanout: the server child still held \(held) long-polls at the end")
        }
        return rows
    }

    private struct Figures {
        var p50: Double
        var p99: Double
        var deliveries: Double
        var getRate: Double
    }

    private static func measure(size: Int, rounds: Int, port: UInt16, child: ChildProcess) async throws -> Figures {
        let channel = "fanout\(size)"
        let clients = try await LoopbackSocket.onThread { try Clients(count: size, port: port) }
        defer { clients.close() }
        let getRate = try await LoopbackSocket.onThread { () throws -> Double in
            var best = 0.0
            for _ in 0..<max(3, rounds / 2) {
                let start = ContinuousClock.now
                try clients.sendToAll { _ in "/time/0" }
                let times = try clients.readOneAnswerEach(since: start)
                if let slowest = times.max(), slowest > 0 { best = max(best, Double(size) / (slowest / 1000)) }
            }
            return best
        }
        let publisher = try await LoopbackSocket.onThread { try LoopbackSocket.connect(port: port) }
        defer { close(publisher) }
        var cursor = try await LoopbackSocket.onThread { () throws -> UInt64 in
            try LoopbackSocket.writeAll(
                publisher, LoopbackSocket.getRequest("/v2/subscribe/demo/\(channel)/0?tt=0&uuid=fanout"))
            return try LoopbackSocket.subscribeCursor(in: try LoopbackSocket.readResponse(publisher))
        }
        var latencies: [Double] = []
        var best = 0.0
        for _ in 0..<rounds {
            let tt = cursor
            try await LoopbackSocket.onThread {
                try clients.sendToAll { index in "/v2/subscribe/demo/\(channel)/0?tt=\(tt)&uuid=s\(index)" }
            }
            try await child.waitFor("\(size) held long-polls", timeout: .seconds(300)) { output, _ in
                lastValue("held", in: output) == size
            }
            let (times, next) = try await LoopbackSocket.onThread { () throws -> ([Double], UInt64) in
                let start = ContinuousClock.now
                try LoopbackSocket.writeAll(
                    publisher, LoopbackSocket.getRequest("/publish/demo/demo/0/\(channel)/0/%22tick%22"))
                let times = try clients.readOneAnswerEach(since: start)
                _ = try LoopbackSocket.readResponse(publisher)
                return (times, try LoopbackSocket.subscribeCursor(in: clients.lastAnswer))
            }
            latencies += times
            if let slowest = times.max(), slowest > 0 { best = max(best, Double(size) / (slowest / 1000)) }
            cursor = next
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        return Figures(p50: percentile(0.5), p99: percentile(0.99), deliveries: best, getRate: getRate)
    }

    /// The child's side: an emulator on an ephemeral loopback port with default settings and no
    /// request log, printing `port P` once and `held N` whenever the number of held long-polls
    /// changes. Ends when its parent does.
    static func serve() async -> Never {
        func say(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            bytes.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
        }
        let parent = getppid()
        do {
            var configuration = EmulatorConfiguration()
            configuration.serverLimits.eventLoops = ProcessInfo.processInfo.environment[loopsVariable].flatMap {
                Int($0)
            }
            let emulator = try Emulator(configuration: configuration)
            let url = try await emulator.start()
            say("port \(url.port ?? 0)")
            var last = -1
            while getppid() == parent {
                let held = emulator.heldSubscribeCount
                if held != last {
                    say("held \(held)")
                    last = held
                }
                try await Task.sleep(for: .milliseconds(2))
            }
        } catch {
            say("failed \(error)")
            exit(1)
        }
        exit(0)
    }

    /// The last `name N` line's N in `output`.
    private static func lastValue(_ name: String, in output: String) -> Int? {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix(name + " ") }) else { return nil }
        return Int(line.dropFirst(name.count + 1))
    }

    private static func raiseOwnDescriptorLimit(to wanted: UInt64) -> Bool {
        let (limits, raise) = DescriptorBudget.system()
        guard let limits else { return false }
        if limits.soft >= wanted { return true }
        return wanted <= limits.hard && raise(wanted)
    }
}

/// N keep-alive client connections read through one poller, each answer timed when its last
/// byte arrives. Used from one thread at a time (`LoopbackSocket.onThread`); `@unchecked
/// Sendable` only so the value can be handed to that thread and back, never used by two at once.
final class Clients: @unchecked Sendable {
    private var sockets: [Int32] = []
    private var buffers: [[UInt8]]
    private let poller: Poller
    private var ready: [Poller.Ready] = []
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    /// The body of the last answer read, for the next cursor.
    private(set) var lastAnswer = ""

    init(count: Int, port: UInt16) throws {
        do {
            poller = try Poller(backend: .automatic)
        } catch {
            throw BenchFailure(message: "no poller: \(error)")
        }
        buffers = Array(repeating: [], count: count)
        for index in 0..<count {
            let fd = try LoopbackSocket.connect(port: port)
            sockets.append(fd)
            poller.add(fd, token: UInt64(index), events: Int16(POLLIN))
        }
    }

    func close() {
        for fd in sockets {
            poller.remove(fd)
            closeDescriptor(fd)
        }
        sockets = []
    }

    /// Sends each connection one GET for the target `target(index)`.
    func sendToAll(_ target: (Int) -> String) throws {
        for (index, fd) in sockets.enumerated() {
            try LoopbackSocket.writeAll(fd, LoopbackSocket.getRequest(target(index)))
        }
    }

    /// Waits until every connection has delivered one whole answer; returns, per connection, the
    /// milliseconds from `start` to its last byte.
    func readOneAnswerEach(since start: ContinuousClock.Instant) throws -> [Double] {
        var times: [Double] = []
        times.reserveCapacity(sockets.count)
        var pending = sockets.count
        while pending > 0 {
            guard poller.wait(timeout: 30_000, into: &ready) else { throw BenchFailure(message: "poll failed") }
            guard !ready.isEmpty else { throw BenchFailure(message: "\(pending) answers did not arrive in 30 s") }
            for event in ready {
                let index = Int(event.token)
                let fd = sockets[index]
                let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { throw BenchFailure(message: "a connection closed") }
                buffers[index] += scratch[0..<count]
                guard let (length, bodyStart) = ResponseFrame.bodyBounds(buffers[index]),
                    buffers[index].count - bodyStart >= length
                else { continue }
                let elapsed = start.duration(to: ContinuousClock.now)
                times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                if pending == 1 {
                    lastAnswer = String(decoding: buffers[index][bodyStart..<bodyStart + length], as: UTF8.self)
                }
                buffers[index].removeAll(keepingCapacity: true)
                pending -= 1
            }
        }
        return times
    }
}

private func closeDescriptor(_ fd: Int32) { close(fd) }
