import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite struct HistoryTests {
    /// Publishes `values` on `channel` and returns their timetokens.
    private func publishAll(_ client: PubSubClient, _ channel: String, _ values: [Int], query: String = "uuid=pub")
        async throws -> [UInt64]
    {
        var timetokens: [UInt64] = []
        for value in values {
            timetokens.append(
                try PubSubClient.sentTimetoken(try await client.publish(channel, .int(Int64(value)), query: query)))
        }
        return timetokens
    }

    private func fetch(_ client: PubSubClient, _ channels: String, _ query: String = "") async -> PubSubReply {
        await client.send("/v3/history/sub-key/demo/channel/\(channels)?\(query)")
    }

    private func messages(_ reply: PubSubReply, _ channel: String) -> [JSONValue] {
        (reply.json?["channels"]?[channel]?.arrayValue ?? []).compactMap { $0["message"] }
    }

    @Test func publishedMessagesComeBackOldestFirstWithTheirFields() async throws {
        let client = try PubSubClient()
        let meta = PubSubClient.encode(#"{"level":2}"#)
        let tt = try await publishAll(
            client, "room", [1], query: "uuid=alice&meta=\(meta)&custom_message_type=chat-text")
        _ = try await publishAll(client, "room", [2])
        let reply = await fetch(client, "room", "include_meta=true&include_custom_message_type=true")
        #expect(reply.status == 200)
        #expect(reply.json?["status"] == 200 && reply.json?["error"] == false)
        let items = try #require(reply.json?["channels"]?["room"]?.arrayValue)
        #expect(items.count == 2)
        #expect(items[0]["message"] == 1 && items[1]["message"] == 2)
        #expect(items[0]["timetoken"]?.stringValue == String(tt[0]))
        #expect(items[0]["uuid"] == "alice")
        #expect(items[0]["meta"] == ["level": 2])
        #expect(items[1]["meta"] == "")
        #expect(items[0]["custom_message_type"] == "chat-text")
        #expect(items[0]["message_type"] == .null)
        let bare = await fetch(client, "room", "include_uuid=false&include_message_type=false")
        let first = try #require(bare.json?["channels"]?["room"]?[0])
        #expect(first["uuid"] == nil && first["message_type"] == nil && first["meta"] == nil)
    }

    @Test func storeZeroSignalsAndFireAreNotStored() async throws {
        let client = try PubSubClient()
        _ = try await publishAll(client, "room", [1], query: "uuid=a&store=0")
        _ = try await client.signal("room", 2)
        _ = try await client.publish("room", 3, query: "uuid=a&store=0&norep=true")
        _ = try await publishAll(client, "room", [4], query: "uuid=a&store=1")
        #expect(messages(await fetch(client, "room"), "room") == [4])
    }

    @Test func startIsExclusiveEndInclusiveAndPagesAreTheNewest() async throws {
        let client = try PubSubClient()
        let tt = try await publishAll(client, "room", Array(0..<10))
        #expect(messages(await fetch(client, "room", "max=3"), "room") == [7, 8, 9])
        #expect(messages(await fetch(client, "room", "max=3&start=\(tt[7])"), "room") == [4, 5, 6])
        #expect(messages(await fetch(client, "room", "start=\(tt[7])&end=\(tt[5])"), "room") == [5, 6])
        // Only `end`: read forward from it.
        #expect(messages(await fetch(client, "room", "max=2&end=\(tt[3])"), "room") == [3, 4])
    }

    @Test func maxIsCappedPerChannelCount() async throws {
        let client = try PubSubClient()
        _ = try await publishAll(client, "a", Array(0..<120))
        _ = try await publishAll(client, "b", Array(0..<30))
        #expect(messages(await fetch(client, "a", "max=500"), "a").count == 100)
        let both = await fetch(client, "a,b", "max=100")
        #expect(messages(both, "a").count == 25 && messages(both, "b").count == 25)
        #expect(messages(both, "b").first == 5)
        #expect(both.json?["channels"]?["c"] == nil)
    }

    @Test func ttlLapsesOnTheEmulatorClock() async throws {
        let client = try PubSubClient()
        _ = try await publishAll(client, "room", [1], query: "uuid=a&ttl=1")
        _ = try await publishAll(client, "room", [2], query: "uuid=a&ttl=0")
        #expect(messages(await fetch(client, "room"), "room") == [1, 2])
        client.clock.advance(by: .seconds(3601))
        #expect(messages(await fetch(client, "room"), "room") == [2])
    }

    @Test func deleteRemovesARangeAndOneMessageByItsTimetoken() async throws {
        let client = try PubSubClient()
        let tt = try await publishAll(client, "room", Array(0..<5))
        // The service's example: start = tt - 1, end = tt deletes exactly that message.
        let one = await client.send("DELETE", "/v3/history/sub-key/demo/channel/room?start=\(tt[2] - 1)&end=\(tt[2])")
        #expect(one.status == 200 && one.json?["error"] == false)
        #expect(messages(await fetch(client, "room"), "room") == [0, 1, 3, 4])
        _ = await client.send("DELETE", "/v3/history/sub-key/demo/channel/room?start=\(tt[4])&end=\(tt[0])")
        #expect(messages(await fetch(client, "room"), "room") == [4])
        _ = await client.send("DELETE", "/v3/history/sub-key/demo/channel/room")
        #expect(messages(await fetch(client, "room"), "room") == [])
        #expect(await client.send("DELETE", "/v3/history/sub-key/demo/channel/a,b").status == 400)
    }

    @Test func countsAreExclusiveOfTheTimetokenPerChannel() async throws {
        let client = try PubSubClient()
        let a = try await publishAll(client, "a", Array(0..<4))
        let b = try await publishAll(client, "b", Array(0..<2))
        let single = await client.send("/v3/history/sub-key/demo/message-counts/a,b?timetoken=\(a[1])")
        #expect(single.json?["channels"] == ["a": 2, "b": 2])
        let listed = await client.send(
            "/v3/history/sub-key/demo/message-counts/a,b?channelsTimetoken=\(a[0]),\(b[1])")
        #expect(listed.json?["channels"] == ["a": 3, "b": 0])
        #expect(await client.send("/v3/history/sub-key/demo/message-counts/a,b").status == 400)
        #expect(await client.send("/v3/history/sub-key/demo/message-counts/a,b?channelsTimetoken=1,2,3").status == 400)
    }

    @Test func historyV2AnswersTheArrayForm() async throws {
        let client = try PubSubClient()
        let tt = try await publishAll(client, "room", Array(0..<5))
        let plain = await client.send("/v2/history/sub-key/demo/channel/room?count=2")
        #expect(plain.json == [[3, 4], .int(Int64(tt[3])), .int(Int64(tt[4]))])
        let reversed = await client.send(
            "/v2/history/sub-key/demo/channel/room?count=2&reverse=true&include_token=true")
        let items = try #require(reversed.json?[0]?.arrayValue)
        #expect(items.map { $0["message"] } == [0, 1])
        #expect(items[0]["timetoken"] == .int(Int64(tt[0])))
    }

    @Test func badArgumentsAreRefusedWithTheHistoryErrorBody() async throws {
        let client = try PubSubClient()
        let bad = await fetch(client, "room", "start=yesterday")
        #expect(bad.status == 400 && bad.json?["error"] == true && bad.json?["error_message"]?.stringValue != nil)
        #expect(await client.send("/v3/history/sub-key/nope/channel/room").status == 400)
        let withActions = await client.send("/v3/history-with-actions/sub-key/demo/channel/a,b")
        #expect(withActions.status == 400)
    }

    @Test func theStoreKeepsTheNewestPerChannelAndPerKeyset() {
        var store = MessageStore(perChannelLimit: 3, perKeysetLimit: 5)
        func add(_ channel: String, _ timetoken: UInt64) {
            store.insert(StoredMessage(timetoken: timetoken, payload: .int(Int64(timetoken))), channel: channel, now: 0)
        }
        for timetoken in 1...5 { add("a", UInt64(timetoken)) }
        #expect(store.history("a")?.messages.map(\.timetoken) == [3, 4, 5])
        for timetoken in 6...8 { add("b", UInt64(timetoken)) }
        // Six messages on a keyset bounded at five: the oldest of all (on `a`) goes.
        #expect(store.messageCount == 5)
        #expect(store.history("a")?.messages.map(\.timetoken) == [4, 5])
        #expect(store.history("b")?.messages.map(\.timetoken) == [6, 7, 8])
    }
}
