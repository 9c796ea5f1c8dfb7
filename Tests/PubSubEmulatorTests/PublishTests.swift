import DataSyncEmulator
import EmulatorHTTP
import JSONCore
import Testing

@Suite struct PublishTests {
    @Test func timeAnswersOneSeventeenDigitNumber() async throws {
        let client = try PubSubClient()
        let reply = await client.send("/time/0?uuid=x")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "text/javascript; charset=\"UTF-8\"")
        let value = try #require(reply.json?[0]?.int64Value)
        #expect(String(value).count == 17)
        #expect(value == 17_887_664_950_000_000 || value > 17_887_664_950_000_000)
    }

    @Test func getPublishIsDeliveredWithEveryEnvelopeKey() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        let meta = PubSubClient.encode(#"{"k":"v"}"#)
        let sent = try await client.publish(
            "room", ["text": "héllo 🎉", "n": 1], query: "uuid=alice&meta=\(meta)&custom_message_type=chat-msg&seqn=7")
        let timetoken = try PubSubClient.sentTimetoken(sent)
        #expect(sent.text == "[1,\"Sent\",\"\(timetoken)\"]")
        #expect(timetoken > cursor)
        let reply = await client.subscribe("room", tt: cursor)
        #expect(reply.text.hasPrefix("{\"t\":{\"t\":\"\(timetoken)\",\"r\":1},\"m\":["))
        let envelope = try #require(reply.messages.first)
        #expect(envelope["a"] == "1")
        #expect(envelope["f"] == 0)
        #expect(envelope["e"] == nil)
        #expect(envelope["i"] == "alice")
        #expect(envelope["p"] == ["t": .string(String(timetoken)), "r": 1])
        #expect(envelope["k"] == "demo")
        #expect(envelope["c"] == "room")
        #expect(envelope["b"] == nil)
        #expect(envelope["d"] == ["text": "héllo 🎉", "n": 1])
        #expect(envelope["u"] == ["k": "v"])
        #expect(envelope["cmt"] == "chat-msg")
        #expect(envelope["s"] == 7)
    }

    @Test func pythonStyleEscapesAndHalfEncodedMetaAreAccepted() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        // json.dumps with ensure_ascii: whitespace and a surrogate pair; fire-style literal {}[]: in meta.
        let message = PubSubClient.encode(#"{"a": "\ud83c\udf89", "b": [1, 2]}"#)
        let reply = await client.send(
            "/publish/demo/demo/0/room/0/\(message)?meta={%22k%22:%20%22v%22,%20%22n%22:%20[1,%202]}&uuid=p")
        #expect(reply.status == 200, "\(reply.text)")
        let received = await client.subscribe("room", tt: cursor)
        #expect(received.payloads == [["a": "🎉", "b": [1, 2]]])
        #expect(received.messages.first?["u"] == ["k": "v", "n": [1, 2]])
    }

    @Test(arguments: ["plain", "gzip", "zlib", "raw"])
    func postBodiesAreSniffedWhateverTheHeaderSays(framing: String) async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        let json = Array(#"{"compressed":"yes","pad":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#.utf8)
        let body: [UInt8]
        switch framing {
        case "gzip": body = try #require(Gzip.compress(json, format: .gzip))
        case "zlib": body = try #require(Gzip.compress(json, level: 2, format: .zlib))
        case "raw": body = try #require(Gzip.compress(json, format: .raw))
        default: body = json
        }
        let reply = await client.send(
            "POST", "/publish/demo/demo/0/room/0?uuid=p", body: body,
            headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")])
        _ = try PubSubClient.sentTimetoken(reply)
        let received = await client.subscribe("room", tt: cursor)
        #expect(received.payloads.first?["compressed"] == "yes")
    }

    @Test func errorsKeepTheArrayShapeAndStatus() async throws {
        let client = try PubSubClient()
        let big = Array(("\"" + String(repeating: "x", count: 33 * 1024) + "\"").utf8)
        let tooLarge = await client.send("POST", "/publish/demo/demo/0/room/0", body: big)
        #expect(tooLarge.status == 400)
        #expect(tooLarge.json?[0] == 0)
        #expect(tooLarge.json?[1] == "Message Too Large")
        #expect(tooLarge.json?[2]?.stringValue?.count == 17)

        let invalid = await client.send("/publish/demo/demo/0/room/0/%7Bnot%20json")
        #expect(invalid.status == 400)
        #expect(invalid.json?[1] == "Invalid JSON")

        let wrongKey = await client.send("/publish/nope/demo/0/room/0/1")
        #expect(wrongKey.status == 400)
        #expect(wrongKey.json?[1] == "Invalid Key")

        let unknownSub = await client.send("/publish/demo/other/0/room/0/1")
        #expect(unknownSub.json?[1] == "Invalid Key")

        let wildcard = await client.send("/publish/demo/demo/0/room.%2A/0/1")
        #expect(wildcard.status == 400)
        #expect(wildcard.json?[1] == "Invalid Channel")

        let badType = await client.send("/publish/demo/demo/0/room/0/1?custom_message_type=pn-x")
        #expect(badType.status == 400)

        let subscribe = await client.send("/v2/subscribe/other/room/0?tt=0")
        #expect(subscribe.status == 400)
        #expect(subscribe.json?["message"] == "Invalid Subscribe Key")
    }

    @Test func signalsAreCappedAtSixtyFourBytesAndDeliveredWithE1() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        let tooBig = try await client.signal("room", .string(String(repeating: "s", count: 63)))
        #expect(tooBig.status == 400)
        #expect(tooBig.json?[1] == "Signal size too large")
        let sent = try PubSubClient.sentTimetoken(
            try await client.signal(
                "room", .string(String(repeating: "s", count: 62)), query: "uuid=p&custom_message_type=typing"))
        let reply = await client.subscribe("room", tt: cursor)
        #expect(reply.messages.count == 1)
        #expect(reply.messages.first?["e"] == 1)
        #expect(reply.messages.first?["cmt"] == "typing")
        #expect(reply.cursor == sent)
    }

    @Test(arguments: ["store=0&norep=true", "store=0&norep=1"])
    func fireIsAcknowledgedButNeverDelivered(query: String) async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        let fired = try PubSubClient.sentTimetoken(try await client.publish("room", "fire", query: "uuid=p&\(query)"))
        #expect(fired > cursor)
        let after = try PubSubClient.sentTimetoken(try await client.publish("room", "after"))
        let reply = await client.subscribe("room", tt: cursor)
        #expect(reply.payloads == ["after"])
        #expect(reply.cursor == after)
    }

    @Test func configuredKeysetsAreTheOnlyOnesAccepted() async throws {
        var client = try PubSubClient(
            pubSub: PubSubConfiguration(keysets: [
                PubSubKeyset(publishKey: "pub-c-1", subscribeKey: "sub-c-1", secretKey: "sec-c-1")
            ]))
        #expect(await client.send("/publish/demo/demo/0/room/0/1").json?[1] == "Invalid Key")
        client.publishKey = "pub-c-1"
        client.subscribeKey = "sub-c-1"
        _ = try PubSubClient.sentTimetoken(try await client.publish("room", 1))
        #expect(client.emulator.pubSubKeysets.map(\.secretKey) == ["sec-c-1"])
    }
}
