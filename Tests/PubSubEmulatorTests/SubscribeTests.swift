import DataSyncEmulator
import DataSyncTestSupport
import JSONCore
import Testing

@Suite struct SubscribeTests {
    @Test(arguments: ["tt=0", "ee", "ee=", "ee=1", "tt=0&ee=1&tr=0"])
    func handshakeAnswersAtOnceWithAFreshCursorAndNoMessages(query: String) async throws {
        let client = try PubSubClient()
        _ = try await client.publish("room", "before")
        let reply = await client.send("/v2/subscribe/demo/room/0?uuid=u&\(query)")
        #expect(reply.status == 200)
        #expect(reply.text.hasPrefix("{\"t\":{\"t\":\""))
        #expect(reply.messages.isEmpty)
        #expect(reply.json?["t"]?["r"] == 1)
        let cursor = try #require(reply.cursor)
        let next = try PubSubClient.sentTimetoken(try await client.publish("room", "after"))
        #expect(next > cursor)
    }

    @Test func aHeldReceiveWakesOnPublishToItsChannelOnly() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        let held = await client.held("room", tt: cursor)
        _ = try await client.publish("elsewhere", "not for you")
        #expect(client.emulator.heldSubscribeCount == 1)
        let sent = try PubSubClient.sentTimetoken(try await client.publish("room", "hi"))
        let reply = await held.value
        #expect(reply.payloads == ["hi"])
        #expect(reply.cursor == sent)
    }

    /// Issue 34 §4: a publish answers the long-polls it wakes with events the bus found in the
    /// same turn (no second read of the log per subscriber) and with one encoded body for all.
    @Test func aPublishAnswersEveryHeldReceiveWithoutRereadingTheLogAndEncodesOnce() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        var held: [Task<PubSubReply, Never>] = []
        for index in 0..<20 {
            held.append(await client.held("room", tt: cursor, query: "uuid=s\(index)", already: index))
        }
        let before = await client.emulator.pubSubWork()
        let sent = try PubSubClient.sentTimetoken(try await client.publish("room", "hi"))
        var bodies = Set<String>()
        for task in held {
            let reply = await task.value
            #expect(reply.payloads == ["hi"])
            #expect(reply.cursor == sent)
            bodies.insert(reply.text)
        }
        let after = await client.emulator.pubSubWork()
        #expect(bodies.count == 1)
        #expect(after.collects == before.collects)
        #expect(after.encodings == before.encodings + 1)
    }

    @Test func heldReceivesShareOneTimerAndEachAnswersAtItsOwnDeadline() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room", query: "")
        var held: [Task<PubSubReply, Never>] = []
        for index in 0..<20 {
            held.append(await client.held("room", tt: cursor, query: "", already: index))
            await client.clock.waitForSleepers(1)
            // Each long-poll held costs no sleep of its own on the clock (one each before).
            #expect(client.clock.sleeperCount == 1)
            client.clock.advance(by: .seconds(1))
        }
        // The first was held 20 s ago: 260 s more and it is due, the others 1 s apart after it.
        client.clock.advance(by: .seconds(260))
        let first = await held[0].value
        #expect(first.status == 200 && first.messages.isEmpty)
        #expect(await eventually { client.emulator.heldSubscribeCount <= 19 })
        #expect(client.emulator.heldSubscribeCount == 19)
        client.clock.advance(by: .seconds(9))
        for task in held[1...9] { #expect(await task.value.status == 200) }
        #expect(client.emulator.heldSubscribeCount == 10)
        client.clock.advance(by: .seconds(10))
        for task in held[10...] { #expect(await task.value.status == 200) }
        #expect(client.emulator.heldSubscribeCount == 0)
        // Nothing held, nothing sleeping: an idle emulator keeps no timer for long-polls.
        #expect(await eventually { client.clock.sleeperCount == 0 })
    }

    @Test func aHeldReceiveAnswersEmptyAfter280SecondsOfTheEmulatorClock() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room", query: "")
        let held = await client.held("room", tt: cursor, query: "")
        await client.clock.waitForSleepers(1)
        client.clock.advance(by: .seconds(279))
        #expect(client.emulator.heldSubscribeCount == 1)
        client.clock.advance(by: .seconds(1))
        let reply = await held.value
        #expect(reply.status == 200)
        #expect(reply.messages.isEmpty)
        #expect(try #require(reply.cursor) > cursor)
    }

    @Test func aCancelledReceiveStopsWaiting() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        let held = await client.held("room", tt: cursor)
        held.cancel()
        _ = await held.value
        #expect(client.emulator.heldSubscribeCount == 0)
    }

    @Test func catchUpReturnsEverythingSinceAnOldCursorInOrder() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        var sent: [UInt64] = []
        for index in 0..<5 {
            sent.append(try PubSubClient.sentTimetoken(try await client.publish("room", .int(Int64(index)))))
        }
        let reply = await client.subscribe("room", tt: sent[1])
        #expect(reply.payloads == [2, 3, 4])
        let all = await client.subscribe("room", tt: cursor)
        #expect(all.payloads == [0, 1, 2, 3, 4])
        #expect(all.cursor == sent[4])
    }

    @Test func answersHoldAtMostOneHundredEnvelopesAndTheCursorResumes() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        for index in 0..<150 { _ = try await client.publish("room", .int(Int64(index))) }
        let first = await client.subscribe("room", tt: cursor)
        #expect(first.messages.count == 100)
        #expect(first.payloads.first == 0 && first.payloads.last == 99)
        let second = await client.subscribe("room", tt: first.cursor ?? 0)
        #expect(second.payloads == (100..<150).map { JSONValue.int(Int64($0)) })
    }

    @Test func theCatchUpBufferIsBounded() async throws {
        let client = try PubSubClient(pubSub: PubSubConfiguration(catchUpBufferSize: 10))
        let cursor = try await client.handshake("room")
        for index in 0..<40 { _ = try await client.publish("room", .int(Int64(index))) }
        let reply = await client.subscribe("room", tt: cursor)
        #expect(reply.messages.count >= 10 && reply.messages.count <= 13)
        #expect(reply.payloads.last == 39)
    }

    /// Concurrent publishers on several channels; a client following the cursors sees every
    /// message of its channels exactly once, in timetoken order.
    @Test(arguments: [UInt64(1), 42, 2026])
    func concurrentPublishersAreDeliveredExactlyOnceInOrder(seed: UInt64) async throws {
        let client = try PubSubClient()
        let start = try await client.handshake("a,b")
        // Seeded, so concurrent-publisher plans are reproducible.
        var generator = SeededRandomNumberGenerator(seed: seed)
        let plans: [[String]] = (0..<4).map { _ in
            (0..<60).map { _ in ["a", "b", "c"][Int(generator.next() % 3)] }
        }
        let receiver = Task { () -> [JSONValue] in
            var seen: [JSONValue] = []
            var last: UInt64 = 0
            var cursor = start
            let expected = plans.flatMap { $0 }.filter { $0 != "c" }.count
            while seen.count < expected {
                let reply = await client.subscribe("a,b", tt: cursor)
                for message in reply.messages {
                    let tt = UInt64(message["p"]?["t"]?.stringValue ?? "") ?? 0
                    if tt <= last { return [] }  // out of order or repeated
                    last = tt
                    seen.append(message["d"] ?? .null)
                }
                cursor = reply.cursor ?? cursor
            }
            return seen
        }
        await withTaskGroup(of: Void.self) { group in
            for (publisher, plan) in plans.enumerated() {
                group.addTask {
                    for (index, channel) in plan.enumerated() {
                        _ = try? await client.publish(channel, .string("\(publisher)-\(index)-\(channel)"))
                    }
                }
            }
        }
        let seen = await receiver.value
        let expected = Set(
            plans.enumerated().flatMap { publisher, plan in
                plan.enumerated().filter { $0.element != "c" }.map { "\(publisher)-\($0.offset)-\($0.element)" }
            })
        #expect(seen.count == expected.count)
        #expect(Set(seen.compactMap(\.stringValue)) == expected)
        // Per publisher, messages arrive in the order they were published.
        for publisher in 0..<plans.count {
            let mine = seen.compactMap(\.stringValue).filter { $0.hasPrefix("\(publisher)-") }
            let indices = mine.compactMap { Int($0.split(separator: "-")[1]) }
            #expect(indices == indices.sorted())
        }
    }

    @Test func aServerEnvelopeReachesSubscribersLikeAPublish() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("datasync.users")
        let tt = await client.emulator.publish(
            ServerEnvelope(subscribeKey: "demo", channel: "datasync.users", payload: ["event": "set"], eventType: 5))
        client.emulator.post(
            ServerEnvelope(subscribeKey: "demo", channel: "datasync.users", payload: ["event": "delete"], eventType: 5))
        let first = await client.subscribe("datasync.users", tt: cursor)
        var payloads = first.payloads
        if payloads.count < 2 {
            payloads += await client.subscribe("datasync.users", tt: first.cursor ?? 0).payloads
        }
        #expect(first.messages.first?["e"] == 5)
        #expect(first.messages.first?["p"]?["t"] == .string(String(tt)))
        #expect(payloads == [["event": "set"], ["event": "delete"]])
    }
}
