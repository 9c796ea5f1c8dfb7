import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

/// An emulator on a manual clock whose first-look queue the test takes by hand: a receive queued
/// while a look is pending stays queued until ``takeLooks()``, so a test can act between a
/// request's return and its look.
private struct FirstLookRig {
    let emulator: Emulator
    let clock: EmulatorClock
    /// Queued first, so no drain task starts for the receives the test sends.
    private let blocker: ParkedSubscribe

    init(pubSub: PubSubConfiguration = PubSubConfiguration()) throws {
        clock = EmulatorClock.manual(startingAt: startInstant)
        emulator = try Emulator(configuration: EmulatorConfiguration(clock: clock, pubSub: pubSub))
        let bus = emulator.bus
        blocker = ParkedSubscribe(
            bus: bus, subscribeKey: "demo", subscription: Subscription(channels: ["blocker"], groups: []), filter: nil,
            cursor: 1, deadline: clock.now.advanced(by: .seconds(3600)))
        _ = blocker.parkedReply()
        #expect(bus.firstLooks.add(FirstLooks.Look(held: blocker, uuid: nil, timeout: nil, state: nil)))
    }

    var bus: PubSubBus { emulator.bus }

    func get(_ target: String) async -> ServerResponse {
        await emulator.respond(to: ServerRequest(method: "GET", target: target))
    }

    /// A handshake's cursor for `channel`.
    func cursor(_ channel: String) async throws -> UInt64 {
        let body = await get("/v2/subscribe/demo/\(channel)/0?tt=0").body
        return try #require(try JSONValue(parsing: body)["t"]?["t"]?.stringValue.flatMap(UInt64.init))
    }

    func publish(_ channel: String, _ text: String) async {
        #expect(await get("/publish/demo/demo/0/\(channel)/0/%22\(text)%22?uuid=p").status == 200)
    }

    /// The router's reply to a receive: pending, its look still queued.
    func receive(_ channel: String, cursor: UInt64, query: String = "uuid=s") async throws -> PendingResponse {
        let reply = await emulator.handler.reply(
            to: ServerRequest(method: "GET", target: "/v2/subscribe/demo/\(channel)/0?tt=\(cursor)&\(query)"))
        guard case .pending(let pending) = reply else {
            Issue.record("a receive with a cursor is answered through its pending response")
            throw CancellationError()
        }
        return pending
    }

    /// Runs the queued looks (the blocker's among them) as the drain task would.
    func takeLooks() async {
        await bus.takeFirstLooks()
    }

    func finish() {
        blocker.pending.cancel()
    }
}

/// Issue 34 §2: a receive with a cursor returns its pending answer without awaiting the bus; its
/// look at the log comes later, in a turn on the bus, and must answer exactly as a look in the
/// request's own task did.
@Suite("First looks of subscribe receives", .timeLimit(.minutes(1)))
struct FirstLookTests {
    @Test func anEventPublishedBeforeTheLookIsTheAnswer() async throws {
        let rig = try FirstLookRig()
        let cursor = try await rig.cursor("room")
        let pending = try await rig.receive("room", cursor: cursor)
        #expect(rig.bus.firstLooks.count == 2)
        #expect(rig.emulator.heldSubscribeCount == 0)
        await rig.publish("room", "between")
        await rig.takeLooks()
        // Answered by the look, not parked.
        #expect(rig.emulator.heldSubscribeCount == 1)
        let json = try JSONValue(parsing: await pending.response.body)
        #expect(json["m"]?[0]?["d"] == "between")
        #expect(rig.bus.firstLooks.count == 0)
        rig.finish()
    }

    @Test func anEventPublishedAfterTheLookWakesTheParkedReceive() async throws {
        let rig = try FirstLookRig()
        let cursor = try await rig.cursor("room")
        let pending = try await rig.receive("room", cursor: cursor)
        await rig.takeLooks()
        #expect(rig.emulator.heldSubscribeCount == 2)
        #expect(!pending.isSettled)
        await rig.publish("room", "after")
        let json = try JSONValue(parsing: await pending.response.body)
        #expect(json["m"]?[0]?["d"] == "after")
        #expect(rig.emulator.heldSubscribeCount == 1)
        rig.finish()
    }

