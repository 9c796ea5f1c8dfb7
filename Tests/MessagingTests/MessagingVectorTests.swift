import DataSyncTestSupport
import JSONCore
import Messaging
import Testing
import Transport

@testable import Messaging

/// The request/response vectors of spec/pubsub-vectors.json that concern the calls of this module,
/// transcribed (index kept). The vector's keys, user id, method, path and operation query must be
/// sent exactly (query order aside); its answer must decode to the value given, or to the error
/// reason given.
///
/// Left out on purpose: 2 (`norep` on a plain publish: this API has no replicate switch; fire sends
/// it), 5 (Kotlin's `/v2/publish`, not used), 12 (PubNub Swift's fire, which omits `norep`: this
/// SDK sends `norep=true` as the protocol recommends, vector 11), the subscribe, heartbeat, leave
/// and Access Manager vectors (other modules).
@Suite("pubsub-vectors.json")
struct MessagingVectorTests {
    enum Outcome: Sendable {
        case value(JSONValue)
        case reason(PubNubError.Reason)
    }

    struct Vector: Sendable, CustomStringConvertible {
        var index: Int
        var feature: String
        var publishKey = "myPublishKey"
        var subscribeKey = "mySubKey"
        var userId = "myUUID"
        var method = "GET"
        /// `nil` when the vector's path is a placeholder (`<very long encoded json>`).
        var path: String?
        var query: [String: String] = [:]
        var status = 200
        var response: String
        var outcome: Outcome
        var call: @Sendable (PubNub) async throws -> JSONValue

        var description: String { "\(index) \(feature)" }
    }

    static let object: JSONValue = ["such": "object"]
    static let objectSegment = "%7B%22such%22%3A%22object%22%7D"
    static let sent = #"[1,"Sent","14647523059145592"]"#
    static let sentTimetoken: JSONValue = .string("14647523059145592")

