import DataSyncEmulator
import EmulatorHTTP
import Foundation
import JSONCore
import Testing

/// 2026-09-07T07:34:55Z, a whole second so token issue times are exact.
let accessStart = Date(timeIntervalSince1970: 1_788_766_495)

struct AccessReply {
    var status: Int
    var body: [UInt8]
    var json: JSONValue? { try? JSONValue(parsing: body) }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Raw requests against an emulator whose keyset `pub-c`/`sub-c`/`sec-c` has access control on
/// (and `pub-o`/`sub-o`/`sec-o` has it off).
struct AccessClient {
    static let publishKey = "pub-c"
    static let subscribeKey = "sub-c"
    static let secretKey = "sec-c"

    let emulator: Emulator

    init() throws {
        emulator = try Emulator(
            configuration: EmulatorConfiguration(
                startTime: accessStart,
                pubSub: PubSubConfiguration(keysets: [
                    .protected(publishKey: Self.publishKey, subscribeKey: Self.subscribeKey, secretKey: Self.secretKey),
                    PubSubKeyset(publishKey: "pub-o", subscribeKey: "sub-o", secretKey: "sec-o"),
                ])))
    }

    var nowSeconds: Int { Int(emulator.clock.now.date.timeIntervalSince1970) }

    func send(
        _ method: String, _ target: String, body: [UInt8] = [], headers: [(name: String, value: String)] = []
    ) async -> AccessReply {
        let response = await emulator.respond(
            to: ServerRequest(method: method, target: target, headers: headers, body: body))
        return AccessReply(status: response.status, body: response.body)
    }

    /// Sends `method path?query` signed with `secret` (default: the keyset's), `timestamp` at
    /// `timestamp` (default: now).
    func sendSigned(
        _ method: String, _ path: String, query: [(name: String, value: String)] = [], body: [UInt8] = [],
        secret: String = secretKey, timestamp: Int? = nil, headers: [(name: String, value: String)] = []
    ) async -> AccessReply {
        var items = query
        items.append((name: "timestamp", value: String(timestamp ?? nowSeconds)))
        let signature = RequestSignature.sign(
            method: method, path: path, query: items, body: body, publishKey: Self.publishKey, secretKey: secret)
        items.append((name: "signature", value: signature))
        return await send(method, path + "?" + Self.encodedQuery(items), body: body, headers: headers)
    }

    static func encodedQuery(_ items: [(name: String, value: String)]) -> String {
        items.map { "\($0.name)=\(encode($0.value))" }.joined(separator: "&")
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(
                charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")) ?? text
    }

    /// Grants `permissions` (the grant body's `permissions` object) for `ttl` minutes and returns the token.
    func grant(_ permissions: JSONValue, ttl: Int = 60) async throws -> String {
        let reply = await grantReply(["ttl": .int(Int64(ttl)), "permissions": permissions])
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(reply.json?["data"]?["token"]?.stringValue)
    }

    func grantReply(_ body: JSONValue) async -> AccessReply {
        await sendSigned(
            "POST", "/v3/pam/\(Self.subscribeKey)/grant", query: [(name: "uuid", value: "server")],
            body: (try? body.jsonBytes()) ?? [])
    }

    func publish(_ channel: String, auth: String?, uuid: String = "alice") async -> AccessReply {
        var target = "/publish/\(Self.publishKey)/\(Self.subscribeKey)/0/\(channel)/0/%22hi%22?uuid=\(uuid)"
        if let auth { target += "&auth=\(Self.encode(auth))" }
        return await send("GET", target)
    }

    func dataSync(_ method: String, _ rest: String, auth: String?, body: JSONValue? = nil, uuid: String = "alice") async
        -> AccessReply
    {
        var target = "/v1/datasync/subkeys/\(Self.subscribeKey)/\(rest)"
        target += (rest.contains("?") ? "&" : "?") + "uuid=\(uuid)"
        if let auth { target += "&auth=\(Self.encode(auth))" }
        return await send(
            method, target, body: body.map { (try? $0.jsonBytes()) ?? [] } ?? [],
            headers: [(name: "Content-Type", value: Self.contentType(method, rest))])
    }

    static func contentType(_ method: String, _ rest: String) -> String {
        if method == "PATCH" { return "application/json-patch+json" }
        let collection = rest.split(separator: "/").first.map(String.init) ?? ""
        let resource =
            [
                "users": "user", "channels": "channel", "entities": "entity", "memberships": "membership",
                "relationships": "relationship",
            ][collection] ?? collection
        return "application/vnd.pubnub.objects.\(resource)+json;version=1"
    }
}
