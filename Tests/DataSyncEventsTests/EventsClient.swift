import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import Testing

/// 2026-09-07T07:34:55.265625Z: a start instant whose fraction is exact in binary.
let eventsStart = Date(timeIntervalSince1970: 1_788_766_495.265_625)

/// One raw answer.
struct RawReply: Sendable {
    var status: Int
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { body.isEmpty ? nil : try? JSONValue(parsing: body) }
    var data: JSONValue? { json?["data"] }
    var eTag: String? { data?["eTag"]?.stringValue }
}

/// One DataSync event as a subscriber received it.
struct Received: Sendable, Hashable {
    var channel: String
    var envelope: JSONValue

    var payload: JSONValue? { envelope["d"] }
    var event: String? { payload?["metadata"]?["event"]?.stringValue }
    var type: String? { payload?["metadata"]?["type"]?.stringValue }
    var data: JSONValue? { payload?["data"] }
    var id: String? { data?["id"]?.stringValue }
}

/// Hand-built raw requests (DataSync REST and pub/sub) to an in-process emulator on a stopped clock.
struct EventsClient: Sendable {
    let emulator: Emulator
    let clock: EmulatorClock
    let subscribeKey = "demo"
    let publishKey = "demo"

    init(classes: JSONValue? = nil) throws {
        clock = EmulatorClock.manual(startingAt: eventsStart)
        emulator = try Emulator(configuration: EmulatorConfiguration(classes: classes, clock: clock))
    }

    static func mediaType(_ collection: String) -> String { WireText.objectMediaType(collection: collection) }

    static func encode(_ text: String) -> String { WireText.percentEncoded(text) }

    func raw(_ method: String, _ target: String, body: [UInt8] = [], contentType: String? = nil) async -> RawReply {
        let headers: [(String, String)] = contentType.map { [("Content-Type", $0)] } ?? []
        let response = await emulator.respond(
            to: ServerRequest(method: method, target: target, headers: headers, body: body))
        return RawReply(status: response.status, body: response.body)
    }

    func dataSync(_ method: String, _ rest: String, body: JSONValue? = nil, contentType: String? = nil) async throws
        -> RawReply
    {
        await raw(
            method, "/v1/datasync/subkeys/\(subscribeKey)/\(rest)", body: try body.map { try $0.jsonBytes() } ?? [],
            contentType: contentType)
    }

    @discardableResult
    func create(_ collection: String, _ data: JSONValue) async throws -> RawReply {
        try await dataSync("POST", collection, body: ["data": data], contentType: Self.mediaType(collection))
    }

    /// Creates and requires the 201.
    @discardableResult
    func made(_ collection: String, _ data: JSONValue) async throws -> RawReply {
        let reply = try await create(collection, data)
        try #require(reply.status == 201, "creating in \(collection): \(reply.text)")
        return reply
    }

    @discardableResult
    func set(_ collection: String, _ id: String, _ data: JSONValue) async throws -> RawReply {
        try await dataSync("PUT", "\(collection)/\(id)", body: ["data": data], contentType: Self.mediaType(collection))
    }

    @discardableResult
    func patch(_ collection: String, _ id: String, _ operations: JSONValue) async throws -> RawReply {
        try await dataSync("PATCH", "\(collection)/\(id)", body: operations, contentType: "application/json-patch+json")
    }

    @discardableResult
    func remove(_ collection: String, _ id: String) async throws -> RawReply {
        try await dataSync("DELETE", "\(collection)/\(id)")
    }

    func defineClasses(_ document: JSONValue) async throws {
        try await emulator.defineClasses(document, subscribeKey: subscribeKey)
    }

    // MARK: Subscribing

    /// A handshake on `channels`: the cursor to catch up from.
    func handshake(_ channels: [String]) async throws -> UInt64 {
        let reply = await subscribe(channels, tt: 0)
        try #require(reply.status == 200, "\(reply.text)")
        return try #require(reply.json?["t"]?["t"]?.stringValue.flatMap(UInt64.init))
    }

    func subscribe(_ channels: [String], tt: UInt64) async -> RawReply {
        let names = channels.map(Self.encode).joined(separator: ",")
        return await raw("GET", "/v2/subscribe/\(subscribeKey)/\(names)/0?uuid=watcher&tt=\(tt)")
    }

    /// Everything with `e: 5` a client subscribed to `channels` receives after `cursor`, following
    /// the cursors as a client does. A marker message published on each channel first ends the
    /// catch-up, so a channel that got no event still answers at once (the negative proofs).
    func delivered(_ channels: [String], after cursor: UInt64) async throws -> [Received] {
        let marker = "end-of-events"
        for channel in channels {
            let json = Self.encode("\"\(marker)\"")
            let reply = await raw("GET", "/publish/\(publishKey)/\(subscribeKey)/0/\(Self.encode(channel))/0/\(json)")
            try #require(reply.status == 200, "\(reply.text)")
        }
        var tt = cursor
        var markers = 0
        var found: [Received] = []
        while markers < channels.count {
            let reply = await subscribe(channels, tt: tt)
            try #require(reply.status == 200, "\(reply.text)")
            for message in reply.json?["m"]?.arrayValue ?? [] {
                let channel = message["c"]?.stringValue ?? ""
                if message["e"]?.intValue == 5 {
                    found.append(Received(channel: channel, envelope: message))
                } else if message["d"]?.stringValue == marker {
                    markers += 1
                }
            }
            tt = try #require(reply.json?["t"]?["t"]?.stringValue.flatMap(UInt64.init))
        }
        return found
    }
}

/// `(channel, event, id)` of each delivery, for compact expectations.
func routes(_ received: [Received]) -> [String] {
    received.map { "\($0.channel) \($0.event ?? "?") \($0.type ?? "?") \($0.id ?? "?")" }
}
