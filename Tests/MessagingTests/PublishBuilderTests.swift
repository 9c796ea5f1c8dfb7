import DataSyncTestSupport
import JSONCore
import Messaging
import Testing
import Transport

@Suite("Publish, fire and signal builders")
struct PublishBuilderTests {
    private let base = "/publish/myPublishKey/mySubKey/0"

    @Test func publishBuilderSendsWhatItDescribes() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let timetoken = try await pubnub.publish()
            .channel("my_channel").message("Hello from PubNub iOS!").shouldStore(true).ttl(16)
            .metadata(["senderID": "bob"]).customMessageType("chat-text")
            .perform()
        #expect(timetoken == 14_647_523_059_145_592)
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET",
            path: "\(base)/my_channel/0/%22Hello%20from%20PubNub%20iOS%21%22",
            query: ["store": "1", "ttl": "16", "meta": #"{"senderID":"bob"}"#, "custom_message_type": "chat-text"])
    }

    @Test func aBuilderIsAValue() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let plain = pubnub.publish().channel("c").message(1)
        let stored = plain.shouldStore(false)
        try await plain.perform()
        try await stored.perform()
        // Performing the same value again is the retry: the same request.
        try await plain.perform()
        let queries = recorder.requests.map(MessagingFixtures.operationQuery)
        #expect(queries == [[:], ["store": "0"], [:]])
        #expect(recorder.requests[0] == recorder.requests[2])
    }

    @Test func compressedBuilderPostsGzip() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        try await pubnub.publish().channel("c").message(["a": 1]).compress(true).perform()
        #expect(recorder.lastRequest?.method == .post)
        #expect(recorder.lastRequest?.headers["Content-Encoding"] == "gzip")
    }

    @Test func payloadsAloneAreEnough() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let push = PubNubPushPayload().apns(title: "Hi")
        try await pubnub.publish().channel("c").payloads(push).perform()
        let segment = try #require(recorder.lastRequest?.path.split(separator: "/").last)
        let text = try #require(MessagingFixtures.percentDecoded(String(segment)))
        #expect(try JSONValue(parsing: text) == ["pn_apns": ["aps": ["alert": ["title": "Hi"]]]])
    }

    @Test func withoutMessageOrPayloadsNothingIsSent() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let error = await MessagingFixtures.error { try await pubnub.publish().channel("c").perform() }
        #expect(error?.reason == .missingRequiredParameter)
        let noChannel = await MessagingFixtures.error { try await pubnub.publish().message(1).perform() }
        #expect(noChannel?.reason == .missingRequiredParameter)
        #expect(recorder.requests.isEmpty)
    }

    @Test func fireBuilderNeverStores() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        try await pubnub.fire().channel("ch1").message(["such": "object"]).metadata(["k": "v"]).perform()
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/ch1/0/%7B%22such%22%3A%22object%22%7D",
            query: ["store": "0", "norep": "true", "meta": #"{"k":"v"}"#])
    }

    @Test func signalBuilderGoesToSignal() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        try await pubnub.signal().message(["Hello": "world"]).channel("announcement").perform()
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET",
            path: "/signal/myPublishKey/mySubKey/0/announcement/0/%7B%22Hello%22%3A%22world%22%7D")
    }

    @Test func performWithCompletionRunsInTheConfiguredContext() async throws {
        let (pubnub, _) = MessagingFixtures.recorded()
        let results = await withCheckedContinuation { (continuation: CheckedContinuation<[Timetoken], Never>) in
            pubnub.publish().channel("c").message(1).perform { publish in
                pubnub.fire().channel("c").message(1).perform { fire in
                    pubnub.signal().channel("c").message(1).perform { signal in
                        continuation.resume(returning: [publish, fire, signal].compactMap { try? $0.get() })
                    }
                }
            }
        }
        #expect(results.count == 3)
    }

    @Test func customOverridesReachTheRequest() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let custom = PubNub.RequestConfiguration(queryParameters: [HTTPQueryItem(name: "extra", value: "1")])
        try await pubnub.publish().channel("c").message(1).custom(custom).perform()
        #expect(recorder.lastRequest?.queryValue("extra") == "1")
    }
}
