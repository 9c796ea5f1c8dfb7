import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import Testing

@Suite("HTTP server: framing, keep-alive, lifecycle")
struct HTTPServerTests {
    @Test func startReportsAnEphemeralPortAndServesARequest() async throws {
        try await withServer { server, port in
            #expect(port != 0)
            let client = try await RawClient.connect(port: port)
            let response = try await client.get("/bytes/5")
            #expect(response.status == 200)
            #expect(response.text == "abcde")
            #expect(response.header("Content-Length") == "5")
            #expect(server.statistics.connectionsAccepted == 1)
        }
    }

    @Test func echoReportsMethodTargetHeadersAndBody() async throws {
        try await withConnection { _, client in
            try await client.send(
                "PUT /echo/a%20b?x=1&y=%C3%A9 HTTP/1.1\r\nHost: x\r\nX-Custom:  spaced value \r\nContent-Length: 5\r\n\r\nhello"
            )
            let response = try await client.response()
            #expect(response.status == 200)
            let echo = try JSONValue(parsing: response.body)
            #expect(echo["method"] == "PUT")
            #expect(echo["target"] == "/echo/a%20b?x=1&y=%C3%A9")
            #expect(echo["path"] == "/echo/a%20b")
            #expect(echo["query"] == "x=1&y=%C3%A9")
            #expect(echo["body"] == "hello")
            #expect(echo["bodyLength"] == 5)
            let headers = try #require(echo["headers"]?.arrayValue)
            #expect(headers.contains(["name": "X-Custom", "value": "spaced value"]))
        }
    }

    @Test func keepAliveServesSequentialRequestsOnOneConnection() async throws {
        try await withConnection { server, client in
            for size in [1, 2, 3] {
                let response = try await client.get("/bytes/\(size)")
                #expect(response.body == HTTPTestingHandler.pattern(size))
                #expect(response.header("Connection") == nil)
            }
            let statistics = server.statistics
            #expect(statistics.connectionsAccepted == 1)
            #expect(statistics.requestsReceived == 3)
            #expect(statistics.openConnections == 1)
        }
    }

