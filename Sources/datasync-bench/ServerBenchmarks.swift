import EmulatorHTTP
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The emulator's HTTP server alone: a raw keep-alive socket client (no HTTP client library in the
/// way) sends small GETs one after another and reads each response byte-exactly.
enum ServerBenchmarks {
    private struct SmallHandler: ServerHandler {
        func handle(_ request: ServerRequest) async -> ServerResponse {
            if request.rawPath == "/hold" {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            }
            return ServerResponse(
                status: 200, headers: [(name: "Content-Type", value: "text/plain")], body: Array("ok".utf8))
        }
    }

    private struct Figures {
        var idle: Double
        var busy: Double
        var bytesPerHeld: Double?
    }

    static func run() async throws -> [BenchRow] {
        // epoll first: the RSS delta is only meaningful in a process that has not yet held
        // (and freed) 1,000 requests, so the poll(2) run's memory is not reported.
        let ours = try await measure(backend: .automatic)
        let poll = try await measure(backend: .poll)
        // One event loop against the default (two on a machine with two cores): one client's
        // GETs ride one connection, on one loop either way, so this shows what the loops cost.
        let oneLoop = try await measure(backend: .automatic, eventLoops: 1)
        let loops = HTTPServer.Configuration().eventLoops
        var rows = [
            BenchRow(
                scenario: "server: sequential small GETs, keep-alive", unit: "req/s", ours: ours.idle,
                baselineName: "same server on poll(2)", baseline: poll.idle),
            BenchRow(
                scenario: "server: same, with 1,000 held requests open", unit: "req/s", ours: ours.busy,
                baselineName: "same server on poll(2)", baseline: poll.busy),
            BenchRow(
                scenario: "server: sequential small GETs, keep-alive, \(loops) event loops (the default)",
                unit: "req/s", ours: ours.idle, baselineName: "same server with 1 event loop", baseline: oneLoop.idle),
            BenchRow(
                scenario: "server: same, with 1,000 held requests open, \(loops) event loops", unit: "req/s",
                ours: ours.busy, baselineName: "same server with 1 event loop", baseline: oneLoop.busy),
        ]
        if let bytes = ours.bytesPerHeld {
            rows.append(
                BenchRow(
                    scenario: "server: memory per held request (RSS delta / 1,000)", unit: "bytes", ours: bytes,
                    higherIsBetter: false))
        }
        return rows
    }

    private static func measure(backend: EventBackend, eventLoops: Int? = nil) async throws -> Figures {
        var configuration = HTTPServer.Configuration()
        configuration.eventBackend = backend
        if let eventLoops { configuration.eventLoops = eventLoops }
        let server = HTTPServer(configuration: configuration, handler: SmallHandler())
        try await server.start()
        do {
            let figures = try await measure(server)
            await server.stop()
            return figures
        } catch {
            await server.stop()
            throw error
        }
    }

    private static func measure(_ server: HTTPServer) async throws -> Figures {
        guard let port = server.port else { throw BenchFailure(message: "no port") }
        let idle = try await LoopbackSocket.onThread { try sequentialGets(port: port) }

        let before = Bench.residentBytes()
        let held = Bench.scale(1000, smoke: 20)
        let received = server.statistics.requestsReceived
        let sockets = try await LoopbackSocket.onThread {
            try (0..<held).map { _ in
                let fd = try LoopbackSocket.connect(port: port)
                try LoopbackSocket.writeAll(fd, Array("GET /hold HTTP/1.1\r\nHost: bench\r\n\r\n".utf8))
                return fd
            }
        }
        defer { for fd in sockets { close(fd) } }
        // Outside any measurement: wait until every held request has reached the handler.
        while server.statistics.requestsReceived < received + held { try await Task.sleep(for: .milliseconds(10)) }
        let after = Bench.residentBytes()
        let busy = try await LoopbackSocket.onThread { try sequentialGets(port: port) }
        let bytesPerHeld = before.flatMap { before in after.map { Double(max(0, $0 - before)) / Double(held) } }
        return Figures(idle: idle, busy: busy, bytesPerHeld: bytesPerHeld)
    }

    private static func sequentialGets(port: UInt16) throws -> Double {
        let fd = try LoopbackSocket.connect(port: port)
        defer { close(fd) }
        let request = Array("GET /small HTTP/1.1\r\nHost: bench\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Learn the exact response length once, then read exactly that much per request.
        try LoopbackSocket.writeAll(fd, request)
        var first: [UInt8] = []
        while first.firstRange(of: [13, 10, 13, 10]) == nil { first += try LoopbackSocket.readSome(fd, into: &buffer) }
        let responseLength = first.count
        let batch = Bench.scale(2000, smoke: 50)
        return try Bench.throughput(operations: batch, minimumTime: .seconds(1)) {
            for _ in 0..<batch {
                try LoopbackSocket.writeAll(fd, request)
                var received = 0
                while received < responseLength { received += try LoopbackSocket.readSome(fd, into: &buffer).count }
            }
        }
    }

}