    @Test func aReceiveCancelledBeforeItsLookIsNeverParkedButIsPresent() async throws {
        let rig = try FirstLookRig()
        let cursor = try await rig.cursor("room")
        let pending = try await rig.receive("room", cursor: cursor, query: "uuid=gone")
        pending.cancel()
        await rig.takeLooks()
        // Only the blocker is held; the cancelled receive's state is gone.
        #expect(rig.emulator.heldSubscribeCount == 1)
        #expect(rig.bus.parkedAlive.withLock { $0 } == 1)
        // Its presence was recorded, as when the request's task did it before looking.
        #expect(await rig.bus.whereNow("demo", uuid: "gone") == ["room"])
        rig.finish()
    }

    @Test func aReceivePastItsDeadlineAtItsLookIsAnEmptyAnswerWithALaterCursor() async throws {
        let rig = try FirstLookRig()
        let cursor = try await rig.cursor("room")
        let pending = try await rig.receive("room", cursor: cursor)
        rig.clock.advance(by: .seconds(280))
        await rig.takeLooks()
        let response = await pending.response
        #expect(response.status == 200)
        let json = try JSONValue(parsing: response.body)
        #expect(json["m"]?.arrayValue?.isEmpty == true)
        #expect(try #require(json["t"]?["t"]?.stringValue.flatMap(UInt64.init)) > cursor)
        #expect(rig.emulator.heldSubscribeCount == 1)
        rig.finish()
    }

    @Test func aPresenceRefusedAtTheLookIsThePresence400() async throws {
        let rig = try FirstLookRig(pubSub: PubSubConfiguration(maximumPresencesPerKeyset: 1))
        let cursor = try await rig.cursor("room")
        let first = try await rig.receive("room", cursor: cursor, query: "uuid=a")
        let second = try await rig.receive("room", cursor: cursor, query: "uuid=b")
        await rig.takeLooks()
        #expect(!first.isSettled)
        let refused = await second.response
        #expect(refused.status == 400)
        let json = try JSONValue(parsing: refused.body)
        #expect(json["service"] == "Presence")
        #expect(json["message"]?.stringValue?.contains("at most 1 presences per keyset") == true)
        first.cancel()
        rig.finish()
    }

    /// Without a hand on the queue: receives arriving together over sockets are all looked at and
    /// parked, with no request task left running, and one publish answers every one.
    @Test func manyReceivesAtOnceAreAllParkedAndAnswered() async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(startTime: startInstant))
        let server = HTTPServer(handler: emulator.handler)
        try await server.start()
        let port = try #require(server.port)
        let reply = await emulator.respond(to: ServerRequest(method: "GET", target: "/v2/subscribe/demo/hall/0?tt=0"))
        let cursor = try #require(try JSONValue(parsing: reply.body)["t"]?["t"]?.stringValue.flatMap(UInt64.init))
        let sockets = try await onThread {
            try (0..<50).map { index in
                let socket = try RawSocket(port: port, timeout: 60)
                try socket.send(
                    "GET /v2/subscribe/demo/hall/0?tt=\(cursor)&uuid=u\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return socket
            }
        }
        #expect(await eventually { emulator.heldSubscribeCount == 50 })
        #expect(emulator.bus.firstLooks.count == 0)
        #expect(server.statistics.handlerTasksRunning == 0)
        _ = await emulator.respond(
            to: ServerRequest(method: "GET", target: "/publish/demo/demo/0/hall/0/%22all%22?uuid=p"))
        for socket in sockets {
            let response = try await onThread { try socket.response() }
            #expect(try JSONValue(parsing: response.body)["m"]?[0]?["d"] == "all")
            socket.close()
        }
        #expect(await eventually { emulator.bus.parkedAlive.withLock { $0 } == 0 })
        await server.stop()
    }
}
