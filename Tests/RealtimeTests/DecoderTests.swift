import JSONCore
import Realtime
import Testing

private func decode(_ text: String) -> SubscribeDecodeOutcome {
    SubscribeResponseDecoder.decode(Array(text.utf8))
}

private func events(_ text: String) throws -> [PubNubEvent] {
    guard case .decoded(let response) = decode(text) else {
        Issue.record("did not decode")
        return []
    }
    return response.envelopes.map(PubNubEvent.init(envelope:))
}

@Suite("Channel names: presence suffix and wildcard rules")
struct ChannelNameTests {
    @Test("presence channel, base name and detection")
    func presence() {
        #expect(ChannelName("room").presence == "room-pnpres")
        #expect(ChannelName("room-pnpres").presence == "room-pnpres")
        #expect(ChannelName("room-pnpres").base == "room")
        #expect(ChannelName("room-pnpres").isPresence)
        #expect(!ChannelName("-pnpres").isPresence)
        #expect(!ChannelName("room").isPresence)
    }

    @Test(
        "wildcard patterns end in .* with no other star",
        arguments: [
            ("a.*", true), ("a.b.*", true), ("a.*-pnpres", true), ("*", false), ("a*", false), ("a.*.b", false),
            (".*", false),
        ])
    func wildcard(name: String, expected: Bool) {
        #expect(ChannelName(name).isWildcard == expected)
    }

    @Test(
        "a pattern covers the channels under its prefix",
        arguments: [
            ("a.*", "a.b", true), ("a.*", "a.b.c", true), ("a.*", "a", false), ("a.*", "ab", false),
            ("a.*", "a.", false), ("a.*-pnpres", "a.b-pnpres", true), ("a.*", "a.b-pnpres", false), ("x", "x", true),
        ])
    func matching(pattern: String, channel: String, expected: Bool) {
        #expect(ChannelName(pattern).matches(ChannelName(channel)) == expected)
    }
}

@Suite("Subscribe-answer decoder: cursor, envelopes, every event type, salvage")
struct DecoderTests {
    @Test("the cursor's string timetoken and integer region; an empty m")
    func cursor() {
        #expect(
            decode(#"{"t":{"t":"16873352451141050","r":42},"m":[]}"#)
                == .decoded(
                    SubscribeResponse(
                        cursor: SubscribeCursor(timetoken: 16_873_352_451_141_050, region: 42), envelopes: [])))
        guard case .decoded(let noRegion) = decode(#"{"t":{"t":"5"}}"#) else {
            Issue.record("no region must decode")
            return
        }
        #expect(noRegion.cursor == SubscribeCursor(timetoken: 5, region: 0))
    }

