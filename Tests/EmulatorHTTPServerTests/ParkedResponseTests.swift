import DataSyncTestSupport
import EmulatorHTTP
import PubNubBase
import Testing

/// Parks every request on `/park` (its pending answer goes to `parked`, cancellations are counted)
/// and answers anything else at once.
private struct ParkingHandler: ServerHandler {
    let parked = Locked<[PendingResponse]>([])
    let cancellations = Locked(0)

    func handle(_ request: ServerRequest) async -> ServerResponse {
        await reply(to: request).response
    }

    func reply(to request: ServerRequest) async -> ServerReply {
        guard request.rawPath == "/park" else { return .response(ServerResponse(status: 204)) }
        let pending = PendingResponse()
        let cancellations = self.cancellations
        pending.onCancel { cancellations.withLock { $0 += 1 } }
        parked.withLock { $0.append(pending) }
        return .pending(pending)
    }
}

@Suite("HTTP server: parked answers", .timeLimit(.minutes(2)))
struct ParkedResponseTests {
    @Test(arguments: [EventBackend.automatic, .poll])
    func aParkedRequestHoldsNoTaskAndIsAnsweredWhenCompleted(backend: EventBackend) async throws {
        let handler = ParkingHandler()
        var configuration = HTTPServer.Configuration()
        configuration.eventBackend = backend
        try await withServer(configuration, handler: handler) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await eventually { server.statistics.parkedResponses == 1 })
            // Parked: the request's task has ended, and nothing else waits for the answer.
            #expect(server.statistics.handlerTasksRunning == 0)
            let pending = try #require(handler.parked.withLock { $0.first })
            pending.map { response in
                var response = response
                response.headers.append((name: "X-Mapped", value: "yes"))
                return response
            }
            pending.succeed(ServerResponse(status: 200, body: Array("later".utf8)))
            let response = try await client.response()
            #expect(response.status == 200)
            #expect(response.text == "later")
            #expect(response.header("X-Mapped") == "yes")
            #expect(server.statistics.parkedResponses == 0)
            // The connection goes on serving requests after a parked answer.
            try await client.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.response().status == 204)
            #expect(handler.cancellations.withLock { $0 } == 0)
            await client.close()
        }
    }

    /// Issue 34 §4: delivering one answer to N parked requests is one serialization and N
    /// writes, and a connection going from held to answered to held again changes no poller
    /// registration (two `epoll_ctl` calls per answer before).
    @Test(arguments: [EventBackend.automatic, .poll])
    func aFanOutIsSerializedOnceAndChangesNoRegistration(backend: EventBackend) async throws {
        let handler = ParkingHandler()
        var configuration = HTTPServer.Configuration()
        configuration.eventBackend = backend
        // One loop: with more, each serializes the shared answer once (`EventLoopsTests`).
        configuration.eventLoops = 1
        try await withServer(configuration, handler: handler) { server, port in
            var clients: [RawClient] = []
            for _ in 0..<10 {
                let client = try await RawClient.connect(port: port)
                try await client.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n")
                clients.append(client)
            }
            #expect(await eventually { server.statistics.parkedResponses == 10 })
            let answer = ServerResponse(status: 200, body: Array("the same for all".utf8))
            for pending in handler.parked.withLock({ $0 }) { pending.succeed(answer) }
            for client in clients { #expect(try await client.response().text == "the same for all") }
            // One more exchange on a connection that was parked, so the counters are published.
            try await clients[0].send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await clients[0].response().status == 204)
            let statistics = server.statistics
            #expect(statistics.deliveriesSerialized == 2)
            #expect(statistics.interestChanges == 0)
            for client in clients { await client.close() }
        }
    }

    /// Issue 34 §2: a parked connection keeps no input buffer, no parser copy of the request and
    /// no target or headers: only what frames its answer. (Before, the buffer's capacity, the
    /// parser's head and the connection's head stayed for as long as the answer was parked.)
    @Test func aParkedConnectionKeepsNoRequestBuffersOrParsedHead() async throws {
        let handler = ParkingHandler()
        try await withServer(handler: handler) { server, port in
            let client = try await RawClient.connect(port: port)
            let padding = String(repeating: "p", count: 2048)
            try await client.send(
                "GET /park?cursor=\(padding) HTTP/1.1\r\nHost: x\r\nX-Padding: \(padding)\r\nUser-Agent: a-long-client-name/1.0\r\n\r\n"
            )
            #expect(await eventually { server.statistics.parkedResponses == 1 })
            #expect(server.statistics.lastParkedRequestBytes == 0)
            let pending = try #require(handler.parked.withLock { $0.first })
            pending.succeed(ServerResponse(status: 200, body: Array("framed".utf8)))
            let response = try await client.response()
            #expect(response.status == 200)
            #expect(response.text == "framed")
            // Still keep-alive: the framing fields were kept.
            try await client.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.response().status == 204)
            await client.close()
        }
    }

    /// A request pipelined behind a parked one stays buffered while the first waits, and is
    /// answered after it.
    @Test func aRequestPipelinedBehindAParkedOneIsKeptAndAnsweredAfterIt() async throws {
        let handler = ParkingHandler()
        try await withServer(handler: handler) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await eventually { server.statistics.parkedResponses == 1 })
            #expect(server.statistics.lastParkedRequestBytes > 0)
            let pending = try #require(handler.parked.withLock { $0.first })
            pending.succeed(ServerResponse(status: 200, body: Array("first".utf8)))
            #expect(try await client.response().text == "first")
            #expect(try await client.response().status == 204)
            await client.close()
        }
    }

    @Test func anAnswerCompletedBeforeTheServerTookItIsStillSent() async throws {
        struct EagerHandler: ServerHandler {
            func handle(_ request: ServerRequest) async -> ServerResponse { await reply(to: request).response }
            func reply(to request: ServerRequest) async -> ServerReply {
                let pending = PendingResponse()
                pending.succeed(ServerResponse(status: 200, body: Array("early".utf8)))
                return .pending(pending)
            }
        }
        try await withServer(handler: EagerHandler()) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.response().text == "early")
            #expect(await eventually { server.statistics.parkedResponses == 0 })
            await client.close()
        }
    }

    @Test(arguments: [EventBackend.automatic, .poll])
    func closingTheConnectionCancelsTheParkedAnswerEveryCycle(backend: EventBackend) async throws {
        let handler = ParkingHandler()
        var configuration = HTTPServer.Configuration()
        configuration.eventBackend = backend
        let cycles = 50
        try await withServer(configuration, handler: handler) { server, port in
            for cycle in 1...cycles {
                let client = try await RawClient.connect(port: port)
                try await client.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(await eventually { server.statistics.parkedResponses == 1 })
                await client.close()
                #expect(await eventually { handler.cancellations.withLock { $0 } == cycle })
                #expect(await eventually { server.statistics.parkedResponses == 0 })
            }
            let statistics = server.statistics
            #expect(statistics.parkedResponsesCancelled == cycles)
            #expect(statistics.handlersCancelled == 0)
            #expect(statistics.handlerTasksRunning == 0)
            #expect(statistics.openConnections == 0)
            // A late completion of a cancelled answer is dropped, not written anywhere.
            for pending in handler.parked.withLock({ $0 }) {
                pending.succeed(ServerResponse(status: 200))
                #expect(pending.isSettled)
            }
            #expect(server.statistics.responsesSent == 0)
        }
    }

    @Test func stoppingTheServerCancelsParkedAnswers() async throws {
        let handler = ParkingHandler()
        let server = HTTPServer(handler: handler)
        try await server.start()
        let port = try #require(server.port)
        let clients = try await withThrowingTaskGroup(of: RawClient.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    let client = try await RawClient.connect(port: port)
                    try await client.send("GET /park HTTP/1.1\r\nHost: x\r\n\r\n")
                    return client
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(await eventually { server.statistics.parkedResponses == 5 })
        await server.stop()
        #expect(handler.cancellations.withLock { $0 } == 5)
        #expect(server.statistics.parkedResponsesCancelled == 5)
        for client in clients { await client.close() }
    }

    @Test func aDirectCallerAwaitsTheAnswerAndCancellingItCancelsTheAnswer() async throws {
        let handler = ParkingHandler()
        let waiting = Task { await handler.handle(ServerRequest(method: "GET", target: "/park")) }
        #expect(await eventually { handler.parked.withLock { $0.count } == 1 })
        waiting.cancel()
        #expect(await waiting.value.status == 503)
        #expect(handler.cancellations.withLock { $0 } == 1)

        let answered = Task { await handler.handle(ServerRequest(method: "GET", target: "/park")) }
        #expect(await eventually { handler.parked.withLock { $0.count } == 2 })
        let pending = try #require(handler.parked.withLock { $0.last })
        pending.mapAsync { response in
            var response = response
            response.status = 202
            return response
        }
        pending.succeed(ServerResponse(status: 200))
        #expect(await answered.value.status == 202)
    }
}
