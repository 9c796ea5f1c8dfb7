import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase
import Testing

@testable import DataSyncEmulator

/// An emulator with a manual clock behind a real HTTP server, for held subscribes over sockets.
private struct ParkingRig {
    let emulator: Emulator
    let server: HTTPServer
    let port: UInt16

    init() async throws {
        emulator = try Emulator(configuration: EmulatorConfiguration(startTime: startInstant))
        server = HTTPServer(handler: emulator.handler)
        try await server.start()
        port = try #require(server.port)
    }

    func cursor(_ channel: String) async throws -> UInt64 {
        let reply = await emulator.respond(
            to: ServerRequest(method: "GET", target: "/v2/subscribe/demo/\(channel)/0?tt=0"))
        return try #require(try JSONValue(parsing: reply.body)["t"]?["t"]?.stringValue.flatMap(UInt64.init))
    }

    func publish(_ channel: String, _ text: String) async {
        let reply = await emulator.respond(
            to: ServerRequest(method: "GET", target: "/publish/demo/demo/0/\(channel)/0/%22\(text)%22?uuid=p"))
        #expect(reply.status == 200)
    }

    /// Opens a connection and sends one receive; the caller reads or closes it.
    func hold(_ channel: String, cursor: UInt64, query: String = "uuid=s") async throws -> RawSocket {
        let port = self.port
        return try await onThread {
            let socket = try RawSocket(port: port, timeout: 60)
            try socket.send(
                "GET /v2/subscribe/demo/\(channel)/0?tt=\(cursor)&\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return socket
        }
    }

    func read(_ socket: RawSocket) async throws -> RawHTTPResponse {
        try await onThread { try socket.response() }
    }

    func waitParked(_ count: Int) async -> Bool {
        let server = server
        let emulator = emulator
        return await eventually {
            server.statistics.parkedResponses == count && emulator.heldSubscribeCount == count
        }
    }
}

/// Issue 34 §2: a held receive is parked (no task) and its answer still gets everything the
/// router adds to an answer.
@Suite("Parked subscribes", .timeLimit(.minutes(2)))
struct ParkedSubscribeTests {
    @Test func heldReceivesKeepNoHandlerTaskAndAPublishAnswersEveryOne() async throws {
        let rig = try await ParkingRig()
        let cursor = try await rig.cursor("room")
        var sockets: [RawSocket] = []
        for index in 0..<20 { sockets.append(try await rig.hold("room", cursor: cursor, query: "uuid=s\(index)")) }
        #expect(await rig.waitParked(20))
        // Twenty held and no task of theirs alive: each is an entry in the registry, nothing more.
        #expect(rig.server.statistics.handlerTasksRunning == 0)
        let encodingsBefore = rig.emulator.bus.answers.encodedCount
        await rig.publish("room", "hi")
        for socket in sockets {
            let response = try await rig.read(socket)
            #expect(response.status == 200)
            #expect(try JSONValue(parsing: response.body)["m"]?[0]?["d"] == "hi")
            socket.close()
        }
        #expect(rig.emulator.bus.answers.encodedCount == encodingsBefore + 1)
        #expect(await eventually { rig.server.statistics.parkedResponses == 0 })
        await rig.server.stop()
    }

    @Test func closingAHeldReceiveRemovesItsWaiterAndNothingLeaksOverManyCycles() async throws {
        let rig = try await ParkingRig()
        let cursor = try await rig.cursor("room")
        #expect(await eventually { rig.emulator.clock.sleeperCount == 0 })
        let cycles = 40
        for _ in 0..<cycles {
            // No uuid: no presence, whose timer would also sleep on the clock.
            let socket = try await rig.hold("room", cursor: cursor, query: "heartbeat=300")
            #expect(await rig.waitParked(1))
            socket.close()
            #expect(await rig.waitParked(0))
        }
        let statistics = rig.server.statistics
        #expect(statistics.parkedResponsesCancelled == cycles)
        #expect(statistics.handlersCancelled == 0)
        #expect(statistics.handlerTasksRunning == 0)
        // Nothing held: no sweeper sleeps on the clock either.
        #expect(await eventually { rig.emulator.clock.sleeperCount == 0 })
        await rig.server.stop()
    }

    /// Each receive's held state must go once it is answered: at once (catch-up), after being
    /// parked, or cancelled; a receive answered at once used to keep it alive forever (a cycle
    /// between the held state and its pending answer's cancel hook).
    @Test func noHeldStateOutlivesItsAnswer() async throws {
        let rig = try await ParkingRig()
        let cursor = try await rig.cursor("room")
        await rig.publish("room", "early")
        for _ in 0..<10 {
            let socket = try await rig.hold("room", cursor: cursor)
            #expect(try await rig.read(socket).status == 200)
            socket.close()
        }
        let later = try await rig.cursor("room")
        var held: [RawSocket] = []
        for _ in 0..<10 { held.append(try await rig.hold("room", cursor: later)) }
        #expect(await rig.waitParked(10))
        await rig.publish("room", "hi")
        for socket in held {
            #expect(try await rig.read(socket).status == 200)
            socket.close()
        }
        let gone = try await rig.hold("room", cursor: later + 1_000_000_000)
        #expect(await rig.waitParked(1))
        gone.close()
        #expect(await rig.waitParked(0))
        let bus = rig.emulator.bus
        #expect(await eventually { bus.parkedAlive.withLock { $0 } == 0 })
        await rig.server.stop()
    }

