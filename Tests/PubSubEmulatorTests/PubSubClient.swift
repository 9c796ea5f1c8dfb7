import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import Testing

/// 2026-09-07T07:34:55Z, whole seconds, so presence timestamps are exact.
let pubSubStart = Date(timeIntervalSince1970: 1_788_766_495)

/// One answer, with helpers to read pub/sub bodies.
struct PubSubReply: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { try? JSONValue(parsing: body) }
    var cursor: UInt64? { json?["t"]?["t"]?.stringValue.flatMap(UInt64.init) }
    var messages: [JSONValue] { json?["m"]?.arrayValue ?? [] }
    var payloads: [JSONValue] { messages.compactMap { $0["d"] } }
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
}

/// Sends raw pub/sub requests to an in-process emulator with a manual clock.
struct PubSubClient: Sendable {
    let emulator: Emulator
    let clock: EmulatorClock
    var publishKey = "demo"
    var subscribeKey = "demo"

    init(pubSub: PubSubConfiguration = PubSubConfiguration()) throws {
        clock = EmulatorClock.manual(startingAt: pubSubStart)
        emulator = try Emulator(configuration: EmulatorConfiguration(clock: clock, pubSub: pubSub))
    }

    func send(_ target: String) async -> PubSubReply { await send("GET", target) }

    func send(_ method: String, _ target: String, body: [UInt8] = [], headers: [(String, String)] = [])
        async -> PubSubReply
    {
        let response = await emulator.respond(
            to: ServerRequest(method: method, target: target, headers: headers.map { ($0.0, $0.1) }, body: body))
        return PubSubReply(status: response.status, headers: response.headers, body: response.body)
    }

    /// Percent-encodes everything but unreserved characters, as Python's `quote(safe="~")` does.
    static func encode(_ text: String) -> String { WireText.percentEncoded(text) }

    func publish(_ channel: String, _ message: JSONValue, query: String = "uuid=pub") async throws -> PubSubReply {
        let json = String(decoding: try message.jsonBytes(), as: UTF8.self)
        return await send(
            "/publish/\(publishKey)/\(subscribeKey)/0/\(Self.encode(channel))/0/\(Self.encode(json))?\(query)")
    }

    func signal(_ channel: String, _ message: JSONValue, query: String = "uuid=pub") async throws -> PubSubReply {
        let json = String(decoding: try message.jsonBytes(), as: UTF8.self)
        return await send(
            "/signal/\(publishKey)/\(subscribeKey)/0/\(Self.encode(channel))/0/\(Self.encode(json))?\(query)")
    }

    /// The timetoken of a `[1,"Sent","<tt>"]` reply.
    static func sentTimetoken(_ reply: PubSubReply) throws -> UInt64 {
        try #require(reply.status == 200, "\(reply.text)")
        return try #require(reply.json?[2]?.stringValue.flatMap(UInt64.init))
    }

    func subscribe(_ channels: String, tt: UInt64?, query: String = "uuid=sub") async -> PubSubReply {
        var target = "/v2/subscribe/\(subscribeKey)/\(channels)/0?\(query)"
        if let tt { target += "&tt=\(tt)" }
        return await send(target)
    }

    /// A handshake's cursor.
    func handshake(_ channels: String, query: String = "uuid=sub") async throws -> UInt64 {
        let reply = await subscribe(channels, tt: 0, query: query)
        try #require(reply.status == 200, "\(reply.text)")
        return try #require(reply.cursor)
    }

    /// Starts a receive that will be held, and returns once it is waiting.
    func held(_ channels: String, tt: UInt64, query: String = "uuid=sub", already: Int = 0) async
        -> Task<PubSubReply, Never>
    {
        let task = Task { await subscribe(channels, tt: tt, query: query) }
        let emulator = emulator
        #expect(await eventually { emulator.heldSubscribeCount >= already + 1 })
        return task
    }
}
