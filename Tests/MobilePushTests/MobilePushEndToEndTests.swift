import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import Messaging
import MobilePush
import Testing
import Transport

/// An emulator over loopback HTTP with the open `demo` keyset and the protected `pub-p`/`sub-p`
/// one, and clients for it.
enum PushRig {
    static let protected = PubSubKeyset.protected(publishKey: "pub-p", subscribeKey: "sub-p", secretKey: "sec-p")
    static let adminSecret = "push-admin-secret-for-tests"

    static func start() async throws -> KeysetRig {
        try await KeysetRig.start(protected: protected, admin: AdminConfiguration(secret: adminSecret))
    }
}

extension KeysetRig {
    /// The keyset's registrations as the admin route lists them (asked with the push rig's secret).
    func registrations(_ subscribeKey: String = "demo") async throws -> [JSONValue] {
        let response = await emulator.respond(
            to: ServerRequest(
                method: "GET", target: "/_emulator/v1/keysets/\(subscribeKey)/push",
                headers: [(name: "Authorization", value: "Bearer \(PushRig.adminSecret)")]))
        return try #require(try JSONValue(parsing: response.body)["registrations"]?.arrayValue)
    }
}

@Suite("Mobile push registrations against the emulator, both backends")
struct MobilePushEndToEndTests {
    @Test(arguments: HTTPBackend.allCases)
    func fcmChannelsAreAddedListedRemovedAndTheDeviceRemoved(_ backend: HTTPBackend) async throws {
        try await PushRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let device = PubNubPushDevice.fcm(token: "fcm-token:abc_123")
            try await pubnub.addPushChannels(["news", "sport", "alerts"], for: device)
            #expect(try await pubnub.listPushChannels(for: device) == ["alerts", "news", "sport"])
            try await pubnub.removePushChannels(["news"], from: device)
            #expect(try await pubnub.listPushChannels(for: device) == ["alerts", "sport"])
            // Another gateway with the same token is another registration.
            #expect(try await pubnub.listPushChannels(for: PubNubPushDevice(token: device.token, pushType: .gcm)) == [])
            try await pubnub.removeAllPushChannels(for: device)
            #expect(try await pubnub.listPushChannels(for: device) == [])
            #expect(try await rig.registrations() == [])
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func apns2RegistrationsArePerTopicAndEnvironmentWithHexTokens(_ backend: HTTPBackend) async throws {
        try await PushRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let token = Data([0x0A, 0xFF, 0x10, 0x7C])
            let debug = PubNubPushDevice.apns2(deviceToken: token, topic: "com.example.chat")
            let release = PubNubPushDevice.apns2(
                deviceToken: token, topic: "com.example.chat", environment: .production)
            try await pubnub.addPushChannels(["room-1"], for: debug)
            try await pubnub.addPushChannels(["room-2"], for: release)
            #expect(try await pubnub.listPushChannels(for: debug) == ["room-1"])
            #expect(try await pubnub.listPushChannels(for: release) == ["room-2"])
            let shown = try await rig.registrations()
            #expect(
                shown == [
                    [
                        "type": "apns2", "token": "0aff107c", "topic": "com.example.chat", "environment": "development",
                        "channels": ["room-1"],
                    ],
                    [
                        "type": "apns2", "token": "0aff107c", "topic": "com.example.chat", "environment": "production",
                        "channels": ["room-2"],
                    ],
                ])
            try await pubnub.removeAllPushChannels(for: release)
            #expect(try await pubnub.listPushChannels(for: release) == [])
            #expect(try await pubnub.listPushChannels(for: debug) == ["room-1"])
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func aBuiltPushPayloadIsPublishedOnAChannelADeviceIsRegisteredOn(_ backend: HTTPBackend) async throws {
        try await PushRig.start().run { rig in
            let pubnub = try rig.client(backend)
            let iPhone = PubNubPushDevice.apns2(token: "0aff107c", topic: "com.example.shop", environment: .production)
            try await pubnub.addPushChannels(["orders.o-17"], for: iPhone)
            try await pubnub.addPushChannels(["orders.o-17"], for: .fcm(token: "android-1"))
            let push = PubNubPushPayload()
                .apns(title: "Order shipped", body: "Arrives Tuesday")
                .apns2(topic: "com.example.shop", environment: .production)
                .fcm(title: "Order shipped", body: "Arrives Tuesday")
            let timetoken = try await pubnub.publish(
                channel: "orders.o-17", message: ["text": "shipped"], payloads: push)
            // The emulator sends no notification; the message is stored as the service would push it.
            let stored = await rig.emulator.respond(
                to: ServerRequest(method: "GET", target: "/v3/history/sub-key/demo/channel/orders.o-17"))
            let item = try #require(try JSONValue(parsing: stored.body)["channels"]?["orders.o-17"]?[0])
            #expect(item["timetoken"]?.stringValue == String(timetoken))
            let message = try #require(item["message"])
            #expect(message["text"] == "shipped")
            #expect(message["pn_fcm"] != nil)
            let target = try #require(message["pn_apns"]?["pn_push"]?[0]?["targets"]?[0])
            // The payload's target matches the registration's topic and environment.
            #expect(target["topic"]?.stringValue == iPhone.topic)
            #expect(target["environment"]?.stringValue == iPhone.environment?.rawValue)
            #expect(try await pubnub.listPushChannels(for: iPhone) == ["orders.o-17"])
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func changingChannelsNeedsReadOnThemAndListingAnyToken(_ backend: HTTPBackend) async throws {
        try await PushRig.start().run { rig in
            let server = try rig.server(backend)
            let device = PubNubPushDevice.fcm(token: "t-1")
            let writer = try rig.client(
                backend, keyset: PushRig.protected,
                token: try await server.grantToken(ttlMinutes: 5, resources: ["channels": ["room": 2]]))
            do {
                try await writer.addPushChannels(["room"], for: device)
                Issue.record("registering without read access was allowed")
            } catch {
                #expect(error.pubNubError?.reason == .forbidden)
            }
            let reader = try rig.client(
                backend, keyset: PushRig.protected,
                token: try await server.grantToken(ttlMinutes: 5, resources: ["channels": ["room": 1]]))
            try await reader.addPushChannels(["room"], for: device)
            #expect(try await writer.listPushChannels(for: device) == ["room"])
            try await writer.removeAllPushChannels(for: device)
            let anonymous = try rig.client(backend, keyset: PushRig.protected)
            do {
                _ = try await anonymous.listPushChannels(for: device)
                Issue.record("listing without a token was allowed")
            } catch {
                #expect(error.pubNubError?.reason == .forbidden)
            }
        }
    }

    @Test(arguments: HTTPBackend.allCases)
    func tokensTheServiceRefusesFailWithItsMessage(_ backend: HTTPBackend) async throws {
        try await PushRig.start().run { rig in
            let pubnub = try rig.client(backend)
            do {
                try await pubnub.addPushChannels(["room"], for: .fcm(token: "not a token"))
                Issue.record("the emulator took a token with spaces")
            } catch {
                let failure = try #require(error.pubNubError)
                #expect(failure.reason == .badRequest)
                #expect(failure.statusCode == 400)
                #expect(failure.message.hasPrefix("Invalid device token"), "\(failure.message)")
            }
        }
    }

    @Test func completionFormsReportTheirResults() async throws {
        try await PushRig.start().run { rig in
            let pubnub = try rig.client(.urlSession)
            let device = PubNubPushDevice.fcm(token: "t-2")
            let added = await withCheckedContinuation { continuation in
                pubnub.addPushChannels(["a"], for: device) { continuation.resume(returning: $0) }
            }
            #expect((try? added.get()) != nil)
            let listed = await withCheckedContinuation { continuation in
                pubnub.listPushChannels(for: device) { continuation.resume(returning: $0) }
            }
            #expect(try listed.get() == ["a"])
            let refused = await withCheckedContinuation { continuation in
                pubnub.removeAllPushChannels(for: PubNubPushDevice(token: "", pushType: .fcm)) {
                    continuation.resume(returning: $0)
                }
            }
            #expect(throws: PubNubError.self) { try refused.get() }
        }
    }
}

@Suite("Mobile push requests")
struct MobilePushRequestTests {
    private typealias Call = @Sendable (PubNub) async throws -> Void

    private func recorded(_ body: Call, answer: JSONValue = [1, "Modified Channels"]) async throws -> HTTPRequest {
        let recorder = RecordingHTTPClient(MockHTTPClient.json(answer))
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: "pub", subscribeKey: "sub", userId: "me", transport: recorder, retryPolicy: .none))
        try await body(pubnub)
        return try #require(recorder.lastRequest)
    }

    private func query(_ request: HTTPRequest) -> [String: String] {
        var items: [String: String] = [:]
        for item in request.queryItems where item.name != "pnsdk" { items[item.name] = item.value ?? "" }
        return items
    }

    @Test func requestsFollowThePythonSDKsPathsAndQueries() async throws {
        let add = try await recorded { try await $0.addPushChannels(["a", "b"], for: .fcm(token: "tok")) }
        #expect(add.method == .get && add.path == "/v1/push/sub-key/sub/devices/tok")
        #expect(query(add) == ["type": "fcm", "add": "a,b", "uuid": "me"])
        let remove = try await recorded {
            try await $0.removePushChannels(["a"], from: PubNubPushDevice(token: "tok", pushType: .gcm))
        }
        #expect(query(remove) == ["type": "gcm", "remove": "a", "uuid": "me"])
        let apns = try await recorded(
            { _ = try await $0.listPushChannels(for: .apns2(token: "ab", topic: "com.x")) }, answer: ["a"])
        #expect(apns.path == "/v2/push/sub-key/sub/devices-apns2/ab")
        #expect(query(apns) == ["topic": "com.x", "environment": "development", "uuid": "me"])
        let gone = try await recorded {
            try await $0.removeAllPushChannels(for: .apns2(token: "ab", topic: "com.x", environment: .production))
        }
        #expect(gone.path == "/v2/push/sub-key/sub/devices-apns2/ab/remove")
        #expect(query(gone) == ["topic": "com.x", "environment": "production", "uuid": "me"])
    }

    @Test func badArgumentsFailBeforeSending() async throws {
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: "demo", subscribeKey: "demo", userId: "me",
                transport: MockHTTPClient { request in
                    Issue.record("sent \(request.path)")
                    throw TransportError(code: .cannotConnect, message: "refused")
                }, retryPolicy: .none))
        let failures: [(PubNubError.Reason, () async throws -> Void)] = [
            (.missingRequiredParameter, { try await pubnub.addPushChannels([], for: .fcm(token: "t")) }),
            (.missingRequiredParameter, { try await pubnub.addPushChannels(["a"], for: .fcm(token: "")) }),
            (.missingRequiredParameter, { _ = try await pubnub.listPushChannels(for: .apns2(token: "t", topic: "")) }),
            (
                .missingRequiredParameter,
                { try await pubnub.removeAllPushChannels(for: PubNubPushDevice(token: "t", pushType: .apns2)) }
            ),
            (.invalidArguments, { try await pubnub.removePushChannels(["a,b"], from: .fcm(token: "t")) }),
            (.invalidArguments, { try await pubnub.addPushChannels([""], for: .fcm(token: "t")) }),
        ]
        for (reason, failure) in failures {
            do {
                try await failure()
                Issue.record("bad arguments were sent")
            } catch {
                #expect(error.pubNubError?.reason == reason, "\(error)")
            }
        }
    }

    @Test func answersThatAreNotListsAreMalformedAndErrorBodiesAreErrors() async throws {
        await #expect(throws: PubNubError.self) {
            _ = try await recorded({ _ = try await $0.listPushChannels(for: .fcm(token: "t")) }, answer: ["x": 1])
        }
        do {
            _ = try await recorded(
                { _ = try await $0.listPushChannels(for: .fcm(token: "t")) }, answer: ["error": "Invalid type"])
            Issue.record("an error body was taken as a list")
        } catch {
            #expect(error.pubNubError?.message == "Invalid type")
        }
        do {
            _ = try await recorded({ _ = try await $0.listPushChannels(for: .fcm(token: "t")) }, answer: [1, 2])
            Issue.record("a list of numbers was taken as channels")
        } catch {
            #expect(error.pubNubError?.reason == .malformedResponse)
        }
    }
}
