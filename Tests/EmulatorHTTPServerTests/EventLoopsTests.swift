import DataSyncTestSupport
import EmulatorHTTP
import PubNubBase
import Testing

/// Parks every request on `/park` and answers anything else `204` at once (in a task).
private struct ParkingHandler: ServerHandler {
    let parked = Locked<[PendingResponse]>([])

    func handle(_ request: ServerRequest) async -> ServerResponse {
        await reply(to: request).response
    }

    func reply(to request: ServerRequest) async -> ServerReply {
        guard request.rawPath == "/park" else { return .response(ServerResponse(status: 204)) }
        let pending = PendingResponse()
        parked.withLock { $0.append(pending) }
        return .pending(pending)
    }
}

private func twoLoops(_ change: (inout HTTPServer.Configuration) -> Void = { _ in }) -> HTTPServer.Configuration {
    serverConfiguration {
        $0.eventLoops = 2
        change(&$0)
    }
}

/// Issue 34 §4: a server with several event loops spreads its connections between them, writes
/// each answer from the loop owning its connection, and keeps its limits and its shutdown for
/// the server as a whole.
@Suite("HTTP server: several event loops", .timeLimit(.minutes(2)))
struct EventLoopsTests {
    @Test(arguments: [EventBackend.automatic, .poll])
    func connectionsAreDealtOutToEveryLoop(backend: EventBackend) async throws {
        let configuration = twoLoops { $0.eventBackend = backend }
        try await withServer(configuration) { server, port in
            var clients: [RawClient] = []
            for _ in 0..<6 {
                let client = try await RawClient.connect(port: port)
                #expect(try await client.get("/status/200").status == 200)
                clients.append(client)
            }
            #expect(server.statistics.connectionsPerLoop == [3, 3])
            #expect(server.statistics.connectionsAccepted == 6)
            #expect(server.statistics.openConnections == 6)
            for client in clients { await client.close() }
            #expect(await eventually { server.statistics.openConnections == 0 })
        }
    }

    @Test func oneLoopTakesEveryConnection() async throws {
        try await withServer(serverConfiguration { $0.eventLoops = 1 }) { server, port in
            for _ in 0..<3 {
                let client = try await RawClient.connect(port: port)
                #expect(try await client.get("/status/200").status == 200)
                await client.close()
            }
            #expect(server.statistics.connectionsPerLoop == [3])
        }
    }

    @Test(arguments: [0, 9])
    func anEventLoopCountOutOfRangeIsRefused(count: Int) async throws {
        let server = HTTPServer(configuration: serverConfiguration { $0.eventLoops = count }, handler: ParkingHandler())
        let error = await #expect(throws: HTTPServerError.self) { try await server.start() }
        #expect(error?.code == .invalidConfiguration)
        await server.stop()
    }

    /// A fan-out over connections of both loops: each loop writes its own share, every client gets
    /// its answer once (a second copy would be read as the answer to the next request), and each
    /// loop serializes the shared answer once.
    @Test(arguments: [EventBackend.automatic, .poll])
    func aFanOutOverBothLoopsAnswersEveryClientOnce(backend: EventBackend) async throws {
        let handler = ParkingHandler()
        let count = 20
        try await withServer(twoLoops { $0.eventBackend = backend }, handler: handler) { server, port in
            var clients: [RawClient] = []
            for _ in 0..<count {
                let client = try await RawClient.connect(port: port)
                try await client.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n")
                clients.append(client)
            }
            #expect(await eventually { server.statistics.parkedResponses == count })
            #expect(server.statistics.connectionsPerLoop == [count / 2, count / 2])
            let answer = ServerResponse(status: 200, body: Array("one for all".utf8))
            for pending in handler.parked.withLock({ $0 }) { pending.succeed(answer) }
            for client in clients { #expect(try await client.response().text == "one for all") }
            #expect(await eventually { server.statistics.responsesSent == count })
            // The shared answer, serialized once by each loop.
            #expect(server.statistics.deliveriesSerialized == 2)
            for client in clients { #expect(try await client.get("/next").status == 204) }
            // Counted just after the last byte goes out, so possibly after the client read it.
            #expect(await eventually { server.statistics.responsesSent == 2 * count })
            #expect(server.statistics.parkedResponses == 0)
            for client in clients { await client.close() }
        }
    }

    /// At the limit a new connection closes the connection idle longest even when that one is on
    /// another loop than the one its turn would give it; with none idle on any loop, it is
    /// answered `503`.
    @Test(arguments: [EventBackend.automatic, .poll])
    func theConnectionLimitCountsAcrossLoops(backend: EventBackend) async throws {
        let handler = ParkingHandler()
        let configuration = twoLoops {
            $0.eventBackend = backend
            $0.maximumConnections = 2
        }
        try await withServer(configuration, handler: handler) { server, port in
            // First on loop 0, parked (busy); second on loop 1, answered and idle.
            let busy = try await RawClient.connect(port: port)
            try await busy.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await eventually { server.statistics.parkedResponses == 1 })
            let idle = try await RawClient.connect(port: port)
            #expect(try await idle.get("/next").status == 204)
            #expect(server.statistics.connectionsPerLoop == [1, 1])

            // The third one's turn is loop 0, whose only connection is busy: loop 1's idle one
            // gives way.
            let third = try await RawClient.connect(port: port)
            #expect(try await idle.readUntilClosed().isEmpty)
            #expect(try await third.get("/next").status == 204)
            var statistics = server.statistics
            #expect(statistics.idleConnectionsEvicted == 1)
            #expect(statistics.connectionsRefused == 0)
            #expect(statistics.connectionsPerLoop == [1, 2])

            // Both busy now: the next one is refused, whichever loop it would have gone to.
            try await third.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await eventually { server.statistics.parkedResponses == 2 })
            let refused = try await RawClient.connect(port: port)
            let answer = try await refused.response()
            #expect(answer.status == 503)
            #expect(answer.header("Retry-After") == "1")
            statistics = server.statistics
            #expect(statistics.connectionsRefused == 1)
            #expect(statistics.idleConnectionsEvicted == 1)
            for client in [busy, third, refused] { await client.close() }
        }
    }

