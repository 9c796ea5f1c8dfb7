import DataSyncEmulator
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The emulator's pub/sub bus over loopback HTTP, driven by raw keep-alive sockets: publish
/// throughput, publish-to-deliver latency with 1, 100 and 1,000 long-polls held on one channel,
/// fan-out throughput and memory per held subscriber.
enum PubSubBenchmarks {

    static func run() async throws -> [BenchRow] {
        let emulator = try Emulator(configuration: EmulatorConfiguration())
        let url = try await emulator.start()
        defer { Task { await emulator.stop() } }
        guard let port = url.port.flatMap(UInt16.init(exactly:)) else { throw BenchFailure(message: "no port") }
        var rows: [BenchRow] = []
        let publish = try await LoopbackSocket.onThread {
            try sequential(port: port, target: "/publish/demo/demo/0/bench/0/%22hi%22")
        }
        let time = try await LoopbackSocket.onThread { try sequential(port: port, target: "/time/0") }
        rows.append(
            BenchRow(
                scenario: "pub/sub: sequential GET publishes, keep-alive", unit: "req/s", ours: publish,
                baselineName: "GET /time/0, same emulator", baseline: time))
        for (clients, rounds) in Bench.scale([(1, 200), (100, 20), (1000, 5)], smoke: [(1, 3), (10, 2), (1000, 1)]) {
            let figures = try await fanOut(emulator: emulator, port: port, clients: clients, rounds: rounds)
            rows.append(
                BenchRow(
                    scenario: "pub/sub: publish→deliver p50, \(clients) long-poll(s) on one channel", unit: "ms",
                    ours: figures.p50, higherIsBetter: false))
            rows.append(
                BenchRow(
                    scenario: "pub/sub: publish→deliver p99, \(clients) long-poll(s) on one channel", unit: "ms",
                    ours: figures.p99, higherIsBetter: false))
            if clients == 1000 {
                rows.append(
                    BenchRow(
                        scenario: "pub/sub: fan-out, 1,000 subscribers", unit: "deliveries/s", ours: figures.fanOut))
                if let before = figures.residentBefore, let held = figures.residentWhileHeld {
                    rows.append(
                        BenchRow(
                            scenario:
                                "pub/sub: memory per held subscriber (RSS delta / 1,000, heap trimmed, least of 5 rounds)",
                            unit: "bytes", ours: Double(max(0, held - before)) / 1000, baselineName: "goal (issue 34)",
                            baseline: 4096, higherIsBetter: false))
                }
                if let before = figures.liveBefore, let held = figures.liveWhileHeld {
                    rows.append(
                        BenchRow(
                            scenario: "pub/sub: live heap per held subscriber (malloc in use, delta / 1,000)",
                            unit: "bytes", ours: Double(max(0, held - before)) / 1000))
                }
            }
        }
        return rows
    }

    private struct FanOut {
        var p50: Double
        var p99: Double
        var fanOut: Double
        var residentWhileHeld: Int?
        /// Before the subscribers' connections were opened.
        var residentBefore: Int?
        /// Bytes malloc has handed out and not had back (every arena), at the same two moments:
        /// what the held subscribers keep alive, without the free memory trim cannot return.
        var liveWhileHeld: Int?
        var liveBefore: Int?
    }

