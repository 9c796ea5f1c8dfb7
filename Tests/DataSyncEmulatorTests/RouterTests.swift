import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A stand-in for a long-poll service: claims `/v2/subscribe/…` and holds every request on the
/// emulator clock (280 s, which a test never lets pass) until its task is cancelled.
private struct HoldingService: EmulatorService {
    enum Event: Sendable, Equatable {
        case started
        case cancelled
        case timedOut
    }

    let clock: EmulatorClock
    let events: AsyncStream<Event>.Continuation

    func claims(_ request: ServerRequest) -> Bool { request.rawPath.hasPrefix("/v2/subscribe/") }

    func respond(to request: ServerRequest) async -> ServerResponse {
        events.yield(.started)
        do {
            try await clock.sleep(for: .seconds(280))
            events.yield(.timedOut)
            return ServerResponse(status: 200, body: Array(#"{"t":{"t":"0","r":1},"m":[]}"#.utf8))
        } catch {
            events.yield(.cancelled)
            return ServerResponse(status: 503)
        }
    }
}

/// Answers everything it claims with a fixed status, to check which service the router picks.
private struct FixedService: EmulatorService {
    let prefix: String
    let status: Int
    func claims(_ request: ServerRequest) -> Bool { request.rawPath.hasPrefix(prefix) }
    func respond(to request: ServerRequest) async -> ServerResponse { ServerResponse(status: status) }
}

/// A client connection that sends one request and then stays open, answered or not, until closed.
private struct HeldConnection: Sendable {
    let socket: RawSocket

    /// Connects to loopback `port` and sends `request`, on a thread of its own.
    static func open(port: UInt16, _ request: String) async throws -> HeldConnection {
        try await onThread {
            let socket = try RawSocket(port: port)
            try socket.send(request)
            return HeldConnection(socket: socket)
        }
    }

    /// Closes the connection, as a client that gives up on a long-poll does.
    func disconnect() { socket.close() }
}

@Suite("Router over services", .timeLimit(.minutes(1)))
struct RouterTests {
    private static let createAlice = ServerRequest(
        method: "POST", target: "/v1/datasync/subkeys/demo/users",
        headers: [(name: "Content-Type", value: "application/vnd.pubnub.objects.user+json;version=1")],
        body: Array(#"{"data":{"id":"alice","entityClassVersion":1}}"#.utf8))

    @Test("a request held by one service does not block a DataSync request; cancelling it ends the wait")
    func heldRequestDoesNotBlockDataSync() async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(startTime: startInstant))
        let (events, sink) = AsyncStream<HoldingService.Event>.makeStream()
        let router = EmulatorRouter(services: [HoldingService(clock: emulator.clock, events: sink), emulator.dataSync])
        var observed = events.makeAsyncIterator()

        let held = Task { await router.handle(ServerRequest(method: "GET", target: "/v2/subscribe/demo/ch/0?tt=1")) }
        #expect(await observed.next() == .started)

        let created = await router.handle(Self.createAlice)
        #expect(created.status == 201)
        let read = await router.handle(ServerRequest(method: "GET", target: "/v1/datasync/subkeys/demo/users/alice"))
        #expect(read.status == 200)
        // Still waiting on the clock: the DataSync requests went past it.
        #expect(emulator.clock.sleeperCount == 1)

        held.cancel()
        #expect(await observed.next() == .cancelled)
        #expect(await held.value.status == 503)
        #expect(emulator.clock.sleeperCount == 0)
    }

    @Test("over HTTP, a client disconnecting from a held request cancels the service's wait")
    func disconnectCancelsTheServiceWait() async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(startTime: startInstant))
        let (events, sink) = AsyncStream<HoldingService.Event>.makeStream()
        let router = EmulatorRouter(services: [HoldingService(clock: emulator.clock, events: sink), emulator.dataSync])
        let server = HTTPServer(handler: router)
        try await server.start()
        let port = try #require(server.port)
        var observed = events.makeAsyncIterator()

        let connection = try await HeldConnection.open(
            port: port, "GET /v2/subscribe/demo/ch/0?tt=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(await observed.next() == .started)

        let body = #"{"data":{"id":"alice","entityClassVersion":1}}"#
        let created = try await exchange(
            port: port,
            "POST /v1/datasync/subkeys/demo/users HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/vnd.pubnub.objects.user+json;version=1\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        #expect(created.status == 201)
        #expect(emulator.clock.sleeperCount == 1)

        connection.disconnect()
        #expect(await observed.next() == .cancelled)
        #expect(emulator.clock.sleeperCount == 0)
        await server.stop()
        #expect(server.statistics.handlersCancelled == 1)
    }

    @Test("a path no service claims is a neutral JSON 404, in no service's error format")
    func unclaimedPathIsNotFound() async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(startTime: startInstant))
        let neutral = #"{"status":404,"error":true,"message":"Not Found"}"#
        let response = await emulator.respond(to: ServerRequest(method: "GET", target: "/v3/nowhere/demo/ch/0?tt=0"))
        #expect(response.status == 404)
        #expect(response.headers.contains { $0.name == "Content-Type" && $0.value == "application/json" })
        #expect(String(decoding: response.body, as: UTF8.self) == neutral)
        // The same answer on the server thread's immediate path.
        let router = EmulatorRouter(services: [])
        let immediate = try #require(router.respondImmediately(to: ServerRequest(method: "GET", target: "/nowhere")))
        #expect(immediate.status == 404)
        #expect(String(decoding: immediate.body, as: UTF8.self) == neutral)
        #expect(
            String(decoding: await router.handle(ServerRequest(method: "GET", target: "/x")).body, as: UTF8.self)
                == neutral)
        // A path under the DataSync prefix is DataSync's to refuse, in DataSync's own envelope.
        let inside = await emulator.respond(to: ServerRequest(method: "GET", target: "/v1/datasync/nowhere"))
        #expect(inside.status == 404)
        let json = try JSONValue(parsing: inside.body)
        #expect(json["errors"]?[0]?["errorCode"] == "DS-0100")
        #expect(json["errors"]?[0]?["message"] == "no such resource: /v1/datasync/nowhere")
    }

    @Test("the first service that claims a request answers it")
    func firstClaimWins() async {
        let router = EmulatorRouter(services: [
            FixedService(prefix: "/a/", status: 201), FixedService(prefix: "/a/b/", status: 202),
            FixedService(prefix: "/", status: 203),
        ])
        #expect(await router.handle(ServerRequest(method: "GET", target: "/a/b/c")).status == 201)
        #expect(await router.handle(ServerRequest(method: "GET", target: "/x?a=/a/")).status == 203)
        #expect(router.service(for: ServerRequest(method: "GET", target: "/a/")) is FixedService)
        #expect(EmulatorRouter(services: []).service(for: ServerRequest(method: "GET", target: "/")) == nil)
    }
}
