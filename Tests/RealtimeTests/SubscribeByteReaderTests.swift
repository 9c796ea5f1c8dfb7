import Foundation
import JSONCore
import Realtime
import Testing

/// Decodes `body` with the byte reader, records an issue when it gave up or when the tree decoder
/// reads the same body differently, and returns the byte reader's answer.
private func direct(_ body: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> SubscribeResponse? {
    let direct = SubscribeResponseDecoder.decodeDirectly(body)
    #expect(direct != nil, "the byte reader gave up on a well-formed answer", sourceLocation: sourceLocation)
    if let direct {
        #expect(
            SubscribeResponseDecoder.decodeThroughTree(body) == .decoded(direct), sourceLocation: sourceLocation)
        #expect(SubscribeResponseDecoder.decode(body) == .decoded(direct), sourceLocation: sourceLocation)
    }
    return direct
}

private func direct(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> SubscribeResponse? {
    direct(Array(text.utf8), sourceLocation: sourceLocation)
}

/// Whether `decode` and the tree decoder agree on `body`.
private func agree(_ body: [UInt8]) -> Bool {
    SubscribeResponseDecoder.decode(body) == SubscribeResponseDecoder.decodeThroughTree(body)
}

/// An answer with one envelope holding `members` (its `c` and `p` included by the caller).
private func oneEnvelope(_ members: String) -> String {
    #"{"t":{"t":"100","r":1},"m":[{"# + members + "}]}"
}

@Suite("Subscribe-answer byte reader: the tree decoder's answers, read from the bytes")
struct SubscribeByteReaderTests {
    @Test("the service's shape (a f i p k c d u) fills every field")
    func serviceShape() {
        let response = direct(
            #"{"t":{"t":"17900000000000100","r":1},"m":[{"a":"1","f":0,"i":"user-3","p":{"t":"17900000000000003","r":1},"k":"sub-c-bench","c":"room.3","d":{"text":"message number 3","n":3},"u":{"lang":"en"}}]}"#
        )
        #expect(response?.cursor == SubscribeCursor(timetoken: 17_900_000_000_000_100, region: 1))
        let envelope = response?.envelopes.first
        #expect(envelope?.shard == "1")
        #expect(envelope?.flags == 0)
        #expect(envelope?.publisher == "user-3")
        #expect(envelope?.published == SubscribeCursor(timetoken: 17_900_000_000_000_003, region: 1))
        #expect(envelope?.subscribeKey == "sub-c-bench")
        #expect(envelope?.channel == "room.3")
        #expect(envelope?.payload == ["text": "message number 3", "n": 3])
        #expect(envelope?.metadata == ["lang": "en"])
        #expect(envelope?.type == nil)
        #expect(response?.problems == [])
    }

    @Test("metadata sent as null is no metadata, in both decoders")
    func nullMetadata() throws {
        // Before: `field.isNull ? nil : field` took `nil` as the JSON literal null, so the
        // envelope carried `.some(.null)`.
        let response = direct(oneEnvelope(#""c":"ch","p":{"t":"7","r":1},"d":1,"u":null"#))
        let envelope = try #require(response?.envelopes.first)
        #expect(envelope.metadata == JSONValue?.none)
    }

    @Test("unknown keys are skipped at the root, in envelopes and in cursors, whatever their values")
    func unknownKeys() {
        let response = direct(
            #"{"x":{"t":{"t":"1"},"m":[1]},"t":{"q":[{"t":"9"}],"t":"5","r":2,"z":null},"y":[[],{}],"m":[{"":1,"C":"no","cm":true,"cmtx":"no","cc":{"c":"no"},"pp":{"t":"1"},"t":"no","r":3,"m":[],"c":"ch","p":{"t":"7","x":{"r":9},"r":4},"zz":-1.5e3,"d":"kept","n":false}],"after":"x"}"#
        )
        #expect(response?.cursor == SubscribeCursor(timetoken: 5, region: 2))
        #expect(
            response?.envelopes == [
                SubscribeEnvelope(published: SubscribeCursor(timetoken: 7, region: 4), channel: "ch", payload: "kept")
            ])
    }

    @Test("escaped and non-ASCII keys and values are decoded before they are matched")
    func escapes() {
        let response = direct(
            #"{"\u0074":{"\u0074":"5","\u0072":2},"\u006d":[{"\u0063":"ro\u006fm","p":{"t":"7"},"c\u006dt":"x","\u0064":"\/","i":"café","k":"caf\u00e9","b":"a\"b","é":1}]}"#
        )
        #expect(response?.cursor == SubscribeCursor(timetoken: 5, region: 2))
        let envelope = response?.envelopes.first
        #expect(envelope?.channel == "room")
        #expect(envelope?.customMessageType == "x")
        #expect(envelope?.payload == "/")
        #expect(envelope?.publisher == "café")
        #expect(envelope?.subscribeKey == "café")
        #expect(envelope?.subscriptionMatch == #"a"b"#)
    }

    @Test("white space between every token")
    func whitespace() {
        let response = direct(
            " \r\n\t{ \"t\" :\n{ \"t\" : \"5\" , \"r\" : 2 } ,\r\n \"m\" : [ { \"c\" : \"ch\" ,\t\"p\"\t:\t{\t\"t\"\t:\t\"7\"\t}\t, \"f\" : 3 , \"d\" : [ 1 , { \"a\" : null } ] } , { } ] } \n"
        )
        #expect(response?.cursor == SubscribeCursor(timetoken: 5, region: 2))
        #expect(response?.envelopes.first?.flags == 3)
        #expect(response?.envelopes.first?.payload == ([1, ["a": .null]] as JSONValue))
        #expect(response?.problems == ["m[1]: no \"c\" channel"])
    }

    @Test("keys in any order: m before t, d before c, r before t")
    func outOfOrder() {
        let response = direct(
            #"{"m":[{"d":{"n":1},"p":{"r":3,"t":"8"},"c":"ch"}],"t":{"r":2,"t":"5"}}"#)
        #expect(response?.cursor == SubscribeCursor(timetoken: 5, region: 2))
        #expect(
            response?.envelopes == [
                SubscribeEnvelope(published: SubscribeCursor(timetoken: 8, region: 3), channel: "ch", payload: ["n": 1])
            ])
    }

    @Test(
        "the last of repeated keys wins, as in the tree decoder",
        arguments: [
            (#""c":"first","c":"second","p":{"t":"1"}"#, "second", Timetoken(1)),
            (#""c":"ch","p":{"t":"1"},"p":{"t":"2"}"#, "ch", 2),
            (#""c":"ch","p":{"t":"1","t":"3"}"#, "ch", 3),
            (#""c":"ch","p":{"t":"x"},"p":{"t":"4"}"#, "ch", 4),
            (#""c":5,"c":"ch","p":{"t":"1"}"#, "ch", 1),
        ])
    func duplicates(members: String, channel: String, timetoken: Timetoken) {
        let response = direct(oneEnvelope(members))
        #expect(response?.envelopes.first?.channel == channel)
        #expect(response?.envelopes.first?.published.timetoken == timetoken)
    }

    @Test("string fields reused from the previous envelope only when their bytes are the same")
    func reusedStrings() throws {
        // Same lengths with different bytes, the same bytes, then a field written with an escape.
        let envelopes = [
            #"{"a":"1","c":"room.1","i":"ada","k":"sub-c-1","p":{"t":"1"},"d":1}"#,
            #"{"a":"1","c":"room.2","i":"bob","k":"sub-c-1","p":{"t":"2"},"d":2}"#,
            #"{"a":"2","c":"room.2","i":"bob","k":"sub-c-2","p":{"t":"3"},"d":3}"#,
            #"{"a":"2","c":"room\u002e2","i":"b\u00f6b","k":"sub-c-2","p":{"t":"4"},"d":4}"#,
            #"{"a":"2","c":"room.3","i":"bob","k":"sub-c-2","p":{"t":"5"},"d":5,"b":"room.*"}"#,
        ]
        let body = #"{"t":{"t":"9","r":1},"m":["# + envelopes.joined(separator: ",") + "]}"
        let response = try #require(direct(body))
        #expect(response.envelopes.map(\.shard) == ["1", "1", "2", "2", "2"])
        #expect(response.envelopes.map(\.channel) == ["room.1", "room.2", "room.2", "room.2", "room.3"])
        #expect(response.envelopes.map(\.publisher) == ["ada", "bob", "bob", "b\u{F6}b", "bob"])
        #expect(response.envelopes.map(\.subscribeKey) == ["sub-c-1", "sub-c-1", "sub-c-2", "sub-c-2", "sub-c-2"])
        #expect(response.envelopes.map(\.subscriptionMatch) == [nil, nil, nil, nil, "room.*"])
    }

    @Test("the string table tells apart values that share a slot, and holds more values than slots")
    func stringTableCollisions() throws {
        // `ra.1` and `rb.1` (same first byte, last byte and length) share a slot; 40 channels are
        // more than the table's 32 slots, so earlier ones are evicted and read again.
        var channels = ["ra.1", "rb.1", "ra.1", "rb.1", "ra.1"]
        channels += (0..<40).map { "channel-\($0)" }
        channels += (0..<40).map { "channel-\($0)" }.reversed()
        let envelopes = channels.enumerated().map { index, channel in
            #"{"c":""# + channel + #"","i":"u\#(index % 3)","p":{"t":"\#(index + 1)"},"d":\#(index)}"#
        }
        let body = #"{"t":{"t":"9","r":1},"m":["# + envelopes.joined(separator: ",") + "]}"
        let response = try #require(direct(body))
        #expect(response.envelopes.map(\.channel) == channels)
        #expect(response.envelopes.map(\.publisher) == channels.indices.map { "u\($0 % 3)" })
    }

    @Test("a repeated key whose last value is unreadable makes the envelope a problem")
    func duplicateUnreadable() {
        #expect(direct(oneEnvelope(#""c":"ch","c":5,"p":{"t":"1"}"#))?.problems == [#"m[0]: no "c" channel"#])
        #expect(
            direct(oneEnvelope(#""c":"ch","p":{"t":"1"},"p":{"t":"1","t":"x"}"#))?.problems == [
                #"m[0]: no readable "p" timetoken"#
            ])
    }

    @Test("repeated root keys: the last t and the last m")
    func duplicateRootKeys() {
        let response = direct(
            #"{"t":{"t":"1"},"m":[{"c":"old","p":{"t":"1"}}],"t":{"t":"2","r":5},"m":[{"c":"new","p":{"t":"3"}}]}"#)
        #expect(response?.cursor == SubscribeCursor(timetoken: 2, region: 5))
        #expect(response?.envelopes.map(\.channel) == ["new"])
    }

    @Test(
        "timetokens: digits read in place up to UInt64.max, anything else by the tree decoder's rule",
        arguments: [
            (#""18446744073709551615""#, Timetoken?.some(.max)),
            (#""18446744073709551616""#, nil),
            (#""99999999999999999999999999""#, nil),
            (#""0000000000000000000000000000001""#, 1),
            (#""17900000000000003""#, 17_900_000_000_000_003),
            // Eight digits at a time: word boundaries, a non-digit next to '0' or '9' in a word.
            (#""12345678""#, 12_345_678),
            (#""1234567""#, 1_234_567),
            (#""1234567890123456""#, 1_234_567_890_123_456),
            (#""12345678901234567890""#, 12_345_678_901_234_567_890),
            (#""09999999""#, 9_999_999),
            (#""1234567/""#, nil),
            (#""123:5678""#, nil),
            (#""12345678123456 8""#, nil),
            (#""1234567812345678a""#, nil),
            ("17900000000000003", 17_900_000_000_000_003),
            ("9223372036854775807", 9_223_372_036_854_775_807),
            ("18446744073709551615", nil),
            ("-1", nil),
            ("1.0", nil),
            ("1e3", nil),
            (#""""#, nil),
            (#""-1""#, nil),
            (#""12a""#, nil),
            (#""1\u0032""#, 12),
            ("null", nil),
            ("{}", nil),
        ])
    func timetokens(written: String, expected: Timetoken?) {
        let response = direct(oneEnvelope(#""c":"ch","p":{"t":"# + written + "}"))
        if let expected {
            #expect(response?.envelopes.first?.published == SubscribeCursor(timetoken: expected, region: 0))
        } else {
            #expect(response?.envelopes == [])
            #expect(response?.problems == [#"m[0]: no readable "p" timetoken"#])
        }
    }

    @Test(
        "regions and integer fields accept what intValue accepts",
        arguments: [
            (#""r":"7""#, #""f":1.0"#, 7, 1),
            (#""r":null"#, #""f":1e2"#, 0, 100),
            (#""r":-0"#, #""f":-0"#, 0, 0),
            (#""r":2"#, #""f":123456789012345678"#, 2, 123_456_789_012_345_678),
            (#""r":2"#, #""f":1234567890123456789"#, 2, 1_234_567_890_123_456_789),
            (#""r":2"#, #""f":99999999999999999999"#, 2, nil),
            (#""r":2"#, #""f":"3""#, 2, nil),
            (#""r":2"#, #""f":1.5"#, 2, nil),
        ])
    func integers(region: String, flags: String, expectedRegion: Int, expectedFlags: Int?) {
        let response = direct(oneEnvelope(#""c":"ch","p":{"t":"1","# + region + "}," + flags))
        #expect(response?.envelopes.first?.published.region == expectedRegion)
        #expect(response?.envelopes.first?.flags == expectedFlags)
    }

    @Test("e: null is no type, an integer is the type, anything else is a problem")
    func eventType() {
        #expect(direct(oneEnvelope(#""c":"ch","p":{"t":"1"},"e":null"#))?.envelopes.first?.type == nil)
        #expect(direct(oneEnvelope(#""c":"ch","p":{"t":"1"},"e":3"#))?.envelopes.first?.type == 3)
        #expect(direct(oneEnvelope(#""c":"ch","p":{"t":"1"},"e":2.0"#))?.envelopes.first?.type == 2)
        for written in ["1.5", #""1""#, "[1]"] {
            #expect(
                direct(oneEnvelope(#""c":"ch","p":{"t":"1"},"e":"# + written))?.problems == [
                    #"m[0]: "e" is not an integer"#
                ])
        }
    }

    @Test("items of m that are not objects are problems with their index")
    func nonObjects() {
        let response = direct(
            #"{"t":{"t":"1"},"m":[1,"x",null,[{"c":"no"}],{"c":"ch","p":{"t":"2"}},{"p":{"t":"3"}}]}"#)
        #expect(response?.envelopes.map(\.channel) == ["ch"])
        #expect(
            response?.problems == [
                "m[0]: not an object", "m[1]: not an object", "m[2]: not an object", "m[3]: not an object",
                #"m[5]: no "c" channel"#,
            ])
    }

    @Test("a nested payload is the value JSONCore parses, up to the document's nesting limit")
    func nestedPayload() throws {
        let payload = #"{"a":[{"b":[1,-2.5,{"c":null,"d":true}]},"\ud83d\ude00"],"e":{"f":{"g":[[]]}},"h":1e400}"#
        let withoutHuge = payload.replacingOccurrences(of: #","h":1e400"#, with: "")
        let response = direct(oneEnvelope(#""c":"ch","p":{"t":"1"},"d":"# + withoutHuge))
        #expect(response?.envelopes.first?.payload == (try JSONValue(parsing: withoutHuge)))
        // 1e400 does not fit a Double: the whole body is not JSON, as in a whole-document parse.
        let huge = Array(oneEnvelope(#""c":"ch","p":{"t":"1"},"d":"# + payload).utf8)
        #expect(SubscribeResponseDecoder.decodeDirectly(huge) == nil)
        #expect(agree(huge))

        // Three containers (the answer, m, the envelope) enclose d; the limit is 512 in all.
        func nested(_ levels: Int) -> [UInt8] {
            let d = String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
            return Array(oneEnvelope(#""c":"ch","p":{"t":"1"},"d":"# + d).utf8)
        }
        #expect(direct(nested(509)) != nil)
        #expect(SubscribeResponseDecoder.decodeDirectly(nested(510)) == nil)
        guard case .malformed = SubscribeResponseDecoder.decode(nested(510)) else {
            Issue.record("nesting past the limit must not decode")
            return
        }
        #expect(agree(nested(510)))
    }

    @Test(
        "bodies that are not well-formed answers are left to the tree decoder",
        arguments: [
            #"{"t":{"t":"1"},"m":[]}x"#, #"{"t":{"t":"1"}}{}"#, #"{"t":{"t":"1"},"m":[{"c":"a","p":{"t":"1"},}]}"#,
            #"{"t":{"t":"1"},"m":[{"c":"a","p":{"t":"1"},"f":01}]}"#, #"{"t":{"t":"1"},"m":[{"c":"a"#,
            "{\"t\":{\"t\":\"1\"},\"m\":[{\"c\":\"a\tb\",\"p\":{\"t\":\"1\"}}]}", #"{"t":{"t":"1"},"m":[}"#,
            #"{"t":{"t":"1"}"#, #"{"t":{"t":"1"},"m":[{"c":"a","p":{"t":"1"},"d":-}]}"#,
            #"{"t":{"t":"1"},"m":[{"c":"a","p":{"t":"1"},"d":tru}]}"#, #"{"m":[]}"#, #"{"t":{"t":"x"},"m":[]}"#,
            #"{"t":"1","m":[]}"#, #"{"t":{"t":"1"},"m":{}}"#, "[1,2]", "", "   ", #"{"t":{"t":"1"},"m":[] "#,
            #"{"t":{"t":"1"} "m":[]}"#, #"{"t":{"t":"1"},"m":[{"c":"a","p":{"t":"1"}} {"c":"b"}]}"#,
            #"{"t":{"t":"1"},"m":[{"c" "a"}]}"#, #"{t:{"t":"1"}}"#, #"{"t":{"t":"1"},"m":[{"\q":1}]}"#,
        ])
    func notAnswers(text: String) {
        let body = Array(text.utf8)
        #expect(SubscribeResponseDecoder.decodeDirectly(body) == nil)
        #expect(agree(body))
    }

    @Test("invalid UTF-8 in a key or a value is left to the tree decoder")
    func invalidUTF8() {
        func bodies(_ inserted: [UInt8]) -> [[UInt8]] {
            let value = Array(#"{"t":{"t":"1"},"m":[{"c":""#.utf8) + inserted + Array(#"","p":{"t":"1"}}]}"#.utf8)
            let key = Array(#"{"t":{"t":"1"},"m":[{"c":"a","p":{"t":"1"},""#.utf8) + inserted + Array(#"":1}]}"#.utf8)
            return [value, key]
        }
        for body in bodies([0xC3, 0xA9]) { #expect(direct(body) != nil) }
        for bad: [UInt8] in [[0xC3], [0xFF, 0x41], [0xED, 0xA0, 0x80], [0x80]] {
            for body in bodies(bad) {
                #expect(SubscribeResponseDecoder.decodeDirectly(body) == nil)
                #expect(agree(body))
            }
        }
    }

    @Test("every truncation and single-byte change of an answer decodes as the tree decoder reads it")
    func differential() {
        let answer = Array(
            #"{"t":{"t":"17000393136828870","r":43},"m":[{"a":"2","f":514,"e":0,"i":"c-2","s":1,"p":{"t":"17000393136828867","r":43},"o":{"t":"170","r":1},"k":"sub-c","c":"ch","b":"ch","d":{"text":"hi","n":[1.5,null]},"u":{"m":1},"cmt":"chat"},{"c":"x","p":{"t":"1"},"d":"\u00e9"}]}"#
                .utf8)
        var disagreements: [String] = []
        for length in 0...answer.count where !agree(Array(answer[..<length])) {
            disagreements.append("prefix of \(length) bytes")
        }
        let replacements = Array(#"{}[],:"\0 -e.x"#.utf8) + [0x80]
        for position in answer.indices {
            for byte in replacements where byte != answer[position] {
                var changed = answer
                changed[position] = byte
                if !agree(changed) {
                    disagreements.append("byte \(position) set to \(byte): \(String(decoding: changed, as: UTF8.self))")
                }
            }
        }
        #expect(disagreements == [])
    }

    @Test("the fuzz corpus decodes as the tree decoder reads it")
    func corpus() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/subscribe")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files.count > 10)
        var direct = 0
        for file in files {
            let body = try [UInt8](Data(contentsOf: directory.appendingPathComponent(file)))
            #expect(agree(body), "\(file)")
            if SubscribeResponseDecoder.decodeDirectly(body) != nil { direct += 1 }
        }
        // Every file but the truncated one is a well-formed answer.
        #expect(direct == files.count - 1)
    }
}