    /// The bytes in use in every malloc arena plus mmapped chunks: glibc's `malloc_stats` (looked
    /// up at run time like `malloc_trim`; `mallinfo2` returns a struct Swift cannot call through a
    /// pointer) prints them on standard error, which is pointed at a pipe for the call. Nil where
    /// it is missing.
    static func liveHeapBytes() -> Int? {
        #if canImport(Glibc)
            typealias Stats = @convention(c) () -> Void
            guard let symbol = dlsym(nil, "malloc_stats") else { return nil }
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { return nil }
            let saved = dup(2)
            dup2(ends[1], 2)
            unsafeBitCast(symbol, to: Stats.self)()
            dup2(saved, 2)
            close(saved)
            close(ends[1])
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(ends[0], &buffer, buffer.count)
                guard count > 0 else { break }
                bytes += buffer[0..<count]
            }
            close(ends[0])
            if ProcessInfo.processInfo.environment["PUBSUB_BENCH_MALLOC_STATS"] == "1" {
                // Per arena, for telling live bytes from the free space each arena keeps.
                FileHandle.standardError.write(Data(bytes))
            }
            // The last "in use bytes" line is the total over the arenas and mmapped chunks.
            let text = String(decoding: bytes, as: UTF8.self)
            guard let total = text.components(separatedBy: "Total (incl. mmap):").last,
                let line = total.split(separator: "\n").first(where: { $0.contains("in use bytes") }),
                let value = line.split(separator: "=").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            else { return nil }
            return value
        #else
            return nil
        #endif
    }

    private static func fanOut(emulator: Emulator, port: UInt16, clients: Int, rounds: Int) async throws -> FanOut {
        let channel = "fan\(clients)"
        let residentBefore = SubscriptionsBench.heapBytes()
        let liveBefore = liveHeapBytes()
        let sockets = try await LoopbackSocket.onThread {
            try (0..<clients).map { _ in try LoopbackSocket.connect(port: port) }
        }
        defer { for fd in sockets { close(fd) } }
        let publisher = try await LoopbackSocket.onThread { try LoopbackSocket.connect(port: port) }
        defer { close(publisher) }
        var cursor = try await LoopbackSocket.onThread { () throws -> UInt64 in
            let reply = try exchange(publisher, "/v2/subscribe/demo/\(channel)/0?tt=0&uuid=bench")
            return try LoopbackSocket.subscribeCursor(in: reply)
        }
        var latencies: [Double] = []
        var fanOutRates: [Double] = []
        var resident: Int?
        var live: Int?
        for _ in 0..<rounds {
            let tt = cursor
            try await LoopbackSocket.onThread {
                for (index, fd) in sockets.enumerated() {
                    try LoopbackSocket.writeAll(
                        fd, LoopbackSocket.getRequest("/v2/subscribe/demo/\(channel)/0?tt=\(tt)&uuid=s\(index)"))
                }
            }
            while emulator.heldSubscribeCount < clients { try await Task.sleep(for: .milliseconds(2)) }
            if clients >= 1000 {
                // Outside any timing: let the server take in the last parked requests (their tasks
                // end just after they are counted as held), then read; the smallest reading over
                // the rounds, since the first round also pays the burst of 1,000 requests' tasks
                // arriving at once, which malloc keeps as fragmented free memory.
                try await Task.sleep(for: .milliseconds(100))
                if let reading = SubscriptionsBench.heapBytes() { resident = min(resident ?? reading, reading) }
                if let reading = liveHeapBytes() { live = min(live ?? reading, reading) }
                // For heaptrack: everything still allocated at exit is what the held subscribers
                // (and the process's long-lived state) keep, listed by the call that allocated it.
                if ProcessInfo.processInfo.environment["PUBSUB_BENCH_EXIT_HELD"] == "1" { exit(0) }
            }
            let (times, next) = try await LoopbackSocket.onThread { () throws -> ([Double], UInt64) in
                let start = ContinuousClock.now
                try LoopbackSocket.writeAll(
                    publisher, LoopbackSocket.getRequest("/publish/demo/demo/0/\(channel)/0/%22tick%22"))
                var times: [Double] = []
                var last = ""
                try readAll(sockets) { text in
                    let elapsed = start.duration(to: ContinuousClock.now)
                    times.append(
                        Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
                    last = text
                }
                _ = try LoopbackSocket.readResponse(publisher)
                return (times, try LoopbackSocket.subscribeCursor(in: last))
            }
            latencies += times
            if let slowest = times.max(), slowest > 0 { fanOutRates.append(Double(clients) / (slowest / 1000)) }
            cursor = next
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        return FanOut(
            p50: percentile(0.5), p99: percentile(0.99), fanOut: fanOutRates.max() ?? 0, residentWhileHeld: resident,
            residentBefore: residentBefore, liveWhileHeld: live, liveBefore: liveBefore)
    }

    // MARK: Sockets

    private static func sequential(port: UInt16, target: String) throws -> Double {
        let fd = try LoopbackSocket.connect(port: port)
        defer { close(fd) }
        _ = try exchange(fd, target)
        let batch = 1000
        return try Bench.throughput(operations: batch, minimumTime: .seconds(1)) {
            for _ in 0..<batch { _ = try exchange(fd, target) }
        }
    }

    private static func exchange(_ fd: Int32, _ target: String) throws -> String {
        try LoopbackSocket.writeAll(fd, LoopbackSocket.getRequest(target))
        return try LoopbackSocket.readResponse(fd)
    }

    /// Waits with poll(2) until every socket has delivered one response, calling `done` as each completes.
    private static func readAll(_ sockets: [Int32], done: (String) -> Void) throws {
        var pending = Set(sockets)
        while !pending.isEmpty {
            var fds = pending.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), 10_000)
            guard ready > 0 else { throw BenchFailure(message: "subscribers timed out") }
            for entry in fds where entry.revents != 0 {
                done(try LoopbackSocket.readResponse(entry.fd))
                pending.remove(entry.fd)
            }
        }
    }

}