    /// A held receive woken with nothing to send (its channel group changed) parks again; the
    /// registry knows it by identity, so its client leaving still removes the new entry, and a
    /// publish on the group's new member answers it while it is held.
    @Test func aReceiveParkedAgainAfterAGroupChangeIsStillRemovedOrAnswered() async throws {
        let rig = try await ParkingRig()
        func addToTeam(_ channel: String) async {
            let reply = await rig.emulator.respond(
                to: ServerRequest(
                    method: "GET", target: "/v1/channel-registration/sub-key/demo/channel-group/team?add=\(channel)"))
            #expect(reply.status == 200)
        }
        await addToTeam("room")
        let cursor = try await rig.cursor("room")
        let waiters = rig.emulator.bus.waiters
        for leaves in [true, false] {
            let socket = try await rig.hold(",", cursor: cursor, query: "channel-group=team&heartbeat=300")
            #expect(await rig.waitParked(1))
            let parkedBefore = waiters.parkedCount
            await addToTeam(leaves ? "hall" : "porch")
            #expect(await eventually { waiters.parkedCount == parkedBefore + 1 })
            #expect(waiters.count == 1)
            if leaves {
                socket.close()
                #expect(await rig.waitParked(0))
            } else {
                await rig.publish("porch", "hi")
                let response = try await rig.read(socket)
                #expect(try JSONValue(parsing: response.body)["m"]?[0]?["d"] == "hi")
                socket.close()
            }
        }
        let bus = rig.emulator.bus
        #expect(await eventually { bus.parkedAlive.withLock { $0 } == 0 })
        #expect(waiters.count == 0)
        await rig.server.stop()
    }

    /// Issue 34 §2: the request-log entry a held request keeps owns its copy of the target, so
    /// the string the server parsed (allocated among that request's short-lived buffers, whose
    /// pages it would pin) is freed when the request's task ends.
    @Test func aHeldRequestsLogEntryKeepsItsOwnCopyOfTheTarget() {
        let request = ServerRequest(
            method: "GET", target: "/v2/subscribe/demo/a-long-channel-name/0?tt=1&uuid=someone")
        let entry = RequestLog.PendingEntry(
            log: RequestLog(capacity: 4, excludedPrefix: "/admin"), request: request, receivedAt: Date(),
            start: .now)
        var original = request.target
        var kept = entry.target
        #expect(kept == original)
        let shared = original.withUTF8 { parsed in kept.withUTF8 { copy in parsed.baseAddress == copy.baseAddress } }
        #expect(!shared)
    }

    @Test func aParkedAnswerAtItsDeadlineIsAnEmptyAnswerWithALaterCursor() async throws {
        let rig = try await ParkingRig()
        let cursor = try await rig.cursor("room")
        let socket = try await rig.hold("room", cursor: cursor)
        #expect(await rig.waitParked(1))
        await rig.emulator.clock.waitForSleepers(1)
        rig.emulator.clock.advance(by: .seconds(280))
        let response = try await rig.read(socket)
        #expect(response.status == 200)
        let json = try JSONValue(parsing: response.body)
        #expect(json["m"]?.arrayValue?.isEmpty == true)
        #expect(try #require(json["t"]?["t"]?.stringValue.flatMap(UInt64.init)) > cursor)
        socket.close()
        await rig.server.stop()
    }

    @Test func aParkedAnswerCarriesTheCORSHeader() async throws {
        let rig = try await ParkingRig()
        let cursor = try await rig.cursor("room")
        let socket = try await rig.hold("room", cursor: cursor)
        #expect(await rig.waitParked(1))
        await rig.publish("room", "hi")
        let response = try await rig.read(socket)
        #expect(response.header("Access-Control-Allow-Origin") == "*")
        socket.close()
        await rig.server.stop()
    }

