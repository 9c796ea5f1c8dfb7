import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import Testing

/// Answers `/now/{text}` at once with `text`; everything else goes to ``HTTPTestingHandler`` in a
/// task (which holds `/hold` until cancelled).
private struct MixedHandler: ServerHandler {
    let testing: HTTPTestingHandler

    func respondImmediately(to request: ServerRequest) -> ServerResponse? {
        guard request.rawPath.hasPrefix("/now/") else { return nil }
        return Self.now(request)
    }

    func handle(_ request: ServerRequest) async -> ServerResponse {
        if request.rawPath.hasPrefix("/now/") { return Self.now(request) }
        return await testing.handle(request)
    }

    private static func now(_ request: ServerRequest) -> ServerResponse {
        ServerResponse(
            status: 200, headers: [(name: "Content-Type", value: "text/plain")],
            body: Array(request.rawPath.dropFirst("/now/".count).utf8))
    }
}

@Suite("HTTP server: answers given at once")
struct ImmediateResponseTests {
    @Test func rawPathAndQueryFollowTheTarget() {
        var request = ServerRequest(method: "GET", target: "/a/b?x=1?y")
        #expect(request.rawPath == "/a/b")
        #expect(request.rawQuery == "x=1?y")
        request.target = "/c"
        #expect(request.rawPath == "/c")
        #expect(request.rawQuery == "")
        request.target = "/d?"
        #expect(request.rawPath == "/d")
        #expect(request.rawQuery == "")
        let headers = ServerRequest(method: "GET", target: "/", headers: [(name: "X-Thing", value: "1")])
        #expect(headers.header("x-THING") == "1")
        #expect(headers.header("x-thin") == nil)
    }

    @Test(arguments: eventBackends)
    func pipelinedImmediateAndTaskAnswersStayInOrder(backend: EventBackend) async throws {
        try await withConnection(
            serverConfiguration { $0.eventBackend = backend }, handler: MixedHandler(testing: HTTPTestingHandler())
        ) { server, client in
            try await client.send(
                "GET /now/a HTTP/1.1\r\nHost: x\r\n\r\n" + "GET /bytes/3 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /now/b HTTP/1.1\r\nHost: x\r\n\r\n" + "GET /now/c HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            var texts: [String] = []
            for _ in 0..<4 { texts.append(try await client.response().text) }
            #expect(texts == ["a", "abc", "b", "c"])
            #expect(try await client.response().status == 200)
            let statistics = server.statistics
            #expect(statistics.requestsReceived == 5)
            #expect(statistics.requestsAnsweredImmediately == 3)
            #expect(statistics.responsesSent == 5)
            #expect(statistics.connectionsAccepted == 1)
        }
    }

    @Test func manyPipelinedImmediateAnswersInOneWrite() async throws {
        try await withConnection(handler: MixedHandler(testing: HTTPTestingHandler())) { server, client in
            let count = 500
            try await client.send((0..<count).map { "GET /now/\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            for index in 0..<count {
                #expect(try await client.response().text == "\(index)")
            }
            #expect(server.statistics.requestsAnsweredImmediately == count)
        }
    }

    @Test func anImmediateAnswerHonoursConnectionClose() async throws {
        try await withConnection(handler: MixedHandler(testing: HTTPTestingHandler())) { _, client in
            let response = try await client.get("/now/x", headers: "Connection: close\r\n")
            #expect(response.text == "x")
            #expect(response.header("Connection") == "close")
            #expect(try await client.readUntilClosed().isEmpty)
        }
    }

    @Test func aHeldRequestStillWaitsAndIsCancelledOnDisconnect() async throws {
        let recorder = EventRecorder()
        try await withServer(handler: MixedHandler(testing: recorder.handler)) { server, port in
            let held = try await RawClient.connect(port: port)
            try await held.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = await recorder.wait(for: 1) { $0.isStarted }
            // Other connections are answered at once meanwhile.
            let other = try await RawClient.connect(port: port)
            #expect(try await other.get("/now/ok").text == "ok")
            await held.close()
            _ = await recorder.wait(for: 1) { $0.isCancelled }
            #expect(server.statistics.requestsAnsweredImmediately == 1)
        }
    }
}
