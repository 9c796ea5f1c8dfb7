import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import Messaging
import Testing
import Transport

/// The two HTTP backends every end-to-end test runs on.
enum PublishBackend: String, CaseIterable, CustomStringConvertible, Sendable {
    case curl
    case urlSession

    var description: String { rawValue }

    func makeClient() throws -> any HTTPClient {
        switch self {
        case .curl: return try CurlHTTPClient()
        case .urlSession: return try URLSessionHTTPClient()
        }
    }
}

/// An emulator over loopback HTTP with the open `demo` keyset and the protected
/// `pub-p`/`sub-p`/`sec-p` one, clients for it, and a raw subscriber that counts deliveries.
struct PublishRig {
    static let protected = PubSubKeyset.protected(publishKey: "pub-p", subscribeKey: "sub-p", secretKey: "sec-p")

    let emulator: Emulator
    let port: Int

    static func start() async throws -> PublishRig {
        let emulator = try Emulator(
            configuration: EmulatorConfiguration(pubSub: PubSubConfiguration(keysets: [.demo, protected])))
        let url = try await emulator.start()
        return PublishRig(emulator: emulator, port: try #require(url.port))
    }

    func stop() async { await emulator.stop() }

    func client(
        _ backend: PublishBackend, publishKey: String = "demo", subscribeKey: String = "demo", token: String? = nil,
        port: Int? = nil
    ) throws -> PubNub {
        PubNub(
            configuration: PubNubConfiguration(
                publishKey: publishKey, subscribeKey: subscribeKey, userId: "publisher", authToken: token,
                origin: "127.0.0.1:\(port ?? self.port)", useSecureConnections: false,
                transport: try backend.makeClient(), retryPolicy: .none))
    }

    /// The server side of the protected keyset: mints tokens with its secret key.
    func server(_ backend: PublishBackend) throws -> AccessManagerTestServer {
        AccessManagerTestServer(
            client: try backend.makeClient(), host: "127.0.0.1", port: port, publishKey: Self.protected.publishKey,
            subscribeKey: Self.protected.subscribeKey, secretKey: Self.protected.secretKey)
    }

    /// The current subscribe cursor of `channel` on the demo keyset.
    func cursor(_ channel: String) async throws -> String {
        let reply = await emulator.respond(
            to: ServerRequest(method: "GET", target: "/v2/subscribe/demo/\(channel)/0?tt=0&uuid=checker"))
        let json = try JSONValue(parsing: reply.body)
        return try #require(json["t"]?["t"]?.stringValue)
    }

    /// The payloads delivered on `channel` after `cursor` (call only when at least one is due:
    /// with none the long-poll would be held).
    func delivered(_ channel: String, after cursor: String) async throws -> [JSONValue] {
        let reply = await emulator.respond(
            to: ServerRequest(method: "GET", target: "/v2/subscribe/demo/\(channel)/0?tt=\(cursor)&tr=1&uuid=checker"))
        let json = try JSONValue(parsing: reply.body)
        return (json["m"]?.arrayValue ?? []).compactMap { $0["d"] }
    }
}

/// The publish status end to end: real answers of the emulator over both HTTP backends become
/// the categories, status codes and error data of `PubNubPublishError`, and `retry()` succeeds
/// once the cause is gone.
@Suite("Publish status against the emulator, both backends")
struct PublishStatusEmulatorTests {
    static func failure(
        _ call: () async throws(PubNubPublishError) -> Timetoken, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> PubNubPublishError? {
        do {
            let timetoken = try await call()
            Issue.record("expected a failure, got \(timetoken)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: PublishBackend.allCases)
    func anUnknownPublishKeyIs400InvalidKey(_ backend: PublishBackend) async throws {
        let rig = try await PublishRig.start()
        defer { Task { await rig.stop() } }
        let pubnub = try rig.client(backend, publishKey: "no-such-key")
        let error = try #require(
            await Self.failure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "room", message: ["text": "hi"])
            })
        #expect(error.category == .badRequest)
        #expect(error.statusCode == 400)
        #expect(error.reason == .invalidKey)
        #expect(error.errorData?.information == "Invalid Key")
        #expect(error.operation == .publish)
    }

    @Test(arguments: PublishBackend.allCases)
    func theServicesMessageTooLargeIsATypedBadRequest(_ backend: PublishBackend) async throws {
        let rig = try await PublishRig.start()
        defer { Task { await rig.stop() } }
        let pubnub = try rig.client(backend)
        // Let the SDK send what the service will refuse.
        pubnub.set(messagingConfiguration: PubNub.MessagingConfiguration(messageSizeLimit: 1 << 20))
        let error = try #require(
            await Self.failure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "room", message: String(repeating: "x", count: 40_000))
            })
        #expect(error.category == .badRequest)
        #expect(error.statusCode == 400)
        #expect(error.reason == .messageTooLarge)
        #expect(error.errorData?.information == "Message Too Large")
    }

    @Test(arguments: PublishBackend.allCases)
    func aBodyOverTheServersLimitIs413MessageTooLarge(_ backend: PublishBackend) async throws {
        let rig = try await PublishRig.start()
        defer { Task { await rig.stop() } }
        // The same emulator behind an HTTP server that takes bodies of at most 1 KiB.
        var configuration = HTTPServer.Configuration()
        configuration.maximumBodyBytes = 1024
        let server = HTTPServer(configuration: configuration, handler: rig.emulator.handler)
        try await server.start()
        defer { Task { await server.stop() } }
        let pubnub = try rig.client(backend, port: Int(try #require(server.port)))
        // Random text does not compress: the gzip body stays over 1 KiB.
        var generator = SeededRandomNumberGenerator(seed: 7)
        let noise = String(
            (0..<4096).map { _ in Character(UnicodeScalar(UInt8.random(in: 33...126, using: &generator))) })
        let error = try #require(
            await Self.failure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "room", message: noise, shouldCompress: true)
            })
        #expect(error.statusCode == 413)
        #expect(error.category == .badRequest)
        #expect(error.reason == .messageTooLarge)
    }

    @Test(arguments: PublishBackend.allCases)
    func aProtectedKeysetRefusesWith403UntilATokenIsSetThenRetrySucceeds(_ backend: PublishBackend) async throws {
        let rig = try await PublishRig.start()
        defer { Task { await rig.stop() } }
        let keyset = PublishRig.protected
        let server = try rig.server(backend)
        let readOnly = try await server.grantToken(ttlMinutes: 10, resources: ["channels": ["room": 1]])
        let pubnub = try rig.client(
            backend, publishKey: keyset.publishKey, subscribeKey: keyset.subscribeKey, token: readOnly)
        let denied = try #require(
            await Self.failure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "room", message: ["text": "hi"])
            })
        #expect(denied.category == .accessDenied)
        #expect(denied.statusCode == 403)
        #expect(denied.reason == .forbidden)
        #expect(denied.errorData?.channels == ["room"])
        #expect(denied.errorData?.channelGroups == [])
        #expect(denied.errorData?.information == "Forbidden")
        #expect(!"\(denied)".contains(readOnly))
        // A signal is refused the same way, with its own operation.
        let signal = try #require(
            await Self.failure { () async throws(PubNubPublishError) in
                try await pubnub.signal(channel: "room", message: 1)
            })
        #expect(signal.operation == .signal)
        #expect(signal.category == .accessDenied)
        // The app's server grants write; the same request, retried, now goes through.
        pubnub.set(token: try await server.grantToken(ttlMinutes: 10, resources: ["channels": ["room": 3]]))
        let timetoken = try await denied.retry()
        #expect(timetoken > 17_000_000_000_000_000)
    }

    @Test(arguments: PublishBackend.allCases)
    func aConnectionResetBeforeTheAnswerThenRetryDeliversOnce(_ backend: PublishBackend) async throws {
        let rig = try await PublishRig.start()
        defer { Task { await rig.stop() } }
        let cursor = try await rig.cursor("reset-\(backend)")
        let pubnub = try rig.client(backend)
        rig.emulator.injectFault(.resetBeforeBody, on: .publish)
        let error = try #require(
            await Self.failure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "reset-\(backend)", message: ["n": 1])
            })
        #expect(error.category == .networkIssues)
        #expect(error.statusCode == nil)
        #expect(error.errorData?.information.hasPrefix("the request failed (") == true)
        let timetoken = try await error.retry()
        #expect(timetoken > 17_000_000_000_000_000)
        // The reset came before the emulator published: exactly one copy.
        #expect(try await rig.delivered("reset-\(backend)", after: cursor) == [["n": 1]])
    }

    @Test(arguments: PublishBackend.allCases)
    func aLostAnswerRetriedCanDeliverTwiceAsDocumented(_ backend: PublishBackend) async throws {
        let rig = try await PublishRig.start()
        defer { Task { await rig.stop() } }
        let cursor = try await rig.cursor("cut-\(backend)")
        let pubnub = try rig.client(backend)
        rig.emulator.injectFault(.resetDuringBody, on: .publish)
        let error = try #require(
            await Self.failure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "cut-\(backend)", message: ["n": 1])
            })
        #expect(error.category == .networkIssues)
        try await error.retry()
        // The emulator published before the answer was cut, so the retry is a second copy.
        #expect(try await rig.delivered("cut-\(backend)", after: cursor) == [["n": 1], ["n": 1]])
    }

    @Test(arguments: PublishBackend.allCases)
    func aServiceErrorThenRetrySucceeds(_ backend: PublishBackend) async throws {
        let rig = try await PublishRig.start()
        defer { Task { await rig.stop() } }
        let cursor = try await rig.cursor("busy-\(backend)")
        let pubnub = try rig.client(backend)
        rig.emulator.injectFault(.status(503), on: .publish)
        let error = try #require(
            await Self.failure { () async throws(PubNubPublishError) in
                try await pubnub.publish().channel("busy-\(backend)").message(["n": 2]).perform()
            })
        #expect(error.category == .networkIssues)
        #expect(error.statusCode == 503)
        #expect(error.reason == .serviceUnavailable)
        try await error.retry()
        #expect(try await rig.delivered("busy-\(backend)", after: cursor) == [["n": 2]])
    }
}