    @Test(arguments: eventBackends)
    func pipelinedRequestsAreAnsweredInOrder(backend: EventBackend) async throws {
        try await withConnection(serverConfiguration { $0.eventBackend = backend }) { server, client in
            try await client.send(
                "GET /delay/20 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                    + "GET /bytes/4 HTTP/1.1\r\nHost: x\r\n\r\n")
            let first = try await client.response()
            let second = try await client.response()
            let third = try await client.response()
            #expect(first.text == "delayed")
            #expect(try JSONValue(parsing: second.body)["body"] == "abc")
            #expect(third.text == "abcd")
            #expect(server.statistics.connectionsAccepted == 1)
        }
    }

    @Test func chunkedRequestBodyIsDechunked() async throws {
        try await withConnection { _, client in
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n1;name=value\r\n \r\nA \r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n")
            let response = try await client.response()
            #expect(response.status == 200)
            let echo = try JSONValue(parsing: response.body)
            #expect(echo["body"] == "hello 0123456789")
            // The connection stays usable: the chunked body was framed exactly.
            #expect(try await client.get("/bytes/2").text == "ab")
        }
    }

    @Test func chunkedRequestBodyArrivingByteByByte() async throws {
        // Each byte is its own send from its own thread; on a loaded machine the 70 sends can take
        // longer than the default 30 s request deadline, which is not what this test is about.
        try await withConnection(
            serverConfiguration {
                $0.requestTimeout = .seconds(600)
                $0.idleTimeout = .seconds(600)
            }
        ) { _, client in
            let request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            for byte in request.utf8 { try await client.send([byte]) }
            let response = try await client.response()
            #expect(try JSONValue(parsing: response.body)["body"] == "abc")
        }
    }

    @Test func expectContinueGetsAnInterimResponseBeforeTheBody() async throws {
        try await withConnection { _, client in
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = try await client.response()
            #expect(interim.status == 100)
            try await client.send("hello")
            let response = try await client.response()
            #expect(response.status == 200)
            #expect(try JSONValue(parsing: response.body)["body"] == "hello")
        }
    }

    @Test func expectContinueWithTooLargeBodyGets413WithoutContinue() async throws {
        try await withConnection(serverConfiguration { $0.maximumBodyBytes = 10 }) { _, client in
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n")
            let response = try await client.response()
            #expect(response.status == 413)
            #expect(response.header("Connection") == "close")
            #expect(try await client.readUntilClosed().isEmpty)
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withConnection { server, client in
            let response = try await client.get("/bytes/3", headers: "Connection: close\r\n")
            #expect(response.text == "abc")
            #expect(response.header("Connection") == "close")
            #expect(try await client.readUntilClosed().isEmpty)
            #expect(server.statistics.responsesSent == 1)
        }
    }

    @Test func handlerCanAskToClose() async throws {
        try await withConnection { _, client in
            let response = try await client.get("/bytes/1?close=1")
            #expect(response.header("Connection") == "close")
            #expect(try await client.readUntilClosed().isEmpty)
        }
    }

    @Test(arguments: [("", true), ("Connection: keep-alive\r\n", false)])
    func http10ClosesUnlessKeepAlive(extraHeader: String, closes: Bool) async throws {
        try await withConnection { _, client in
            try await client.send("GET /bytes/2 HTTP/1.0\r\n\(extraHeader)\r\n")
            let response = try await client.response()
            #expect(response.text == "ab")
            #expect(response.header("Connection") == (closes ? "close" : "keep-alive"))
            if closes {
                #expect(try await client.readUntilClosed().isEmpty)
            } else {
                try await client.send("GET /bytes/1 HTTP/1.0\r\nConnection: close\r\n\r\n")
                #expect(try await client.response().text == "a")
            }
        }
    }

    @Test func headResponseHasLengthButNoBody() async throws {
        try await withConnection { _, client in
            try await client.send("HEAD /bytes/10 HTTP/1.1\r\nHost: x\r\n\r\nGET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try await client.response(to: "HEAD")
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "10")
            // If HEAD had carried a body, the next response would start with "abcdefghij".
            let next = try await client.response()
            #expect(next.status == 200)
            #expect(next.text == "abc")
        }
    }

    @Test(arguments: [204, 304])
    func bodylessStatusesHaveNoBodyOrLength(status: Int) async throws {
        try await withConnection { _, client in
            try await client.send(
                "GET /status/\(status) HTTP/1.1\r\nHost: x\r\n\r\nGET /bytes/2 HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.response()
            #expect(response.status == status)
            #expect(response.header("Content-Length") == nil)
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(try await client.response().text == "ab")
        }
    }

    @Test func errorStatusesCarryTheirBody() async throws {
        try await withConnection { _, client in
            for status in [400, 404, 429, 500, 503] {
                let response = try await client.get("/status/\(status)")
                #expect(response.status == status)
                #expect(response.text == "status \(status)")
            }
        }
    }

    @Test func handlerFramingHeadersAreReplacedByTheServer() async throws {
        struct LyingHandler: ServerHandler {
            func handle(_ request: ServerRequest) async -> ServerResponse {
                ServerResponse(
                    status: 200,
                    headers: [
                        (name: "Content-Length", value: "999"), (name: "Transfer-Encoding", value: "chunked"),
                        (name: "X-Bad", value: "a\r\nInjected: yes"), (name: "X-Good", value: "ok"),
                    ], body: Array("four".utf8))
            }
        }
        try await withConnection(handler: LyingHandler()) { _, client in
            let response = try await client.get("/")
            #expect(response.header("Content-Length") == "4")
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.header("Injected") == nil)
            #expect(response.header("X-Bad") == nil)
            #expect(response.header("X-Good") == "ok")
            #expect(response.text == "four")
        }
    }

    @Test func invalidHandlerStatusBecomes500() async throws {
        struct OddHandler: ServerHandler {
            func handle(_ request: ServerRequest) async -> ServerResponse { ServerResponse(status: 42) }
        }
        try await withConnection(handler: OddHandler()) { _, client in
            let response = try await client.get("/")
            #expect(response.status == 500)
        }
    }

    @Test func listensOnIPv6Loopback() async throws {
        try await withServer(HTTPServer.Configuration(host: "::1")) { _, port in
            let client = try await RawClient.connect(port: port, host: "::1")
            try await client.send("GET /bytes/1 HTTP/1.1\r\nHost: [::1]\r\n\r\n")
            #expect(try await client.response().text == "a")
        }
    }

    @Test func startingTwiceFails() async throws {
        try await withServer { server, _ in
            let error = await #expect(throws: HTTPServerError.self) { try await server.start() }
            #expect(error?.code == .alreadyStarted)
        }
    }

    @Test func invalidHostFails() async throws {
        let server = HTTPServer(configuration: .init(host: "example.com"), handler: HTTPTestingHandler())
        let error = await #expect(throws: HTTPServerError.self) { try await server.start() }
        #expect(error?.code == .invalidAddress)
        #expect(server.port == nil)
    }

    @Test func portInUseFails() async throws {
        try await withServer { _, port in
            let second = HTTPServer(configuration: .init(port: port), handler: HTTPTestingHandler())
            let error = await #expect(throws: HTTPServerError.self) { try await second.start() }
            #expect(error?.code == .bindFailed)
        }
    }

    @Test func stopWithoutStartAndTwiceReturns() async throws {
        let idle = HTTPServer(handler: HTTPTestingHandler())
        await idle.stop()
        #expect(idle.statistics == HTTPServer.Statistics())
        let server = HTTPServer(handler: HTTPTestingHandler())
        try await server.start()
        await server.stop()
        await server.stop()
        #expect(server.statistics.openConnections == 0)
    }

    @Test func droppingAServerWithoutStopClosesItsConnections() async throws {
        var server: HTTPServer? = HTTPServer(handler: HTTPTestingHandler())
        try await server?.start()
        let port = try #require(server?.port)
        let client = try await RawClient.connect(port: port)
        #expect(try await client.get("/bytes/1").text == "a")
        server = nil
        #expect(try await client.readUntilClosed().isEmpty)
    }

    @Test(arguments: eventBackends)
    func clientDisconnectCancelsTheHandler(backend: EventBackend) async throws {
        let recorder = EventRecorder()
        try await withConnection(serverConfiguration { $0.eventBackend = backend }, handler: recorder.handler) {
            server, client in
            try await client.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = await recorder.wait(for: 1) { $0.isStarted }
            #expect(server.statistics.openConnections == 1)
            await client.close()
            let cancelled = await recorder.wait(for: 1) { $0.isCancelled }
            #expect(cancelled.first?.request.target == "/hold")
            let statistics = server.statistics
            #expect(statistics.openConnections == 0)
            #expect(statistics.handlersCancelled == 1)
            #expect(statistics.responsesSent == 0)
        }
    }

    @Test(arguments: eventBackends)
    func thousandHeldRequestsThenStop(backend: EventBackend) async throws {
        let recorder = EventRecorder()
        let count = 1000
        raiseOpenFileLimit(to: 4 * count + 256)
        var configuration = HTTPServer.Configuration()
        configuration.eventBackend = backend
        let server = HTTPServer(configuration: configuration, handler: recorder.handler)
        try await server.start()
        let port = try #require(server.port)
        let sockets = try await onThread {
            try (0..<count).map { _ in
                let socket = try RawSocket(port: port, timeout: 20)
                try socket.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
                return socket
            }
        }
        let started = await recorder.wait(for: count) { $0.isStarted }
        #expect(started.count == count)
        #expect(server.statistics.openConnections == count)
        await server.stop()
        let statistics = server.statistics
        #expect(statistics.openConnections == 0)
        #expect(statistics.connectionsAccepted == count)
        #expect(statistics.handlersCancelled == count)
        // stop() awaited every handler task, so every cancellation has been observed already.
        let cancelled = await recorder.wait(for: count) { $0.isCancelled }
        #expect(cancelled.count == count)
        let closedByServer = try await onThread {
            var closed = 0
            for socket in sockets {
                if try socket.readUntilClosed().isEmpty { closed += 1 }
                socket.close()
            }
            return closed
        }
        #expect(closedByServer == count)
    }
}
