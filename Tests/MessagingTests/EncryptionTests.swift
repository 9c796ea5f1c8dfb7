import DataSyncTestSupport
import JSONCore
import Messaging
import PubNubCrypto
import Testing
import Transport

@testable import Messaging

@Suite("Publishing with a crypto module")
struct EncryptionTests {
    private func module() throws -> CryptoModule {
        try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma")
    }

    @Test func publishSendsTheCiphertextAsAJSONString() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let crypto = try module()
        pubnub.set(messagingConfiguration: PubNub.MessagingConfiguration(cryptoModule: crypto))
        try await pubnub.publish(channel: "secret", message: ["text": "hello"], meta: ["k": "v"])
        let request = try #require(recorder.lastRequest)
        let segment = try #require(request.path.split(separator: "/").last)
        let text = try #require(MessagingFixtures.percentDecoded(String(segment)))
        let wire = try JSONValue(parsing: text)
        let base64 = try #require(wire.stringValue)
        #expect(try crypto.decryptMessage(base64) == ["text": "hello"])
        // Metadata stays readable for filters.
        #expect(request.queryValue("meta") == #"{"k":"v"}"#)
    }

    @Test func compressedEncryptedPublishGzipsTheCiphertextString() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let crypto = try module()
        pubnub.set(messagingConfiguration: PubNub.MessagingConfiguration(cryptoModule: crypto))
        try await pubnub.fire(channel: "secret", message: [1, 2, 3], shouldCompress: true)
        let body = try #require(recorder.lastRequest?.body)
        let plain = try #require(GzipBody.decompress(body))
        let base64 = try #require(try JSONValue(parsing: plain).stringValue)
        #expect(try crypto.decryptMessage(base64) == [1, 2, 3])
    }

    @Test func pushSectionsStayReadableBesideTheCiphertext() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let crypto = try module()
        pubnub.set(messagingConfiguration: PubNub.MessagingConfiguration(cryptoModule: crypto))
        try await pubnub.publish(
            channel: "secret", message: ["text": "hello"], payloads: PubNubPushPayload().apns(title: "New"))
        let segment = try #require(recorder.lastRequest?.path.split(separator: "/").last)
        let text = try #require(MessagingFixtures.percentDecoded(String(segment)))
        let wire = try JSONValue(parsing: text)
        #expect(wire["pn_apns"] == ["aps": ["alert": ["title": "New"]]])
        let base64 = try #require(wire["pn_other"]?.stringValue)
        #expect(try crypto.decryptMessage(base64) == ["text": "hello"])
    }

    @Test func signalsAreNotEncrypted() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        pubnub.set(messagingConfiguration: PubNub.MessagingConfiguration(cryptoModule: try module()))
        try await pubnub.signal(channel: "c", message: ["typing": true])
        #expect(recorder.lastRequest?.path == "/signal/myPublishKey/mySubKey/0/c/0/%7B%22typing%22%3Atrue%7D")
    }

    @Test func withoutACryptoModuleNothingIsEncrypted() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        #expect(pubnub.messagingConfiguration.cryptoModule == nil)
        try await pubnub.publish(channel: "c", message: "plain")
        #expect(recorder.lastRequest?.path == "/publish/myPublishKey/mySubKey/0/c/0/%22plain%22")
    }
}

@Suite("Publishing with the configuration's crypto module")
struct ConfigurationEncryptionTests {
    private static func client(
        _ recorder: RecordingHTTPClient, module: CryptoModule?
    ) -> PubNub {
        var configuration = PubNubConfiguration(
            publishKey: MessagingFixtures.publishKey, subscribeKey: MessagingFixtures.subscribeKey,
            userId: MessagingFixtures.userId, transport: recorder, retryPolicy: .none)
        configuration.cryptoModule = module
        return PubNub(configuration: configuration)
    }

    private static func sentMessage(_ recorder: RecordingHTTPClient) throws -> JSONValue {
        let segment = try #require(recorder.lastRequest?.path.split(separator: "/").last)
        let text = try #require(MessagingFixtures.percentDecoded(String(segment)))
        return try JSONValue(parsing: text)
    }

    @Test func publishEncryptsWithPubNubConfigurationCryptoModule() async throws {
        let recorder = RecordingHTTPClient(
            MockHTTPClient.success(status: 200, body: Array(MessagingFixtures.sent.utf8)))
        let crypto = try CryptoModule.legacyCryptoModule(cipherKey: "configured")
        let pubnub = Self.client(recorder, module: crypto)
        try await pubnub.publish(channel: "secret", message: ["text": "hello"])
        let base64 = try #require(try Self.sentMessage(recorder).stringValue)
        #expect(try crypto.decryptMessage(base64) == ["text": "hello"])
        // Signals stay plain.
        try await pubnub.signal(channel: "secret", message: "typing")
        #expect(try Self.sentMessage(recorder) == "typing")
    }

    @Test func messagingConfigurationModuleOverridesTheConfigurationOne() async throws {
        let recorder = RecordingHTTPClient(
            MockHTTPClient.success(status: 200, body: Array(MessagingFixtures.sent.utf8)))
        let configured = try CryptoModule.legacyCryptoModule(cipherKey: "configured")
        let override = try CryptoModule.aesCbcCryptoModule(cipherKey: "override")
        let pubnub = Self.client(recorder, module: configured)
        pubnub.set(messagingConfiguration: PubNub.MessagingConfiguration(cryptoModule: override))
        try await pubnub.publish(channel: "secret", message: 42)
        let base64 = try #require(try Self.sentMessage(recorder).stringValue)
        #expect(try override.decryptMessage(base64) == 42)
        #expect(throws: CryptoError.self) { try configured.decryptMessage(base64) }
    }
}