    @Test func aParkedAnswerIsLoggedWithItsStatusRedactedAndCancelledWhenItsClientLeft() async throws {
        let rig = try await ParkingRig()
        let cursor = try await rig.cursor("room")
        let answered = try await rig.hold("room", cursor: cursor, query: "uuid=s&auth=secret-token")
        #expect(await rig.waitParked(1))
        await rig.publish("room", "hi")
        #expect(try await rig.read(answered).status == 200)
        let left = try await rig.hold("room", cursor: cursor + 1_000_000_000, query: "uuid=t&auth=other")
        #expect(await rig.waitParked(1))
        left.close()
        #expect(await rig.waitParked(0))
        let entries = rig.emulator.recentRequests().filter { $0.target.contains("tt=\(cursor)") }
        let entry = try #require(entries.first)
        #expect(entry.status == 200)
        #expect(!entry.cancelled)
        #expect(entry.target.contains("auth=REDACTED") && !entry.target.contains("secret-token"))
        let gone = try #require(rig.emulator.recentRequests().first { $0.target.contains("uuid=t") })
        #expect(gone.cancelled)
        #expect(!gone.target.contains("auth=other"))
        answered.close()
        await rig.server.stop()
    }

    @Test func aRouterFaultTruncatesAParkedAnswer() async throws {
        let rig = try await ParkingRig()
        let cursor = try await rig.cursor("room")
        _ = rig.emulator.addFault(FaultRule(.truncate(bytes: 5), family: .subscribe, count: 1))
        let socket = try await rig.hold("room", cursor: cursor)
        #expect(await rig.waitParked(1))
        await rig.publish("room", "hi")
        let bytes = try await onThread { try socket.readUntilClosed() }
        let text = String(decoding: bytes, as: UTF8.self)
        let body = try #require(text.range(of: "\r\n\r\n")).upperBound
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(text[body...].utf8.count == 5)
        socket.close()
        await rig.server.stop()
    }

    @Test func aPubSubFaultPlanChangesAParkedAnswer() async throws {
        let rig = try await ParkingRig()
        let cursor = try await rig.cursor("room")
        rig.emulator.injectFault(.truncatedJSON, on: .subscribe)
        let socket = try await rig.hold("room", cursor: cursor)
        #expect(await rig.waitParked(1))
        await rig.publish("room", "hi")
        let truncated = try await rig.read(socket)
        #expect(truncated.status == 200)
        #expect((try? JSONValue(parsing: truncated.body)) == nil)
        // The same answer unfaulted is twice as long: the fault halved the parked one.
        let whole = try await rig.hold("room", cursor: cursor)
        let full = try await rig.read(whole)
        #expect(full.body.count / 2 == truncated.body.count)
        socket.close()
        whole.close()
        await rig.server.stop()
    }
}

/// Parks every request; the test completes the answers.
private struct ParkingService: EmulatorService {
    let parked = Locked<[PendingResponse]>([])

    func claims(_ request: ServerRequest) -> Bool { request.rawPath.hasPrefix("/v2/subscribe/") }
    func respond(to request: ServerRequest) async -> ServerResponse { await reply(to: request).response }
    func reply(to request: ServerRequest) async -> ServerReply {
        let pending = PendingResponse()
        parked.withLock { $0.append(pending) }
        return .pending(pending)
    }
    func reply(to request: ServerRequest, scope: ListScope) async -> ServerReply {
        let visible = scope.makeRowTest()("visible")
        return await reply(to: request).map { response in
            var response = response
            response.headers.append((name: "X-Scoped", value: visible ? "yes" : "no"))
            return response
        }
    }
}

/// Lets everything through with a rewrite (or a scope and a rewrite) that marks the answer.
private struct MarkingAuthorizer: EmulatorAuthorizer {
    let scoped: Bool
    func authorize(_ request: ServerRequest) async -> AuthorizationDecision {
        let rewrite: @Sendable (ServerResponse) async -> ServerResponse = { response in
            var response = response
            response.headers.append((name: "X-Rewritten", value: "yes"))
            return response
        }
        guard scoped else { return .allowRewriting(rewrite) }
        return .allowScoped(ListScope { { $0 == "visible" } }, rewrite: rewrite)
    }
}

@Suite("Parked answers through the router's authorizer", .timeLimit(.minutes(1)))
struct ParkedAuthorizerTests {
    @Test(arguments: [false, true])
    func theAuthorizersRewriteAppliesToAParkedAnswer(scoped: Bool) async throws {
        let service = ParkingService()
        let server = HTTPServer(
            handler: EmulatorRouter(services: [service], authorizer: MarkingAuthorizer(scoped: scoped)))
        try await server.start()
        let port = try #require(server.port)
        let socket = try await onThread {
            let socket = try RawSocket(port: port, timeout: 60)
            try socket.send("GET /v2/subscribe/demo/room/0?tt=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return socket
        }
        #expect(await eventually { server.statistics.parkedResponses == 1 })
        #expect(server.statistics.handlerTasksRunning == 0)
        let pending = try #require(service.parked.withLock { $0.first })
        pending.succeed(ServerResponse(status: 200, body: Array("{}".utf8)))
        let response = try await onThread { try socket.response() }
        #expect(response.header("X-Rewritten") == "yes")
        #expect(response.header("X-Scoped") == (scoped ? "yes" : nil))
        socket.close()
        await server.stop()
    }
}
