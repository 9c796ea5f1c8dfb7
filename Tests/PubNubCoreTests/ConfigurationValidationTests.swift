import DataSyncModels
import DataSyncTestSupport
import PubNubCore
import Testing
import Transport

@Suite("Configuration checked when the client is made")
struct ConfigurationValidationTests {
    private func configuration(
        origin: String = "ps.pndsn.com", subscribeKey: String = "demo", userId: String = "me"
    ) -> PubNubConfiguration {
        PubNubConfiguration(
            publishKey: nil, subscribeKey: subscribeKey, userId: userId, origin: origin,
            transport: MockHTTPClient.success())
    }

    @Test(
        "a malformed origin is reported by PubNub(validating:)",
        arguments: ["", "http://ps.pndsn.com", "host:port", "host:0", "host:65536", "[::1", "a/b", "[::1]x", "a b"])
    func malformedOrigin(_ origin: String) {
        let error = #expect(throws: PubNubError.self) { _ = try PubNub(validating: configuration(origin: origin)) }
        #expect(error?.reason == .invalidConfiguration)
        #expect(error?.message.contains("origin") == true)
    }

    @Test("an empty subscribe key or user id is reported by PubNub(validating:)")
    func emptyIdentity() {
        let key = #expect(throws: PubNubError.self) { _ = try PubNub(validating: configuration(subscribeKey: "")) }
        #expect(key?.message == "the subscribe key is empty")
        let user = #expect(throws: PubNubError.self) { _ = try PubNub(validating: configuration(userId: "")) }
        #expect(user?.message == "the user id is empty")
    }

    @Test(
        "origins parse into scheme, host and port",
        arguments: [
            ("ps.pndsn.com", true, "https://ps.pndsn.com"), ("127.0.0.1:8090", false, "http://127.0.0.1:8090"),
            ("[::1]:8090", false, "http://[::1]:8090"), ("::1", false, "http://[::1]"),
        ])
    func originParsing(_ text: String, _ secure: Bool, _ expected: String) throws {
        let origin = try PubNubOrigin(text, secure: secure)
        #expect(origin.description == expected)
        let client = try PubNub(validating: configuration(origin: text))
        #expect(try client.pipeline.origin.get() == PubNubOrigin(text, secure: true))
    }

    @Test("the non-throwing initializer still defers a bad origin to each call, sending nothing")
    func deferredOrigin() async {
        let recorder = RecordingHTTPClient(MockHTTPClient.success())
        var settings = configuration(origin: "bad:port")
        settings.transport = recorder
        let pubnub = PubNub(configuration: settings)
        let error = await #expect(throws: PubNubError.self) {
            _ = try await pubnub.pipeline.send(.init(method: .get, path: "/time/0"), custom: .init())
        }
        #expect(error?.reason == .invalidConfiguration)
        #expect(recorder.requests.isEmpty)
    }
}
