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

    private struct BenchError: Error, CustomStringConvertible {
        var description: String
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
        var rows = [
            BenchRow(
                scenario: "server: sequential small GETs, keep-alive", unit: "req/s", ours: ours.idle,
                baselineName: "same server on poll(2)", baseline: poll.idle),
            BenchRow(
                scenario: "server: same, with 1,000 held requests open", unit: "req/s", ours: ours.busy,
                baselineName: "same server on poll(2)", baseline: poll.busy),
        ]
        if let bytes = ours.bytesPerHeld {
            rows.append(
                BenchRow(
                    scenario: "server: memory per held request (RSS delta / 1,000)", unit: "bytes", ours: bytes,
                    higherIsBetter: false))
        }
        return rows
    }

    private static func measure(backend: EventBackend) async throws -> Figures {
        var configuration = HTTPServer.Configuration()
        configuration.eventBackend = backend
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
        guard let port = server.port else { throw BenchError(description: "no port") }
        let idle = try await onThread { try sequentialGets(port: port) }

        let before = Bench.residentBytes()
        let held = 1000
        let received = server.statistics.requestsReceived
        let sockets = try await onThread {
            try (0..<held).map { _ in
                let fd = try connect(port: port)
                try writeAll(fd, Array("GET /hold HTTP/1.1\r\nHost: bench\r\n\r\n".utf8))
                return fd
            }
        }
        defer { for fd in sockets { close(fd) } }
        // Outside any measurement: wait until every held request has reached the handler.
        while server.statistics.requestsReceived < received + held { try await Task.sleep(for: .milliseconds(10)) }
        let after = Bench.residentBytes()
        let busy = try await onThread { try sequentialGets(port: port) }
        let bytesPerHeld = before.flatMap { before in after.map { Double(max(0, $0 - before)) / Double(held) } }
        return Figures(idle: idle, busy: busy, bytesPerHeld: bytesPerHeld)
    }

    /// Runs blocking socket work on a thread of its own, never on a cooperative thread.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    private static func sequentialGets(port: UInt16) throws -> Double {
        let fd = try connect(port: port)
        defer { close(fd) }
        let request = Array("GET /small HTTP/1.1\r\nHost: bench\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Learn the exact response length once, then read exactly that much per request.
        try writeAll(fd, request)
        var first: [UInt8] = []
        while first.firstRange(of: [13, 10, 13, 10]) == nil { first += try readSome(fd, into: &buffer) }
        let responseLength = first.count
        let batch = 2000
        return try Bench.throughput(operations: batch, minimumTime: .seconds(1)) {
            for _ in 0..<batch {
                try writeAll(fd, request)
                var received = 0
                while received < responseLength { received += try readSome(fd, into: &buffer).count }
            }
        }
    }

    private static func connect(port: UInt16) throws -> Int32 {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw BenchError(description: "socket() failed") }
        var noDelay: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        _ = inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw BenchError(description: "connect() failed")
        }
        return fd
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return send(fd, base + offset, raw.count - offset, 0)
            }
            guard written > 0 else { throw BenchError(description: "send() failed") }
            offset += written
        }
    }

    private static func readSome(_ fd: Int32, into buffer: inout [UInt8]) throws -> ArraySlice<UInt8> {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw BenchError(description: "connection closed") }
        return buffer[0..<count]
    }
}