    static func timetoken(_ value: Timetoken) -> JSONValue { .string(String(value)) }
    static func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }

    static let vectors: [Vector] = [
        Vector(
            index: 0, feature: "publish.get", path: "/publish/myPublishKey/mySubKey/0/ch1/0/\(objectSegment)",
            query: ["custom_message_type": "test-message-type"], response: sent, outcome: .value(sentTimetoken)
        ) { pubnub in
            timetoken(try await pubnub.publish(channel: "ch1", message: object, customMessageType: "test-message-type"))
        },
        Vector(
            index: 1, feature: "publish.get.store_ttl", path: "/publish/myPublishKey/mySubKey/0/ch1/0/\(objectSegment)",
            query: ["store": "0", "custom_message_type": "test-message-type"], response: sent,
            outcome: .value(sentTimetoken)
        ) { pubnub in
            timetoken(
                try await pubnub.publish(
                    channel: "ch1", message: object, customMessageType: "test-message-type", shouldStore: false))
        },
        // 3: JS deflates; this SDK gzips (spec §2.2). Same path, same decoded body.
        Vector(
            index: 3, feature: "publish.post.deflate (as gzip)", method: "POST",
            path: "/publish/myPublishKey/mySubKey/0/ch1/0", response: sent, outcome: .value(sentTimetoken)
        ) { pubnub in
            timetoken(try await pubnub.publish(channel: "ch1", message: object, shouldCompress: true))
        },
        Vector(
            index: 6, feature: "publish.error.message_too_large", publishKey: "demo", subscribeKey: "demo",
            userId: "user-1", status: 400, response: #"[0,"Message Too Large","15635079026391944"]"#,
            outcome: .reason(.messageTooLarge)
        ) { pubnub in timetoken(try await pubnub.publish(channel: "ch", message: "hi")) },
        Vector(
            index: 7, feature: "publish.error.invalid_key", publishKey: "badkey", subscribeKey: "demo",
            userId: "user-1", path: "/publish/badkey/demo/0/ch/0/%22hi%22", status: 400,
            response: #"[0,"Invalid Key","15635079026391944"]"#, outcome: .reason(.invalidKey)
        ) { pubnub in timetoken(try await pubnub.publish(channel: "ch", message: "hi")) },
        Vector(
            index: 8, feature: "publish.error.invalid_json", publishKey: "demo", subscribeKey: "demo",
            userId: "user-1", status: 400, response: #"[0,"Invalid JSON","15646801805496402"]"#,
            outcome: .reason(.invalidJSON)
        ) { pubnub in timetoken(try await pubnub.publish(channel: "ch", message: "hi")) },
        Vector(
            index: 9, feature: "publish.error.uri_too_long", publishKey: "demo", subscribeKey: "demo",
            userId: "user-1", status: 414,
            response: #"{"message":"Request URI Too Long","error":true,"service":"Balancer","status":414}"#,
            outcome: .reason(.requestURITooLong)
        ) { pubnub in timetoken(try await pubnub.publish(channel: "ch", message: "hi")) },
        Vector(
            index: 10, feature: "publish.error.pam_forbidden", publishKey: "demo", subscribeKey: "demo",
            userId: "user-1", path: "/publish/demo/demo/0/channelSwift/0/%22hi%22", status: 403,
            response:
                #"{"message":"Forbidden","payload":{"channels":["channelSwift"]},"error":true,"service":"Access Manager","status":403}"#,
            outcome: .reason(.forbidden)
        ) { pubnub in timetoken(try await pubnub.publish(channel: "channelSwift", message: "hi")) },
        Vector(
            index: 11, feature: "fire.get", path: "/publish/myPublishKey/mySubKey/0/ch1/0/\(objectSegment)",
            query: ["norep": "true", "store": "0"], response: sent, outcome: .value(sentTimetoken)
        ) { pubnub in timetoken(try await pubnub.fire(channel: "ch1", message: object)) },
        Vector(
            index: 13, feature: "signal.get", path: "/signal/myPublishKey/mySubKey/0/ch1/0/\(objectSegment)",
            query: ["custom_message_type": "test-message-type"], response: sent, outcome: .value(sentTimetoken)
        ) { pubnub in
            timetoken(try await pubnub.signal(channel: "ch1", message: object, customMessageType: "test-message-type"))
        },
        Vector(
            index: 14, feature: "signal.error.too_large", publishKey: "demo", subscribeKey: "demo", userId: "user-1",
            path: "/signal/demo/demo/0/ch1/0/%22hi%22", status: 400,
            response: #"[0,"Signal size too large","15910331991263359"]"#, outcome: .reason(.signalTooLarge)
        ) { pubnub in timetoken(try await pubnub.signal(channel: "ch1", message: "hi")) },
        Vector(
            index: 38, feature: "presence.set_state", subscribeKey: "mySubscribeKey",
            path: "/v2/presence/sub-key/mySubscribeKey/channel/testChannel/uuid/myUUID/data",
            query: ["state": #"{"new":"state"}"#],
            response: #"{"status":200,"message":"OK","payload":{"age":20,"status":"online"},"service":"Presence"}"#,
            outcome: .value(["age": 20, "status": "online"])
        ) { pubnub in try await pubnub.setPresence(state: ["new": "state"], on: ["testChannel"]) },
        Vector(
            index: 39, feature: "presence.get_state.single", subscribeKey: "demo", userId: "TestDuplicateUUID",
            path: "/v2/presence/sub-key/demo/channel/channelSwift/uuid/TestDuplicateUUID",
            response:
                #"{"status":200,"message":"OK","payload":{"text":"hey"},"uuid":"TestDuplicateUUID","channel":"channelSwift","service":"Presence"}"#,
            outcome: .value(["channelSwift": ["text": "hey"]])
        ) { pubnub in .object(try await pubnub.getPresenceState(on: ["channelSwift"])) },
        Vector(
            index: 40, feature: "presence.get_state.multi", subscribeKey: "demo",
            userId: "db9c5e39-7c95-40f5-8d71-125765b6f561",
            path:
                "/v2/presence/sub-key/demo/channel/channelSwift,test,channel/uuid/db9c5e39-7c95-40f5-8d71-125765b6f561",
            response:
                #"{"status":200,"message":"OK","payload":{"channels":{"channelSwift":{"text":"hey"},"test":{"text":"hey"},"channel":{"text":"hey"}}},"uuid":"db9c5e39-7c95-40f5-8d71-125765b6f561","service":"Presence"}"#,
            outcome: .value(["channelSwift": ["text": "hey"], "test": ["text": "hey"], "channel": ["text": "hey"]])
        ) { pubnub in .object(try await pubnub.getPresenceState(on: ["channelSwift", "test", "channel"])) },
        Vector(
            index: 41, feature: "presence.here_now.single", subscribeKey: "mySubscribeKey",
            path: "/v2/presence/sub-key/mySubscribeKey/channel/game1",
            query: ["limit": "1000", "disable_uuids": "0", "state": "0"],
            response:
                #"{"status":200,"message":"OK","uuids":["a3ffd012-a3b9-478c-8705-64089f24d71e"],"occupancy":1,"service":"Presence"}"#,
            outcome: .value(["game1": [1, ["a3ffd012-a3b9-478c-8705-64089f24d71e"]], "total": [1, 1]])
        ) { pubnub in hereNowSummary(try await pubnub.hereNow(on: ["game1"])) },
        Vector(
            index: 42, feature: "presence.here_now.group", subscribeKey: "mySubscribeKey",
            path: "/v2/presence/sub-key/mySubscribeKey/channel/,",
            query: ["channel-group": "cg1", "limit": "1000", "disable_uuids": "0", "state": "0"],
            response:
                #"{"status":200,"message":"OK","payload":{"channels":{"ch1":{"uuids":["a581c974-e2f9-4088-9cc8-9632708e012d"],"occupancy":1}},"total_channels":3,"total_occupancy":7},"service":"Presence"}"#,
            outcome: .value(["ch1": [1, ["a581c974-e2f9-4088-9cc8-9632708e012d"]], "total": [3, 7]])
        ) { pubnub in hereNowSummary(try await pubnub.hereNow(and: ["cg1"])) },
        Vector(
            index: 43, feature: "presence.here_now.stateful", subscribeKey: "demo", userId: "u1",
            path: "/v2/presence/sub-key/demo/channel/TestChannel,Other",
            query: ["disable_uuids": "0", "state": "1", "limit": "1000", "offset": "0"],
            response:
                #"{"status":200,"message":"OK","service":"Presence","payload":{"channels":{"TestChannel":{"occupancy":1,"uuids":[{"uuid":"pn-12","state":{"SubKey":"SubValue"}}]}},"total_channels":1,"total_occupancy":1}}"#,
            outcome: .value(["TestChannel": [1, ["pn-12"], [["SubKey": "SubValue"]]], "total": [1, 1]])
        ) { pubnub in
            hereNowSummary(try await pubnub.hereNow(on: ["TestChannel", "Other"], includeState: true, offset: 0))
        },
        Vector(
            index: 44, feature: "presence.where_now", subscribeKey: "mySubscribeKey",
            path: "/v2/presence/sub-key/mySubscribeKey/uuid/myUUID",
            response: #"{"status":200,"message":"OK","payload":{"channels":["a","b"]},"service":"Presence"}"#,
            outcome: .value(["a", "b"])
        ) { pubnub in strings(try await pubnub.whereNow(for: "myUUID")) },
        Vector(
            index: 45, feature: "presence.set_state.error_missing", subscribeKey: "demo", userId: "u1",
            path: "/v2/presence/sub-key/demo/channel/ch1/uuid/u1/data", query: ["state": "{}"], status: 400,
            response: #"{"status":400,"error":1,"message":"No state specified.","service":"Presence"}"#,
            outcome: .reason(.badRequest)
        ) { pubnub in try await pubnub.setPresence(state: JSONValue.object([:]), on: ["ch1"]) },
        Vector(
            index: 46, feature: "channel_group.add", subscribeKey: "demo", userId: "u1",
            path: "/v1/channel-registration/sub-key/demo/channel-group/TestGroup", query: ["add": "ch1,ch2"],
            response: #"{"status":200,"message":"OK","service":"channel-registry","error":false}"#,
            outcome: .value(true)
        ) { pubnub in
            try await pubnub.add(channels: ["ch1", "ch2"], to: "TestGroup")
            return true
        },
        Vector(
            index: 47, feature: "channel_group.remove_channels", subscribeKey: "demo", userId: "u1",
            path: "/v1/channel-registration/sub-key/demo/channel-group/TestGroup", query: ["remove": "ch1"],
            response: #"{"status":200,"message":"OK","service":"channel-registry","error":false}"#,
            outcome: .value(true)
        ) { pubnub in
            try await pubnub.remove(channels: ["ch1"], from: "TestGroup")
            return true
        },
        Vector(
            index: 48, feature: "channel_group.list_channels", subscribeKey: "demo", userId: "u1",
            path: "/v1/channel-registration/sub-key/demo/channel-group/TestGroup",
            response:
                #"{"status":200,"payload":{"channels":["TestChannel","AnotherChannel","aaaa"],"group":"TestGroup"},"service":"channel-registry","error":false}"#,
            outcome: .value(["TestChannel", "AnotherChannel", "aaaa"])
        ) { pubnub in strings(try await pubnub.listChannels(for: "TestGroup")) },
        Vector(
            index: 49, feature: "channel_group.list_groups", subscribeKey: "demo", userId: "u1",
            path: "/v1/channel-registration/sub-key/demo/channel-group",
            response:
                #"{"status":200,"payload":{"namespace":"","groups":["3","88e5b367-47a8-4de5-b131-7256de27521c","Channel-2f68xhutu","SwiftGroup"]},"service":"channel-registry","error":false}"#,
            outcome: .value(["3", "88e5b367-47a8-4de5-b131-7256de27521c", "Channel-2f68xhutu", "SwiftGroup"])
        ) { pubnub in strings(try await pubnub.listChannelGroups()) },
        Vector(
            index: 50, feature: "channel_group.delete", subscribeKey: "demo", userId: "u1",
            path: "/v1/channel-registration/sub-key/demo/channel-group/TestGroup/remove",
            response: #"{"status":200,"message":"OK","service":"channel-registry","error":false}"#,
            outcome: .value(true)
        ) { pubnub in
            try await pubnub.remove(channelGroup: "TestGroup")
            return true
        },
        Vector(
            index: 51, feature: "channel_group.error.max_channels", subscribeKey: "demo", userId: "u1",
            path: "/v1/channel-registration/sub-key/demo/channel-group/TestGroup", query: ["add": "ch1"],
            status: 400,
            response:
                #"{"status":400,"message":"Maximum channel group count exceeded.","service":"channel-registry","error":true}"#,
            outcome: .reason(.channelGroupLimitExceeded)
        ) { pubnub in
            try await pubnub.add(channels: ["ch1"], to: "TestGroup")
            return true
        },
        Vector(
            index: 52, feature: "channel_group.error.invalid_char", subscribeKey: "demo", userId: "u1",
            path: "/v1/channel-registration/sub-key/demo/channel-group/bad%3Agroup", status: 400,
            response:
                #"{"status":400,"message":"Reserved character in input parameters.","service":"channel-registry","error":true}"#,
            outcome: .reason(.reservedCharacter)
        ) { pubnub in strings(try await pubnub.listChannels(for: "bad:group")) },
        Vector(
            index: 53, feature: "time", userId: "u1", path: "/time/0", response: "[15643405135132358]",
            outcome: .value("15643405135132358")
        ) { pubnub in timetoken(try await pubnub.time()) },
    ]

    /// Here-now as `{channel: [occupancy, [user ids], [states]?], "total": [channels, occupancy]}`.
    static func hereNowSummary(_ answer: PubNubHereNow) -> JSONValue {
        var summary: [String: JSONValue] = [
            "total": [.int(Int64(answer.totalChannels)), .int(Int64(answer.totalOccupancy))]
        ]
        for (name, channel) in answer.channels {
            var entry: [JSONValue] = [
                .int(Int64(channel.occupancy)), strings(channel.occupants.map(\.userId)),
            ]
            let states = channel.occupants.compactMap(\.state)
            if !states.isEmpty { entry.append(.array(states)) }
            summary[name] = .array(entry)
        }
        return .object(summary)
    }

    @Test(arguments: vectors)
    func vector(_ vector: Vector) async throws {
        let recorder = RecordingHTTPClient(
            MockHTTPClient.success(
                status: vector.status, body: Array(vector.response.utf8),
                headers: ["Content-Type": "text/javascript; charset=\"UTF-8\""]))
        let pubnub = MessagingFixtures.pubnub(
            transport: recorder, publishKey: vector.publishKey, subscribeKey: vector.subscribeKey,
            userId: vector.userId)
        let result: Result<JSONValue, any Error>
        do {
            result = .success(try await vector.call(pubnub))
        } catch {
            result = .failure(error)
        }
        let request = try #require(recorder.lastRequest)
        #expect(request.method.rawValue == vector.method)
        if let path = vector.path { #expect(request.path == path) }
        #expect(MessagingFixtures.operationQuery(request) == vector.query)
        #expect(request.queryValue("uuid") == vector.userId)
        #expect(request.queryValue("auth") == (vector.path == "/time/0" ? nil : MessagingFixtures.token))
        switch (vector.outcome, result) {
        case (.value(let expected), .success(let value)):
            #expect(value == expected)
        case (.reason(let reason), .failure(let error)):
            #expect(error.pubNubError?.reason == reason)
            #expect(error.pubNubError?.statusCode == vector.status)
        case (_, let result):
            Issue.record("unexpected outcome \(result)")
        }
        if vector.method == "POST" {
            let body = try #require(request.body)
            #expect(request.headers["Content-Encoding"] == "gzip")
            #expect(GzipBody.decompress(body).map { String(decoding: $0, as: UTF8.self) } == #"{"such":"object"}"#)
        }
    }
}
