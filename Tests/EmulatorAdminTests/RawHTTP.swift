import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// 2026-09-07T07:34:55Z: a whole second, so clock readings are exact.
let adminStart = Date(timeIntervalSince1970: 1_788_766_495)

/// One HTTP answer read off a real socket.
typealias HTTPReply = RawHTTPResponse

extension RawHTTPResponse {
    var json: JSONValue? { try? JSONValue(parsing: body) }
    var errorMessage: String? {
        json?["errors"]?[0]?["message"]?.stringValue ?? json?["error"]?["message"]?.stringValue
    }
}

/// Sends one request over a real loopback socket (`Connection: close`) exactly as written: the
/// target is sent byte for byte, so a test controls every `+` and `%`.
func http(
    _ port: UInt16, _ method: String, _ target: String, headers: [(name: String, value: String)] = [],
    body: [UInt8] = [], host: String? = nil
) async throws -> HTTPReply {
    try await RawSocket.exchange(
        port: port, method, target, headers: headers.map { ($0.name, $0.value) }, body: body, host: host, timeout: 40)
}

/// An emulator served on an ephemeral loopback port for one test; always stopped.
struct Served: StoppableRig {
    let emulator: Emulator
    let port: UInt16

    static func start(_ configuration: EmulatorConfiguration = EmulatorConfiguration(startTime: adminStart))
        async throws -> Served
    {
        let emulator = try Emulator(configuration: configuration)
        let url = try await emulator.start()
        let port = try #require(url.port.flatMap { UInt16(exactly: $0) })
        return Served(emulator: emulator, port: port)
    }

    func send(
        _ method: String, _ target: String, json: JSONValue? = nil, contentType: String? = nil,
        headers: [(name: String, value: String)] = [], host: String? = nil
    ) async throws -> HTTPReply {
        var all = headers
        if let contentType { all.append((name: "Content-Type", value: contentType)) }
        return try await http(port, method, target, headers: all, body: try json?.jsonBytes() ?? [], host: host)
    }

    /// POST `{"data": data}` to a DataSync collection of `keyset` with its vendor media type.
    @discardableResult
    func create(_ collection: String, _ data: JSONValue, keyset: String = "demo") async throws -> HTTPReply {
        let reply = try await send(
            "POST", "/v1/datasync/subkeys/\(keyset)/\(collection)", json: ["data": data],
            contentType: WireText.objectMediaType(collection: collection))
        try #require(reply.status == 201, "creating \(collection): \(reply.text)")
        return reply
    }

    func stop() async { await emulator.stop() }
}

/// One keyset `pub`/`sub` with access control on (secret `sec`): admin calls then need the admin
/// secret, and tokens are checked.
let protectedAdminConfiguration = EmulatorConfiguration(
    startTime: adminStart,
    pubSub: PubSubConfiguration(keysets: [.protected(publishKey: "pub", subscribeKey: "sub", secretKey: "sec")]))

/// Runs `body` against a served emulator and always stops it.
func withServed(
    _ configuration: EmulatorConfiguration = EmulatorConfiguration(startTime: adminStart),
    _ body: (Served) async throws -> Void
) async throws {
    try await Served.start(configuration).run(body)
}
