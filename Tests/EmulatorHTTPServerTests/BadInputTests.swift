import DataSyncTestSupport
import EmulatorHTTP
import Testing

@Suite("HTTP server: bad input is rejected, never crashes or wedges")
struct BadInputTests {
    /// Sends `request`, expects `status` and then the connection closed, and checks the server
    /// still serves a fresh connection afterwards.
    private func expectRejected(
        _ request: [UInt8], status: Int, configuration: HTTPServer.Configuration = HTTPServer.Configuration()
    ) async throws {
        try await withServer(configuration) { _, port in
            let client = try await RawClient.connect(port: port)
            try await client.send(request)
            let response = try await client.response()
            #expect(response.status == status)
            #expect(response.header("Connection") == "close")
            #expect(try await client.readUntilClosed().isEmpty)
            let fresh = try await RawClient.connect(port: port)
            #expect(try await fresh.get("/bytes/1").text == "a")
        }
    }

    static let malformed: [String] = [
        "GARBAGE\r\n\r\n",
        "GET /\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n",
        "GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
        "G(T / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.x\r\nHost: x\r\n\r\n",
        "GET / http/1.1\r\nHost: x\r\n\r\n",
        "GET relative HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /\u{7F} HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\nHost: x\n\n",
        "GET / HTTP/1.1\r\nHost x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Control: a\u{01}b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-CR: a\rb\r\n\r\n",
        "GET / HTTP/1.1\r\n: empty-name\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 2\r\n\r\nab",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3 x\r\nabc\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n",
    ]

    @Test(arguments: malformed)
    func malformedRequestsGet400AndClose(request: String) async throws {
        try await expectRejected(Array(request.utf8), status: 400)
    }

    @Test func nonUTF8HeaderBytesAreAcceptedAsObsText() async throws {
        try await withConnection { _, client in
            try await client.send(
                Array("GET /bytes/1 HTTP/1.1\r\nHost: x\r\nX-Latin: caf".utf8) + [0xE9] + [13, 10, 13, 10])
            #expect(try await client.response().status == 200)
        }
    }

    @Test(arguments: [
        ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        ("GET / HTTP/0.9\r\nHost: x\r\n\r\n", 505),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Length: 1\r\n\r\na", 417),
    ])
    func unsupportedFeaturesGetTheirStatus(request: String, status: Int) async throws {
        try await expectRejected(Array(request.utf8), status: status)
    }

