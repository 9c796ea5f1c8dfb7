import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import Messaging
import Testing
import Transport

/// The checks the publish tests make through the emulator itself, beside the client under test.
extension KeysetRig {
    /// The keyset with access control on that these tests grant on.
    static let publishProtected = PubSubKeyset.protected(
        publishKey: "pub-p", subscribeKey: "sub-p", secretKey: "sec-p")

    static func startForPublish() async throws -> KeysetRig {
        try await start(protected: publishProtected)
    }

    /// A publishing client of `keyset` over `backend` (to `port` instead of the emulator's when set).
    func publisher(_ backend: HTTPBackend, keyset: PubSubKeyset = .demo, token: String? = nil, port: Int? = nil)
        throws -> PubNub
    {
        try client(backend, userId: "publisher", keyset: keyset, token: token, port: port)
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

    /// Queues `fault` on the publish route, publishes `message` on `channel` through `publish`
    /// (`publish(channel:message:)` when nil), and returns the failure with the channel's cursor
    /// from before it.
    func failedPublish(
        _ backend: HTTPBackend, fault: PubSubFault, channel: String, message: JSONValue,
        publish: ((PubNub) async throws(PubNubPublishError) -> Timetoken)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (error: PubNubPublishError, cursor: String) {
        let cursor = try await cursor(channel)
        let pubnub = try publisher(backend)
        emulator.injectFault(fault, on: .publish)
        let error = try #require(
            await PublishStatusTests.failure(
                { () async throws(PubNubPublishError) in
                    if let publish { return try await publish(pubnub) }
                    return try await pubnub.publish(channel: channel, message: message)
                }, sourceLocation: sourceLocation), sourceLocation: sourceLocation)
        return (error, cursor)
    }
}

/// The publish status end to end: real answers of the emulator over both HTTP backends become
/// the categories, status codes and error data of `PubNubPublishError`, and `retry()` succeeds
/// once the cause is gone.
@Suite("Publish status against the emulator, both backends")
struct PublishStatusEmulatorTests {
    @Test(arguments: HTTPBackend.allCases)
    func anUnknownPublishKeyIs400InvalidKey(_ backend: HTTPBackend) async throws {
        try await KeysetRig.startForPublish().run { rig in
            let pubnub = try rig.publisher(
                backend, keyset: PubSubKeyset(publishKey: "no-such-key", subscribeKey: "demo", secretKey: ""))
            let error = try await PublishStatusTests.requireFailure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "room", message: ["text": "hi"])
            }
            #expect(error.category == .badRequest)
            #expect(error.statusCode == 400)
            #expect(error.reason == .invalidKey)
            #expect(error.errorData?.information == "Invalid Key")
            #expect(error.operation == .publish)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func theServicesMessageTooLargeIsATypedBadRequest(_ backend: HTTPBackend) async throws {
        try await KeysetRig.startForPublish().run { rig in
            let pubnub = try rig.publisher(backend)
            // Let the SDK send what the service will refuse.
            pubnub.set(messagingConfiguration: PubNub.MessagingConfiguration(messageSizeLimit: 1 << 20))
            let error = try await PublishStatusTests.requireFailure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "room", message: String(repeating: "x", count: 40_000))
            }
            #expect(error.category == .badRequest)
            #expect(error.statusCode == 400)
            #expect(error.reason == .messageTooLarge)
            #expect(error.errorData?.information == "Message Too Large")
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func aBodyOverTheServersLimitIs413MessageTooLarge(_ backend: HTTPBackend) async throws {
        try await KeysetRig.startForPublish().run { rig in
            // The same emulator behind an HTTP server that takes bodies of at most 1 KiB.
            var configuration = HTTPServer.Configuration()
            configuration.maximumBodyBytes = 1024
            let server = HTTPServer(configuration: configuration, handler: rig.emulator.handler)
            try await server.start()
            defer { Task { await server.stop() } }
            let pubnub = try rig.publisher(backend, port: Int(try #require(server.port)))
            // Random text does not compress: the gzip body stays over 1 KiB.
            var generator = SeededRandomNumberGenerator(seed: 7)
            let noise = String(
                (0..<4096).map { _ in Character(UnicodeScalar(UInt8.random(in: 33...126, using: &generator))) })
            let error = try await PublishStatusTests.requireFailure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "room", message: noise, shouldCompress: true)
            }
            #expect(error.statusCode == 413)
            #expect(error.category == .badRequest)
            #expect(error.reason == .messageTooLarge)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func aProtectedKeysetRefusesWith403UntilATokenIsSetThenRetrySucceeds(_ backend: HTTPBackend) async throws {
        try await KeysetRig.startForPublish().run { rig in
            let server = try rig.server(backend)
            let readOnly = try await server.grantToken(ttlMinutes: 10, resources: ["channels": ["room": 1]])
            let pubnub = try rig.publisher(backend, keyset: rig.protected, token: readOnly)
            let denied = try await PublishStatusTests.requireFailure { () async throws(PubNubPublishError) in
                try await pubnub.publish(channel: "room", message: ["text": "hi"])
            }
            #expect(denied.category == .accessDenied)
            #expect(denied.statusCode == 403)
            #expect(denied.reason == .forbidden)
            #expect(denied.errorData?.channels == ["room"])
            #expect(denied.errorData?.channelGroups == [])
            #expect(denied.errorData?.information == "Forbidden")
            #expect(!"\(denied)".contains(readOnly))
            // A signal is refused the same way, with its own operation.
            let signal = try await PublishStatusTests.requireFailure { () async throws(PubNubPublishError) in
                try await pubnub.signal(channel: "room", message: 1)
            }
            #expect(signal.operation == .signal)
            #expect(signal.category == .accessDenied)
            // The app's server grants write; the same request, retried, now goes through.
            pubnub.set(token: try await server.grantToken(ttlMinutes: 10, resources: ["channels": ["room": 3]]))
            let timetoken = try await denied.retry()
            #expect(timetoken > 17_000_000_000_000_000)
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func aConnectionResetBeforeTheAnswerThenRetryDeliversOnce(_ backend: HTTPBackend) async throws {
        try await KeysetRig.startForPublish().run { rig in
            let (error, cursor) = try await rig.failedPublish(
                backend, fault: .resetBeforeBody, channel: "reset-\(backend)", message: ["n": 1])
            #expect(error.category == .networkIssues)
            #expect(error.statusCode == nil)
            #expect(error.errorData?.information.hasPrefix("the request failed (") == true)
            let timetoken = try await error.retry()
            #expect(timetoken > 17_000_000_000_000_000)
            // The reset came before the emulator published: exactly one copy.
            #expect(try await rig.delivered("reset-\(backend)", after: cursor) == [["n": 1]])
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func aLostAnswerRetriedCanDeliverTwiceAsDocumented(_ backend: HTTPBackend) async throws {
        try await KeysetRig.startForPublish().run { rig in
            let (error, cursor) = try await rig.failedPublish(
                backend, fault: .resetDuringBody, channel: "cut-\(backend)", message: ["n": 1])
            #expect(error.category == .networkIssues)
            try await error.retry()
            // The emulator published before the answer was cut, so the retry is a second copy.
            #expect(try await rig.delivered("cut-\(backend)", after: cursor) == [["n": 1], ["n": 1]])
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func aServiceErrorThenRetrySucceeds(_ backend: HTTPBackend) async throws {
        try await KeysetRig.startForPublish().run { rig in
            let channel = "busy-\(backend)"
            let (error, cursor) = try await rig.failedPublish(
                backend, fault: .status(503), channel: channel, message: ["n": 2]
            ) {
                pubnub async throws(PubNubPublishError) in
                try await pubnub.publish().channel(channel).message(["n": 2]).perform()
            }
            #expect(error.category == .networkIssues)
            #expect(error.statusCode == 503)
            #expect(error.reason == .serviceUnavailable)
            try await error.retry()
            #expect(try await rig.delivered(channel, after: cursor) == [["n": 2]])
        }
    }
}
