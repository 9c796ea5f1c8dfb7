import EmulatorHTTP
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
        let count = 500
        return try await Bench.throughputAsync(operations: count, minimumTime: .seconds(2)) {
            for _ in 0..<count {
                let response = try await client.send(request)
                guard response.status == 200 else { throw BenchFailure(message: "status \(response.status)") }
            }
        }
    }

    private static func concurrent(_ client: any HTTPClient, _ request: HTTPRequest) async throws -> Double {
        let width = 16
        let perTask = 100
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
