import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite struct MessageActionTests {
    private func add(
        _ client: PubSubClient, _ channel: String, message: UInt64, type: String = "reaction", value: String,
        uuid: String = "alice"
    ) async -> PubSubReply {
        let body = Array(#"{"type":"\#(type)","value":"\#(value)"}"#.utf8)
        return await client.send(
            "POST", "/v1/message-actions/demo/channel/\(channel)/message/\(message)?uuid=\(uuid)", body: body,
            headers: [("Content-Type", "application/json")])
    }

    @Test func addedActionsHaveTheirOwnTimetokenAndAreAnnouncedAsEventType3() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        let message = try PubSubClient.sentTimetoken(try await client.publish("room", "hello"))
        let added = await add(client, "room", message: message, value: "smiley")
        #expect(added.status == 200)
        let data = try #require(added.json?["data"])
        #expect(data["type"] == "reaction" && data["value"] == "smiley" && data["uuid"] == "alice")
        #expect(data["messageTimetoken"]?.stringValue == String(message))
        let actionTimetoken = try #require(data["actionTimetoken"]?.stringValue.flatMap(UInt64.init))
        #expect(actionTimetoken > message)

        let removed = await client.send(
            "DELETE", "/v1/message-actions/demo/channel/room/message/\(message)/action/\(actionTimetoken)?uuid=alice")
        #expect(removed.status == 200 && removed.json?["data"] == [:])

        let events = await client.subscribe("room", tt: cursor).messages.filter { $0["e"] == 3 }
        #expect(events.count == 2)
        #expect(events.map { $0["d"]?["event"] } == ["added", "removed"])
        #expect(events[0]["d"]?["source"] == "actions")
        #expect(events[0]["d"]?["data"] == data)
        #expect(events[0]["i"] == "alice")
    }

    @Test func duplicatesAreRefusedAndBadBodiesGetTheNewErrorBody() async throws {
        let client = try PubSubClient()
        #expect(await add(client, "room", message: 5, value: "a").status == 200)
        let again = await add(client, "room", message: 5, value: "a")
        #expect(again.status == 409)
        #expect(again.json?["error"]?["message"] == "Action Already Added")
        #expect(await add(client, "room", message: 5, value: "a", uuid: "bob").status == 200)
        #expect(await add(client, "room", message: 5, type: "", value: "a").status == 400)
        #expect(
            await add(client, "room", message: 5, type: String(repeating: "t", count: 16), value: "a").status == 400)
        let notJSON = await client.send("POST", "/v1/message-actions/demo/channel/room/message/5?uuid=a", body: [1])
        #expect(notJSON.status == 400 && notJSON.json?["error"]?["message"] != nil)
        let missing = await client.send("DELETE", "/v1/message-actions/demo/channel/room/message/5/action/9?uuid=a")
        #expect(missing.status == 404)
    }

    @Test func listingPagesBackwardsFromStartWithMore() async throws {
        let client = try PubSubClient()
        var timetokens: [String] = []
        for value in 0..<5 {
            let reply = await add(client, "room", message: 100, value: "v\(value)")
            timetokens.append(try #require(reply.json?["data"]?["actionTimetoken"]?.stringValue))
        }
        let newest = await client.send("/v1/message-actions/demo/channel/room?limit=2")
        #expect(newest.json?["data"]?.arrayValue?.map { $0["value"] } == ["v3", "v4"])
        #expect(newest.json?["more"]?["start"]?.stringValue == timetokens[3])
        let older = await client.send("/v1/message-actions/demo/channel/room?limit=2&start=\(timetokens[3])")
        #expect(older.json?["data"]?.arrayValue?.map { $0["value"] } == ["v1", "v2"])
        let ranged = await client.send(
            "/v1/message-actions/demo/channel/room?start=\(timetokens[3])&end=\(timetokens[2])")
        #expect(ranged.json?["data"]?.arrayValue?.map { $0["value"] } == ["v2"])
        #expect(ranged.json?["more"] == nil)
    }

    @Test func historyWithActionsGroupsActionsByTypeAndValue() async throws {
        let client = try PubSubClient()
        var messages: [UInt64] = []
        for value in 0..<30 {
            messages.append(try PubSubClient.sentTimetoken(try await client.publish("room", .int(Int64(value)))))
        }
        _ = await add(client, "room", message: messages[29], value: "smiley", uuid: "a")
        _ = await add(client, "room", message: messages[29], value: "smiley", uuid: "b")
        _ = await add(client, "room", message: messages[29], type: "receipt", value: "read", uuid: "a")
        let reply = await client.send("/v3/history-with-actions/sub-key/demo/channel/room?max=100")
        let items = try #require(reply.json?["channels"]?["room"]?.arrayValue)
        #expect(items.count == 25)
        let actions = try #require(items.last?["actions"])
        #expect(actions["reaction"]?["smiley"]?.arrayValue?.compactMap { $0["uuid"] } == ["a", "b"])
        #expect(actions["receipt"]?["read"]?.arrayValue?.count == 1)
        #expect(items.first?["actions"] == [:])
        #expect(reply.json?["more"]?["start"]?.stringValue == String(messages[5]))
        #expect(reply.json?["more"]?["max"] == 25)
        // Deleting a message deletes its actions.
        _ = await client.send(
            "DELETE", "/v3/history/sub-key/demo/channel/room?start=\(messages[29] - 1)&end=\(messages[29])")
        #expect((await client.send("/v1/message-actions/demo/channel/room")).json?["data"] == [])
    }
}