    @Test("every envelope key is read (a f e i s p o k c b d u cmt)")
    func envelopeKeys() {
        let text = #"""
            {"t":{"t":"17000393136828870","r":43},"m":[{"a":"2","f":514,"e":0,"i":"client-2","s":1,
            "p":{"t":"17000393136828867","r":43},"o":{"t":"17000393136828800","r":1},"k":"sub-c","c":"ch",
            "b":"ch","d":{"text":"hi"},"u":{"m":1},"cmt":"chat"}]}
            """#
        guard case .decoded(let response) = decode(text), let envelope = response.envelopes.first else {
            Issue.record("did not decode")
            return
        }
        #expect(envelope.shard == "2")
        #expect(envelope.flags == 514)
        #expect(envelope.type == 0)
        #expect(envelope.publisher == "client-2")
        #expect(envelope.sequence == 1)
        #expect(envelope.published == SubscribeCursor(timetoken: 17_000_393_136_828_867, region: 43))
        #expect(envelope.origination == SubscribeCursor(timetoken: 17_000_393_136_828_800, region: 1))
        #expect(envelope.subscribeKey == "sub-c")
        #expect(envelope.channel == "ch")
        #expect(envelope.subscriptionMatch == "ch")
        #expect(envelope.payload == ["text": "hi"])
        #expect(envelope.metadata == ["m": 1])
        #expect(envelope.customMessageType == "chat")
    }

    @Test("a message: payload, publisher, timetoken, metadata, custom type; b equal to c is no subscription")
    func message() throws {
        let decoded = try events(
            #"{"t":{"t":"2","r":1},"m":[{"a":"1","f":0,"i":"u9","p":{"t":"15614814456537442","r":2},"k":"demo","c":"TestChannel","b":"TestChannel","d":"Test Message","u":{"x":1},"cmt":"t"}]}"#
        )
        #expect(
            decoded == [
                .message(
                    PubNubMessage(
                        payload: "Test Message", channel: "TestChannel", publisher: "u9",
                        timetoken: 15_614_814_456_537_442,
                        metadata: ["x": 1], customMessageType: "t"))
            ])
    }

    @Test("a message's payload decodes to the user's type")
    func typedPayload() throws {
        struct Chat: Decodable, Equatable { var text: String }
        let message = PubNubMessage(payload: ["text": "hi"], channel: "c", timetoken: 1)
        #expect(try message.decodePayload(Chat.self) == Chat(text: "hi"))
    }

    @Test("a signal (e 1)")
    func signal() throws {
        let decoded = try events(
            #"{"t":{"t":"2","r":1},"m":[{"a":"1","f":514,"e":1,"i":"TestUser","p":{"t":"15670248886386268","r":2},"k":"demo","c":"TestChannel","d":"Test Signal","b":"TestChannel"}]}"#
        )
        #expect(
            decoded == [
                .signal(
                    PubNubMessage(
                        payload: "Test Signal", channel: "TestChannel", publisher: "TestUser",
                        timetoken: 15_670_248_886_386_268))
            ])
    }

    @Test("an App Context event (e 2)")
    func appContext() throws {
        let decoded = try events(
            #"{"t":{"t":"2","r":1},"m":[{"a":"4","f":0,"e":2,"p":{"t":"15702145904285560","r":2},"k":"demo","c":"TestUserID","d":{"source":"objects","version":"2.0","event":"set","type":"uuid","data":{"eTag":"E","id":"TestUserID","updated":"2019-10-06T01:55:50.645685Z"}},"b":"TestUserID"}]}"#
        )
        guard case .appContext(let event) = decoded.first else {
            Issue.record("not an App Context event: \(decoded)")
            return
        }
        #expect(event.event == "set")
        #expect(event.type == "uuid")
        #expect(event.data["id"] == "TestUserID")
        #expect(event.timetoken == 15_702_145_904_285_560)
    }

    @Test("a message action (e 3) with string timetokens")
    func messageAction() throws {
        let decoded = try events(
            #"{"t":{"t":"2","r":1},"m":[{"a":"1","f":514,"e":3,"i":"SomeUser","p":{"t":"15725459794105070","r":1},"k":"demo","c":"TestChannel","d":{"source":"actions","version":"1.0","data":{"messageTimetoken":"15725459448096144","type":"reaction","value":"winky_face","actionTimetoken":"15725459793173220"},"event":"added"}}]}"#
        )
        #expect(
            decoded == [
                .messageAction(
                    PubNubMessageActionEvent(
                        event: "added", channel: "TestChannel", type: "reaction", value: "winky_face",
                        messageTimetoken: 15_725_459_448_096_144, actionTimetoken: 15_725_459_793_173_220,
                        uuid: "SomeUser",
                        timetoken: 15_725_459_794_105_070))
            ])
    }

    @Test("a file event (e 4)")
    func file() throws {
        let decoded = try events(
            #"{"t":{"t":"2","r":1},"m":[{"a":"0","f":0,"e":4,"i":"up","p":{"t":"16632349939765880","r":43},"k":"s","c":"ch","u":"This is meta","d":{"message":{"text":"file caption"},"file":{"id":"30ce","name":"f.txt"}},"cmt":"x"}]}"#
        )
        #expect(
            decoded == [
                .file(
                    PubNubFileEvent(
                        channel: "ch", publisher: "up", message: ["text": "file caption"], fileId: "30ce",
                        fileName: "f.txt",
                        timetoken: 16_632_349_939_765_880, metadata: "This is meta", customMessageType: "x"))
            ])
    }

    @Test("a DataSync change (e 5 from data-sync) is a typed DataSync event; another e 5 is a message")
    func dataSync() throws {
        let decoded = try events(
            #"{"t":{"t":"2","r":1},"m":[{"a":"4","f":0,"e":5,"p":{"t":"3","r":1},"k":"s","c":"u1","b":"u1","d":{"version":"1.0","metadata":{"event":"create","source":"data-sync","type":"user","classVersion":1},"data":{"id":"u1","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z","eTag":"e1"}}},{"a":"4","f":0,"e":5,"p":{"t":"4","r":1},"k":"s","c":"u1","d":{"plain":true}}]}"#
        )
        guard decoded.count == 2, case .dataSync(let change) = decoded[0], case .message(let message) = decoded[1]
        else {
            Issue.record("unexpected: \(decoded)")
            return
        }
        #expect(change.change == .entityCreated)
        #expect(change.kind == .user)
        #expect(change.entity?.id == "u1")
        #expect(change.timetoken == 3)
        #expect(message.payload == ["plain": true])
    }

    @Test("presence: join on the -pnpres channel, subscription through a group, state under data")
    func presenceJoin() throws {
        let decoded = try events(
            #"{"t":{"t":"2","r":1},"m":[{"a":"3","f":514,"p":{"t":"15910420241218251","r":1},"k":"demo","c":"TestChannel-pnpres","d":{"action":"state-change","uuid":"db9","timestamp":1591042024,"data":{"key":"value"},"occupancy":0},"b":"g-pnpres"}]}"#
        )
        #expect(
            decoded == [
                .presence(
                    PubNubPresenceEvent(
                        event: .stateChange, channel: "TestChannel", subscription: "g-pnpres", uuid: "db9",
                        occupancy: 0,
                        timetoken: 15_910_420_241_218_251, timestamp: 1_591_042_024, state: ["key": "value"]))
            ])
    }

    @Test("presence interval with deltas, and with here_now_refresh")
    func presenceInterval() throws {
        let decoded = try events(
            #"{"t":{"t":"2","r":1},"m":[{"a":"4","f":0,"p":{"t":"15670995263313336","r":2},"k":"demo","c":"T-pnpres","d":{"action":"interval","timestamp":1567099526,"occupancy":2,"join":["a","b"],"leave":["c"],"timeout":["d"]},"b":"T-pnpres"},{"a":"4","f":0,"p":{"t":"14901247587675704","r":1},"k":"demo","c":"T-pnpres","d":{"action":"interval","timestamp":1490124758,"occupancy":2,"here_now_refresh":true}}]}"#
        )
        guard decoded.count == 2, case .presence(let deltas) = decoded[0], case .presence(let refresh) = decoded[1]
        else {
            Issue.record("unexpected: \(decoded)")
            return
        }
        #expect(deltas.event == .interval)
        #expect(deltas.join == ["a", "b"])
        #expect(deltas.leave == ["c"])
        #expect(deltas.timeout == ["d"])
        #expect(deltas.occupancy == 2)
        #expect(!deltas.hereNowRefresh)
        #expect(refresh.hereNowRefresh)
    }

    @Test(
        "unknown types and misshapen payloads are delivered raw, never dropped",
        arguments: [
            #"{"a":"1","f":0,"e":9,"p":{"t":"7","r":1},"k":"s","c":"ch","d":{"new":1}}"#,
            #"{"a":"1","f":0,"e":3,"p":{"t":"7","r":1},"k":"s","c":"ch","d":"not an action"}"#,
            #"{"a":"1","f":0,"p":{"t":"7","r":1},"k":"s","c":"ch-pnpres","d":{"no":"action"}}"#,
        ])
    func unknown(item: String) throws {
        let decoded = try events(#"{"t":{"t":"2","r":1},"m":["# + item + "]}")
        guard case .unknown(let raw) = decoded.first else {
            Issue.record("not raw: \(decoded)")
            return
        }
        #expect(raw.timetoken == 7)
    }

    @Test("an envelope without c or p is skipped with a problem; the others are kept")
    func skippedEnvelope() {
        guard
            case .decoded(let response) = decode(
                #"{"t":{"t":"9","r":1},"m":[{"a":"1","f":0,"p":{"t":"7","r":1},"d":1},{"a":"1","f":0,"p":{"t":"8","r":1},"c":"ok","d":2}]}"#
            )
        else {
            Issue.record("did not decode")
            return
        }
        #expect(response.envelopes.map(\.channel) == ["ok"])
        #expect(response.problems.count == 1)
    }

    @Test("a broken body still yields the cursor written first")
    func salvage() {
        #expect(
            decode(#"{"t":{"t":"15912183441526350","r":1},"m":[{"a":"3","f":512,"p":{"t":"1","r":1},"c":"x","d":"#)
                == .malformed(
                    salvagedCursor: SubscribeCursor(timetoken: 15_912_183_441_526_350, region: 1),
                    reason: decodeReason()))
    }

    private func decodeReason() -> String {
        if case .malformed(_, let reason) = decode(
            #"{"t":{"t":"15912183441526350","r":1},"m":[{"a":"3","f":512,"p":{"t":"1","r":1},"c":"x","d":"#)
        {
            return reason
        }
        return ""
    }

    @Test(
        "bodies that are not subscribe answers", arguments: ["[1,2]", #"{"m":[]}"#, #"{"t":{"t":"-1"}}"#, "<html>", ""])
    func notAnswers(body: String) {
        guard case .malformed = decode(body) else {
            Issue.record("\(body) must not decode")
            return
        }
    }
}
