import DataSyncEmulator
import JSONCore
import Testing

@Suite struct PresenceTests {
    let presence = "/v2/presence/sub-key/demo"

    /// The presence payloads on `room-pnpres` after `cursor`, read by an observer that is not present.
    func events(_ client: PubSubClient, after cursor: UInt64, channel: String = "room") async -> [JSONValue] {
        await client.subscribe("\(channel)-pnpres", tt: cursor, query: "uuid=observer").payloads
    }

    @Test func subscribeJoinsAndLeaveLeavesWithIntegerFields() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room-pnpres", query: "uuid=observer")
        _ = try await client.handshake("room,room-pnpres", query: "uuid=alice")
        let joined = await events(client, after: cursor)
        #expect(
            joined == [["action": "join", "uuid": "alice", "timestamp": 1_788_766_495, "occupancy": 1]])
        let left = await client.send("\(presence)/channel/room,room-pnpres/leave?uuid=alice&ee=1")
        #expect(left.json == ["status": 200, "message": "OK", "action": "leave", "service": "Presence"])
        let all = await events(client, after: cursor)
        #expect(all.map { $0["action"] } == ["join", "leave"])
        #expect(all.last?["occupancy"] == 0)
        #expect(all.last?["timestamp"]?.int64Value == 1_788_766_495)
    }

    @Test func presenceTimesOutOnTheEmulatorClock() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room-pnpres", query: "uuid=observer")
        _ = try await client.handshake("room", query: "uuid=bob&heartbeat=20")
        client.clock.advance(by: .seconds(19))
        #expect(await events(client, after: cursor).map { $0["action"] } == ["join"])
        client.clock.advance(by: .seconds(1))
        let all = await events(client, after: cursor)
        #expect(all.map { $0["action"] } == ["join", "timeout"])
        #expect(all.last?["uuid"] == "bob")
        #expect(all.last?["timestamp"] == 1_788_766_515)
    }

    @Test func heartbeatKeepsPresentAndWorksThroughGroups() async throws {
        let client = try PubSubClient()
        _ = await client.send("/v1/channel-registration/sub-key/demo/channel-group/g?add=room,hall")
        let cursor = try await client.handshake("room-pnpres,hall-pnpres", query: "uuid=observer")
        let beat = await client.send("\(presence)/channel/,/heartbeat?heartbeat=60&channel-group=g&uuid=carol")
        #expect(beat.json == ["status": 200, "message": "OK", "service": "Presence"])
        client.clock.advance(by: .seconds(50))
        _ = await client.send("\(presence)/channel/,/heartbeat?heartbeat=60&channel-group=g&uuid=carol")
        client.clock.advance(by: .seconds(50))
        let reply = await client.subscribe("room-pnpres,hall-pnpres", tt: cursor, query: "uuid=observer")
        #expect(reply.payloads.map { $0["action"] } == ["join", "join"])
        let whereNow = await client.send("\(presence)/uuid/carol")
        #expect(whereNow.json?["payload"] == ["channels": ["hall", "room"]])
    }

    @Test func stateIsSetAnnouncedAndRead() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room-pnpres", query: "uuid=observer")
        _ = try await client.handshake("room", query: "uuid=dave")
        let state = PubSubClient.encode(#"{"mood":"happy"}"#)
        let set = await client.send("\(presence)/channel/room/uuid/dave/data?state=\(state)&uuid=dave")
        #expect(set.json == ["status": 200, "message": "OK", "payload": ["mood": "happy"], "service": "Presence"])
        let change = await events(client, after: cursor).last
        #expect(change?["action"] == "state-change")
        #expect(change?["data"] == ["mood": "happy"])
        #expect(change?["occupancy"] == 1)
        let get = await client.send("\(presence)/channel/room/uuid/dave?uuid=x")
        #expect(get.json?["payload"] == ["mood": "happy"])
        #expect(get.json?["channel"] == "room")
        let missing = await client.send("\(presence)/channel/room/uuid/dave/data?uuid=dave")
        #expect(missing.status == 400)
        #expect(missing.json?["message"] == "No state specified.")
        let subscribeState = PubSubClient.encode(#"{"room":{"mood":"sad"}}"#)
        _ = await client.subscribe("room", tt: 0, query: "uuid=dave&state=\(subscribeState)")
        #expect(await events(client, after: cursor).last?["data"] == ["mood": "sad"])
    }

    @Test func hereNowForOneSeveralAndAllChannels() async throws {
        let client = try PubSubClient()
        _ = try await client.handshake("room,hall", query: "uuid=u1")
        _ = try await client.handshake("room", query: "uuid=u2")
        let one = await client.send("\(presence)/channel/room?uuid=x")
        #expect(
            one.json == ["status": 200, "message": "OK", "occupancy": 2, "uuids": ["u1", "u2"], "service": "Presence"])
        let counts = await client.send("\(presence)/channel/room?disable_uuids=1")
        #expect(counts.json?["uuids"] == nil)
        #expect(counts.json?["occupancy"] == 2)
        let several = await client.send("\(presence)/channel/room,hall?state=1")
        #expect(several.json?["payload"]?["total_channels"] == 2)
        #expect(several.json?["payload"]?["total_occupancy"] == 3)
        #expect(several.json?["payload"]?["channels"]?["hall"] == ["occupancy": 1, "uuids": [["uuid": "u1"]]])
        let global = await client.send(presence)
        #expect(global.json?["payload"]?["channels"]?.objectValue?.keys.sorted() == ["hall", "room"])
    }

    @Test func aboveTheAnnounceLimitChannelsSendIntervalEventsWithDeltas() async throws {
        let client = try PubSubClient(pubSub: PubSubConfiguration(presenceAnnounceMax: 2, presenceInterval: 10))
        let cursor = try await client.handshake("room-pnpres", query: "uuid=observer")
        for name in ["a", "b", "c", "d"] { _ = try await client.handshake("room", query: "uuid=\(name)") }
        _ = await client.send("\(presence)/channel/room/leave?uuid=a")
        #expect(await events(client, after: cursor).map { $0["action"] } == ["join", "join"])
        client.clock.advance(by: .seconds(10))
        let interval = await events(client, after: cursor).last
        #expect(interval?["action"] == "interval")
        #expect(interval?["occupancy"] == 3)
        #expect(interval?["join"] == ["c", "d"])
        #expect(interval?["leave"] == ["a"])
        #expect(interval?["timestamp"] == 1_788_766_505)
    }

    @Test func tooLargeDeltasAskForAHereNowRefresh() async throws {
        let client = try PubSubClient(
            pubSub: PubSubConfiguration(presenceAnnounceMax: 1, presenceInterval: 5, presenceDeltaByteLimit: 10))
        let cursor = try await client.handshake("room-pnpres", query: "uuid=observer")
        for name in ["first", "second", "third"] { _ = try await client.handshake("room", query: "uuid=\(name)") }
        client.clock.advance(by: .seconds(5))
        let interval = await events(client, after: cursor).last
        #expect(interval?["action"] == "interval")
        #expect(interval?["here_now_refresh"] == true)
        #expect(interval?["join"] == nil)
    }
}