    @Test func requestLineOver32KiBGets414() async throws {
        let target = "/" + String(repeating: "a", count: 33 * 1024)
        try await expectRejected(Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), status: 414)
    }

    @Test func requestLineWithoutEndOver32KiBGets414() async throws {
        try await expectRejected(Array(("GET /" + String(repeating: "a", count: 40 * 1024)).utf8), status: 414)
    }

    @Test func requestLineLimitIsExact() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.maximumRequestLineBytes = 64
        // "GET " + target + " HTTP/1.1" is exactly 64 bytes.
        let target = "/bytes/1?" + String(repeating: "p", count: 64 - 4 - 9 - 9)
        try await withConnection(configuration) { _, client in
            let response = try await client.get(target)
            #expect(response.status == 200)
        }
        try await expectRejected(
            Array("GET \(target)p HTTP/1.1\r\nHost: x\r\n\r\n".utf8), status: 414, configuration: configuration)
    }

    @Test func headersOver64KiBGet431() async throws {
        var request = "GET / HTTP/1.1\r\nHost: x\r\n"
        for index in 0..<70 { request += "X-Filler-\(index): \(String(repeating: "v", count: 1000))\r\n" }
        request += "\r\n"
        try await expectRejected(Array(request.utf8), status: 431)
    }

    @Test func oneHugeHeaderWithoutEndGets431() async throws {
        let request = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "v", count: 70 * 1024)
        try await expectRejected(Array(request.utf8), status: 431)
    }

    @Test func trailersOverTheHeaderLimitGet431() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.maximumHeaderBytes = 256
        let request =
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: "
            + String(repeating: "t", count: 400) + "\r\n\r\n"
        try await expectRejected(Array(request.utf8), status: 431, configuration: configuration)
    }

    @Test func contentLengthOverTheLimitGets413() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.maximumBodyBytes = 100
        try await expectRejected(
            Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n".utf8), status: 413,
            configuration: configuration)
    }

    @Test func absurdContentLengthGets413() async throws {
        try await expectRejected(
            Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n".utf8), status: 413)
    }

    @Test func chunkedBodyOverTheLimitGets413() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.maximumBodyBytes = 100
        let chunk = String(repeating: "c", count: 60)
        let request =
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3c\r\n\(chunk)\r\n3c\r\n\(chunk)\r\n0\r\n\r\n"
        try await expectRejected(Array(request.utf8), status: 413, configuration: configuration)
    }

    @Test func bodyAtTheLimitIsAccepted() async throws {
        try await withConnection(serverConfiguration { $0.maximumBodyBytes = 100 }) { _, client in
            try await client.send(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + String(repeating: "b", count: 100))
            #expect(try await client.response().status == 200)
        }
    }

    @Test func idleConnectionIsClosedSilently() async throws {
        try await withServer(serverConfiguration { $0.idleTimeout = .milliseconds(300) }) { server, port in
            let client = try await RawClient.connect(port: port)
            #expect(try await client.readUntilClosed().isEmpty)
            let kept = try await RawClient.connect(port: port, sending: "GET /bytes/1 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await kept.response().text == "a")
            // Idle again after the response: closed without another byte.
            #expect(try await kept.readUntilClosed().isEmpty)
            #expect(server.statistics.openConnections == 0)
        }
    }

    /// A request stopped in its headers, and one stopped in its body.
    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: x\r\n", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
    ])
    func slowRequestGets408AndClose(partial: String) async throws {
        try await withConnection(serverConfiguration { $0.requestTimeout = .milliseconds(50) }) { _, client in
            try await client.send(partial)
            #expect(try await client.response().status == 408)
            #expect(try await client.readUntilClosed().isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func clientThatStopsReadingIsDroppedAfterTheSendTimeout() async throws {
        let size = 12 * 1024 * 1024
        try await withServer(serverConfiguration { $0.sendTimeout = .milliseconds(100) }) { server, port in
            let client = try await RawClient.connect(port: port, receiveBuffer: 16 * 1024)
            try await client.send("GET /bytes/\(size) HTTP/1.1\r\nHost: x\r\n\r\n")
            // The client reads nothing; the socket buffers fill long before 12 MiB, the server's
            // writes stall, and the send timeout must close the connection.
            #expect(await eventually { server.statistics.openConnections == 0 })
            let received = try await client.readUntilClosed()
            #expect(received.count < size)
            #expect(server.statistics.responsesSent == 0)
        }
    }

    @Test func aConnectionBeyondTheLimitClosesTheOldestIdleOne() async throws {
        try await withServer(serverConfiguration { $0.maximumConnections = 2 }) { server, port in
            let first = try await RawClient.connect(port: port)
            let second = try await RawClient.connect(port: port)
            for client in [first, second] {
                #expect(try await client.get("/bytes/1").text == "a")
            }
            // Both are idle: the third is accepted at once and the one idle longest makes room.
            let third = try await RawClient.connect(port: port, sending: "GET /bytes/2 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await third.response().text == "ab")
            #expect(try await first.readUntilClosed().isEmpty)
            #expect(server.statistics.connectionsAccepted == 3)
            #expect(server.statistics.idleConnectionsEvicted == 1)
            #expect(try await second.get("/bytes/1").text == "a")
        }
    }

    @Test func vanishingMidRequestFreesTheConnection() async throws {
        let recorder = EventRecorder()
        try await withServer(handler: recorder.handler) { server, port in
            let client = try await RawClient.connect(port: port)
            try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\npartial")
            await client.close()
            // The next connection is served and, once it is, the vanished one must be gone:
            // the loop handles the earlier hang-up before reading the later request.
            let next = try await RawClient.connect(port: port)
            #expect(try await next.get("/bytes/1", headers: "Connection: close\r\n").text == "a")
            _ = try await next.readUntilClosed()
            #expect(server.statistics.requestsReceived == 1)
        }
    }

    @Test func randomGarbageNeverWedgesTheServer() async throws {
        var generator = SystemRandomNumberGenerator()
        try await withServer { _, port in
            for _ in 0..<20 {
                let client = try await RawClient.connect(port: port)
                let garbage = (0..<Int.random(in: 1...2000, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                try await client.send(garbage + [13, 10, 13, 10])
                await client.close()
            }
            let client = try await RawClient.connect(port: port)
            #expect(try await client.get("/bytes/2").text == "ab")
        }
    }
}
