import DataSyncEmulator
import DataSyncTestSupport
import JSONCore
import Testing

@Suite struct GroupAndWildcardTests {
    let base = "/v1/channel-registration/sub-key/demo/channel-group"

    @Test func groupsAreAddedListedRemovedAndDeleted() async throws {
        let client = try PubSubClient()
        let added = await client.send("\(base)/g1?add=a,b,c&uuid=u")
        #expect(added.json == ["status": 200, "message": "OK", "service": "channel-registry", "error": false])
        #expect(await client.send("\(base)/g1?remove=b").status == 200)
        let listed = await client.send("\(base)/g1")
        #expect(listed.json?["payload"] == ["channels": ["a", "c"], "group": "g1"])
        _ = await client.send("\(base)/g2?add=x%2Cy")
        let groups = await client.send(base)
        #expect(groups.json?["payload"] == ["namespace": "", "groups": ["g1", "g2"]])
        #expect(await client.send("\(base)/g1/remove").status == 200)
        #expect(await client.send(base).json?["payload"]?["groups"] == ["g2"])
        #expect(await client.send("\(base)/g1").json?["payload"]?["channels"] == [])
    }

    @Test func groupLimitsAndReservedCharactersAreRefused() async throws {
        let client = try PubSubClient(pubSub: PubSubConfiguration(maximumChannelGroups: 1, maximumChannelsPerGroup: 2))
        let tooMany = await client.send("\(base)/g1?add=a,b,c")
        #expect(tooMany.status == 400)
        #expect(tooMany.json?["message"] == "Maximum channel group count exceeded.")
        #expect(tooMany.json?["error"] == true)
        #expect(await client.send("\(base)/g1?add=a").status == 200)
        #expect(await client.send("\(base)/g2?add=a").json?["message"] == "Maximum channel group count exceeded.")
        let reserved = await client.send("\(base)/g%3Ax?add=a")
        #expect(reserved.json?["message"] == "Reserved character in input parameters.")
        #expect(await client.send("\(base)/g1?add=a.%2A").status == 400)
    }

    @Test func messagesThroughAGroupCarryTheGroupAsB() async throws {
        let client = try PubSubClient()
        _ = await client.send("\(base)/g1?add=a,b")
        let cursor = try await client.handshake(",", query: "uuid=s&channel-group=g1")
        _ = try await client.publish("a", "to a")
        _ = try await client.publish("z", "not in group")
        let reply = await client.subscribe(",", tt: cursor, query: "uuid=s&channel-group=g1")
        #expect(reply.messages.count == 1)
        #expect(reply.messages.first?["c"] == "a")
        #expect(reply.messages.first?["b"] == "g1")
    }

    @Test func addingToAGroupReachesAHeldSubscriber() async throws {
        let client = try PubSubClient()
        _ = await client.send("\(base)/g1?add=a")
        let cursor = try await client.handshake(",", query: "uuid=s&channel-group=g1")
        let held = await client.held(",", tt: cursor, query: "uuid=s&channel-group=g1")
        _ = await client.send("\(base)/g1?add=b")
        #expect(await eventually { client.emulator.heldSubscribeCount >= 1 })
        _ = try await client.publish("b", "to b")
        #expect(await held.value.messages.first?["b"] == "g1")
    }

    @Test(arguments: ["a.*", "a.%2A"])
    func wildcardsMatchByPrefixAndCarryThePatternAsB(pattern: String) async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake(pattern)
        _ = try await client.publish("a.b", 1)
        _ = try await client.publish("a.b.c", 2)
        _ = try await client.publish("ab", 3)
        _ = try await client.publish("b.a", 4)
        let reply = await client.subscribe(pattern, tt: cursor)
        #expect(reply.payloads == [1, 2])
        #expect(reply.messages.map { $0["b"] } == ["a.*", "a.*"])
        #expect(reply.messages.map { $0["c"] } == ["a.b", "a.b.c"])
    }

    @Test func aDirectMatchWinsAndIsDeliveredOnce() async throws {
        let client = try PubSubClient()
        _ = await client.send("\(base)/g1?add=a.b")
        let cursor = try await client.handshake("a.b,a.*", query: "uuid=s&channel-group=g1")
        _ = try await client.publish("a.b", 1)
        let reply = await client.subscribe("a.b,a.*", tt: cursor, query: "uuid=s&channel-group=g1")
        #expect(reply.messages.count == 1)
        #expect(reply.messages.first?["b"] == nil)
    }
}