    /// The oldest idle connection goes first across loops: the one on loop 1 was idle before the
    /// one on loop 0, which is the loop that accepts.
    @Test func theOldestIdleConnectionGivesWayWhicheverLoopHoldsIt() async throws {
        let configuration = twoLoops { $0.maximumConnections = 2 }
        try await withServer(configuration, handler: ParkingHandler()) { server, port in
            let newer = try await RawClient.connect(port: port)  // loop 0
            let older = try await RawClient.connect(port: port)  // loop 1
            #expect(try await older.get("/next").status == 204)
            #expect(try await newer.get("/next").status == 204)
            let third = try await RawClient.connect(port: port)
            #expect(try await older.readUntilClosed().isEmpty)
            #expect(try await third.get("/next").status == 204)
            #expect(try await newer.get("/next").status == 204)
            #expect(server.statistics.idleConnectionsEvicted == 1)
            for client in [newer, third] { await client.close() }
        }
    }

    /// A body reserved on one loop counts against a body declared on the other.
    @Test(arguments: [EventBackend.automatic, .poll])
    func theBufferBudgetIsSharedByTheLoops(backend: EventBackend) async throws {
        let configuration = twoLoops {
            $0.eventBackend = backend
            $0.maximumBufferedRequestBytes = 1_000
        }
        try await withServer(configuration) { server, port in
            let first = try await RawClient.connect(port: port)  // loop 0
            try await first.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 800\r\n\r\n")
            #expect(await eventually { server.statistics.bufferedRequestBytes >= 800 })
            let second = try await RawClient.connect(port: port)  // loop 1
            try await second.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 300\r\n\r\n")
            let refused = try await second.response()
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(server.statistics.requestsRefusedForBufferLimit == 1)
            #expect(server.statistics.connectionsPerLoop == [1, 1])
            // The first request, within the budget, still completes.
            try await first.send(String(repeating: "a", count: 800))
            #expect(try await first.response().status == 200)
            #expect(await eventually { server.statistics.bufferedRequestBytes == 0 })
            for client in [first, second] { await client.close() }
        }
    }

    /// `stop()` returns once every loop has closed its connections, held and idle alike.
    @Test(arguments: [EventBackend.automatic, .poll])
    func stoppingClosesTheConnectionsOfEveryLoop(backend: EventBackend) async throws {
        let handler = ParkingHandler()
        let server = HTTPServer(configuration: twoLoops { $0.eventBackend = backend }, handler: handler)
        try await server.start()
        let port = try #require(server.port)
        var clients: [RawClient] = []
        for index in 0..<4 {
            let client = try await RawClient.connect(port: port)
            if index < 2 {
                try await client.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n")
            } else {
                #expect(try await client.get("/next").status == 204)
            }
            clients.append(client)
        }
        #expect(await eventually { server.statistics.parkedResponses == 2 })
        #expect(server.statistics.connectionsPerLoop == [2, 2])
        await server.stop()
        let statistics = server.statistics
        #expect(statistics.openConnections == 0)
        #expect(statistics.parkedResponses == 0)
        #expect(statistics.parkedResponsesCancelled == 2)
        for pending in handler.parked.withLock({ $0 }) { #expect(pending.isSettled) }
        for client in clients {
            #expect(try await client.readUntilClosed().isEmpty)
            await client.close()
        }
    }
}
