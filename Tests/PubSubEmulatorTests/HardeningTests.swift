import DataSyncEmulator
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

/// Hostile numbers, sizes and sweeps on the pub/sub and presence routes (issue 35, items 1–3).
/// A crash here takes the test process down, so each crash case fails loudly on code that traps.
@Suite("Pub/sub hardening: hostile numbers, sizes and presence sweeps")
struct PubSubHardeningTests {
    static let presence = "/v2/presence/sub-key/demo"
    /// 3000-01-01T00:00:00Z: beyond what 64-bit nanoseconds hold, so the clock clamps to its end.
    static let year3000 = Date(timeIntervalSince1970: 32_503_680_000)

    func whereNow(_ client: PubSubClient, _ uuid: String) async -> [String] {
        let reply = await client.send("\(Self.presence)/uuid/\(uuid)")
        return reply.json?["payload"]?["channels"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    @Test("a heartbeat of 99,999,999,999 s is answered and clamped to the service's 320 s")
    func hugeHeartbeatOnThePresenceRoute() async throws {
        let client = try PubSubClient()
        let reply = await client.send("\(Self.presence)/channel/x/heartbeat?uuid=a&heartbeat=99999999999")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(await whereNow(client, "a") == ["x"])
        client.clock.advance(by: .seconds(319))
        #expect(await whereNow(client, "a") == ["x"])
        client.clock.advance(by: .seconds(1))
        #expect(await whereNow(client, "a") == [])
    }

    @Test("a huge heartbeat on a subscribe is answered")
    func hugeHeartbeatOnSubscribe() async throws {
        let client = try PubSubClient()
        let reply = await client.subscribe("x", tt: 0, query: "uuid=a&heartbeat=99999999999")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(await whereNow(client, "a") == ["x"])
    }

    @Test("the default heartbeat with the clock set to the year 3000 is answered")
    func defaultHeartbeatAtTheEndOfTime() async throws {
        let client = try PubSubClient(pubSub: PubSubConfiguration(longPollTimeout: .seconds(280)))
        await client.emulator.setTime(Self.year3000)
        let beat = await client.send("\(Self.presence)/channel/x/heartbeat?uuid=a")
        #expect(beat.status == 200, "\(beat.text)")
        let handshake = await client.subscribe("x", tt: 0, query: "uuid=b")
        #expect(handshake.status == 200, "\(handshake.text)")
        // The long-poll's deadline saturates at the clock's end, which has come: answered at once.
        let cursor: UInt64 = try #require(handshake.cursor)
        let poll = await client.subscribe("x", tt: cursor, query: "uuid=b")
        #expect(poll.status == 200, "\(poll.text)")
        #expect(await client.send(Self.presence).status == 200)
    }

    @Test(
        "heartbeat values are clamped into 20...320; a non-number means the default",
        arguments: [
            ("99999999999", 320), ("99999999999999999999999999", 320), ("-99999999999999999999", 20), ("0", 20),
            ("5", 20), ("20", 20), ("60", 60), ("320", 320), ("321", 320), ("+45", 45),
        ] as [(String, Int)])
    func heartbeatClamping(_ text: String, _ seconds: Int) {
        #expect(PubSubBus.heartbeat(text) == seconds)
    }

    @Test("a heartbeat that is not an integer falls back to the default", arguments: ["", "abc", "1e3", "12.5", "-"])
    func heartbeatNotANumber(_ text: String) {
        #expect(PubSubBus.heartbeat(text) == nil)
    }

    @Test("here-now limit and offset of any size are answered")
    func hereNowNumbers() async throws {
        let client = try PubSubClient()
        _ = await client.send("\(Self.presence)/channel/x/heartbeat?uuid=a")
        for query in [
            "limit=99999999999999999999999", "offset=99999999999999999999999", "limit=-1&offset=-9",
            "limit=x&offset=y",
        ] {
            let reply = await client.send("\(Self.presence)/channel/x?\(query)")
            #expect(reply.status == 200, "\(query): \(reply.text)")
        }
    }

    @Test("a keyset holds at most maximumPresencesPerKeyset presences; past it a clear 400, refreshes still work")
    func presenceLimit() async throws {
        let client = try PubSubClient(pubSub: PubSubConfiguration(maximumPresencesPerKeyset: 2))
        #expect(await client.send("\(Self.presence)/channel/a,b/heartbeat?uuid=u").status == 200)
        let refused = await client.send("\(Self.presence)/channel/c/heartbeat?uuid=v")
        #expect(refused.status == 400)
        #expect(refused.json?["message"]?.stringValue?.contains("at most 2 presences per keyset") == true)
        let subscribe = await client.subscribe("c", tt: 0, query: "uuid=w")
        #expect(subscribe.status == 400)
        #expect(await whereNow(client, "v") == [])
        #expect(await client.send("\(Self.presence)/channel/a,b/heartbeat?uuid=u").status == 200)
        _ = await client.send("\(Self.presence)/channel/a/leave?uuid=u")
        #expect(await client.send("\(Self.presence)/channel/c/heartbeat?uuid=v").status == 200)
    }

    @Test("one global here-now over many channels sweeps presence exactly once")
    func globalHereNowSweepsOnce() async throws {
        let client = try PubSubClient()
        for index in 0..<60 {
            let reply = await client.send("\(Self.presence)/channel/c\(index)/heartbeat?uuid=u\(index)")
            try #require(reply.status == 200)
        }
        let before = await client.emulator.bus.sweepCount
        let reply = await client.send(Self.presence)
        let after = await client.emulator.bus.sweepCount
        #expect(reply.json?["payload"]?["total_channels"] == 60)
        #expect(reply.json?["payload"]?["total_occupancy"] == 60)
        #expect(after - before == 1)
    }

    @Test("a request target over 32 KiB is the service's 414")
    func uriTooLong() async throws {
        let client = try PubSubClient()
        let long = String(repeating: "a", count: 33 * 1024)
        let reply = await client.send("/time/0?pad=\(long)")
        #expect(reply.status == 414)
        #expect(reply.json?["message"] == "Request URI Too Long")
        #expect(await client.send("\(Self.presence)/channel/x/heartbeat?uuid=a&pad=\(long)").status == 414)
    }

    @Test("a filter-expr nested 30,000 deep is refused, not a stack overflow")
    func deepFilter() async throws {
        let client = try PubSubClient()
        // `!` and `(` may stand unescaped in a query, so 30,000 levels fit in the 32 KiB target.
        let negations = String(repeating: "!", count: 30_000) + "uuid"
        let reply = await client.subscribe("room", tt: 0, query: "filter-expr=\(negations)")
        #expect(reply.status == 481, "\(reply.text.prefix(200))")
        let parentheses = String(repeating: "(", count: 15_000) + "uuid" + String(repeating: ")", count: 15_000)
        #expect(await client.subscribe("room", tt: 0, query: "filter-expr=\(parentheses)").status == 481)
        let chain = Array(repeating: "uuid == 'a'", count: 600).joined(separator: "&&")
        #expect(StreamFilter.maximumTerms < 600)
        let long = await client.subscribe("room", tt: 0, query: "filter-expr=\(PubSubClient.encode(chain))")
        #expect(long.status == 481)
    }

    @Test("filter-expr LIKE and CONTAINS cost comparisons linear in value plus pattern")
    func filterLikeIsLinear() {
        let value = String(repeating: "a", count: 30_000)
        let pattern = "*" + String(repeating: "a", count: 8_000) + "b*"
        var steps = 0
        #expect(!StreamFilter.like(value, pattern, wildcards: true, steps: &steps))
        #expect(steps > 0 && steps <= 3 * (value.count + pattern.count), "\(steps)")
        steps = 0
        let part = "*" + String(repeating: "a", count: 8_000) + "b*"
        #expect(!StreamFilter.like(value, part, wildcards: false, steps: &steps))
        #expect(steps > 0 && steps <= 3 * (value.count + part.count), "\(steps)")
    }

    @Test("a catch-up through a hostile LIKE over large meta is answered with the matching messages")
    func catchUpWithHostileLike() async throws {
        let client = try PubSubClient(pubSub: PubSubConfiguration(longPollTimeout: .zero))
        let cursor = try await client.handshake("room")
        let meta = String(
            decoding: try JSONValue.object(["name": .string(String(repeating: "a", count: 20_000))]).jsonBytes(),
            as: UTF8.self)
        for _ in 0..<3 {
            _ = try PubSubClient.sentTimetoken(
                try await client.publish("room", "x", query: "meta=\(PubSubClient.encode(meta))"))
        }
        _ = try PubSubClient.sentTimetoken(
            try await client.publish("room", "y", query: "meta=\(PubSubClient.encode(#"{"name":"ab"}"#))"))
        let expression = "meta.name LIKE '*" + String(repeating: "a", count: 4_000) + "b*' || meta.name LIKE 'ab'"
        let reply = await client.subscribe(
            "room", tt: cursor, query: "uuid=sub&filter-expr=\(PubSubClient.encode(expression))")
        #expect(reply.status == 200)
        #expect(reply.payloads == ["y"])
    }

    @Test("filter-expr semantics kept: LIKE ignores case, CONTAINS does not, `*` anywhere")
    func filterSemantics() throws {
        let meta: JSONValue = ["n": "Hello World"]
        #expect(try StreamFilter(parsing: "meta.n LIKE 'hello*'").matches(publisher: nil, meta: meta))
        #expect(try StreamFilter(parsing: "meta.n LIKE '*O w*'").matches(publisher: nil, meta: meta))
        #expect(try StreamFilter(parsing: "meta.n CONTAINS 'lo W'").matches(publisher: nil, meta: meta))
        #expect(try !StreamFilter(parsing: "meta.n CONTAINS 'lo w'").matches(publisher: nil, meta: meta))
        #expect(StreamFilter.like("", "*"))
        #expect(!StreamFilter.like("abc", "a*d"))
        #expect(StreamFilter.like("e\u{301}t\u{E9}", "\u{E9}t*"))
        #expect(StreamFilter.like("a*b", "*" + "*b" + "*", wildcards: false))
        #expect(!StreamFilter.like("axb", "*" + "*b" + "*", wildcards: false))
    }
}
