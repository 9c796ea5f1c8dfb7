import DataSyncTestSupport
import JSONCore
import PubNubCore
import PubNubCrypto
import Realtime
import Testing
import Transport

@Suite("Decrypting received messages with the configuration's crypto module")
struct DecryptionTests {
    static let module = Result { try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma") }

    static func envelope(_ payload: JSONValue, channel: String = "a", type: Int? = nil) -> SubscribeEnvelope {
        SubscribeEnvelope(
            type: type, publisher: "u2", published: SubscribeCursor(timetoken: 17_000_000_000_000_001, region: 1),
            channel: channel, payload: payload)
    }

    @Test("messages and whole-string file events are decrypted; signals, presence and e: 5 never")
    func whatIsDecrypted() throws {
        let module = try Self.module.get()
        let secret = JSONValue.string(try module.encryptMessage(["text": "hi"]))
        let input = [
            Self.envelope(secret), Self.envelope(secret, type: 0), Self.envelope(secret, type: 1),
            Self.envelope(secret, channel: "a-pnpres"), Self.envelope(secret, type: 5),
            Self.envelope(secret, type: 4), Self.envelope(["file": ["id": "f", "name": "n"]], type: 4),
        ]
        let outcome = SubscribeDecryption.decrypt(input, with: module, channels: ["a"], groups: [])
        #expect(outcome.statuses.isEmpty)
        #expect(
            outcome.envelopes.map(\.payload) == [
                ["text": "hi"], ["text": "hi"], secret, secret, secret, ["text": "hi"],
                ["file": ["id": "f", "name": "n"]],
            ])
    }

    @Test("a message whose push sections were merged after encryption is put back together")
    func pushSections() throws {
        let module = try Self.module.get()
        let object = JSONValue.string(try module.encryptMessage(["text": "hi", "pn_apns": "mine"]))
        let scalar = JSONValue.string(try module.encryptMessage("plain text"))
        let input = [
            Self.envelope(["pn_apns": ["aps": [:]], "pn_other": object]),
            Self.envelope(["pn_fcm": ["data": [:]], "pn_other": scalar]),
        ]
        let outcome = SubscribeDecryption.decrypt(input, with: module, channels: ["a"], groups: [])
        #expect(outcome.statuses.isEmpty)
        // The push section wins over a message key of the same name, as when publishing.
        #expect(outcome.envelopes[0].payload == ["pn_apns": ["aps": [:]], "text": "hi"])
        #expect(outcome.envelopes[1].payload == ["pn_fcm": ["data": [:]], "pn_other": "plain text"])
    }

    @Test("what cannot be decrypted is delivered as it came, with one decryptionError each")
    func failures() throws {
        let module = try Self.module.get()
        let other = try CryptoModule.aesCbcCryptoModule(cipherKey: "another key")
        let foreign = JSONValue.string(try other.encryptMessage(["text": "hi"]))
        let input = [
            Self.envelope(foreign), Self.envelope(["text": "plain"]), Self.envelope("not base64 !"),
            Self.envelope(["pn_other": foreign]),
        ]
        let outcome = SubscribeDecryption.decrypt(input, with: module, channels: ["a"], groups: ["g"])
        #expect(outcome.envelopes == input)
        #expect(outcome.statuses.map(\.category) == Array(repeating: .decryptionError, count: 4))
        let first = try #require(outcome.statuses.first)
        #expect(first.isError && first.operation == .subscribe)
        #expect(first.errorData?.channels == ["a"])
        #expect(first.subscribedChannels == ["a"] && first.subscribedChannelGroups == ["g"])
        #expect(first.currentTimetoken == 17_000_000_000_000_001)
    }

    @Test("without a crypto module nothing changes")
    func noModule() {
        let input = [Self.envelope("text"), Self.envelope(["a": 1])]
        let outcome = SubscribeDecryption.decrypt(input, with: nil, channels: [], groups: [])
        #expect(outcome.envelopes == input && outcome.statuses.isEmpty)
    }

    @Test("the loop delivers decrypted messages and reports decryptionError for the rest")
    func throughTheLoop() async throws {
        let module = try Self.module.get()
        let (service, _, pubnub) = scriptedClient { $0.cryptoModule = module }
        let statuses = Recorder<PubNubStatus>()
        let messages = Recorder<PubNubMessage>()
        let signals = Recorder<PubNubMessage>()
        pubnub.onStatus = { statuses.append($0) }
        pubnub.onMessage = { messages.append($0) }
        pubnub.onSignal = { signals.append($0) }
        let secret = JSONValue.string(try module.encryptMessage(["text": "hi"]))
        service.push(Answer.subscribe("100"))
        service.push(
            Answer.subscribe(
                "200",
                [
                    Answer.message("a", secret, tt: "150"), Answer.message("a", "plain", tt: "160"),
                    Answer.message("a", secret, tt: "170", type: 1),
                ]))
        pubnub.subscribe(to: ["a"])
        #expect(await messages.waitFor(2))
        #expect(await statuses.waitFor(2))
        #expect(messages.all.map(\.payload) == [["text": "hi"], "plain"])
        #expect(signals.all.map(\.payload) == [secret])
        #expect(statuses.all.map(\.category) == [.connected, .decryptionError])
        #expect(statuses.all.last?.currentTimetoken == 160)
    }
}
