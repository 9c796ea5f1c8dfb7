import DataSyncTestSupport
import Foundation
import JSONCore
import Messaging
import Testing
import Transport

@testable import Messaging

@Suite("Publish, fire and signal on the wire")
struct PublishRequestTests {
    private let base = "/publish/myPublishKey/mySubKey/0"

    @Test func publishSendsTheMessageJSONAsOnePathSegment() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let timetoken = try await pubnub.publish(channel: "ch1", message: ["such": "object"])
        #expect(timetoken == 14_647_523_059_145_592)
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/ch1/0/%7B%22such%22%3A%22object%22%7D")
        #expect(recorder.lastRequest?.body == nil)
    }

    @Test func publishSendsEveryOptionalParameter() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        try await pubnub.publish(
            channel: "ch1", message: "hi", customMessageType: "test-message-type", shouldStore: true, storeTTL: 16,
            meta: ["senderID": "bob"])
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/ch1/0/%22hi%22",
            query: [
                "custom_message_type": "test-message-type", "store": "1", "ttl": "16", "meta": #"{"senderID":"bob"}"#,
            ])
    }

    @Test func shouldStoreFalseSendsStoreZeroAndTTLZeroIsSent() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        try await pubnub.publish(channel: "ch1", message: 1, shouldStore: false, storeTTL: 0)
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/ch1/0/1", query: ["store": "0", "ttl": "0"])
    }

    @Test(
        "Channel names are encoded as one path segment",
        arguments: [
            ("a/b", "a%2Fb"), ("a,b", "a%2Cb"), ("room.*", "room.%2A"), ("a:b", "a%3Ab"), ("a@b", "a%40b"),
            ("a+b", "a%2Bb"), ("a b", "a%20b"), ("é🎉", "%C3%A9%F0%9F%8E%89"), (".", "%2E"), ("..", "%2E%2E"),
        ])
    func channelNameEncoding(name: String, encoded: String) async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        try await pubnub.publish(channel: name, message: 1)
        try MessagingFixtures.expect(recorder.lastRequest, method: "GET", path: "\(base)/\(encoded)/0/1")
        let (signaller, signals) = MessagingFixtures.recorded()
        try await signaller.signal(channel: name, message: 1)
        try MessagingFixtures.expect(
            signals.lastRequest, method: "GET", path: "/signal/myPublishKey/mySubKey/0/\(encoded)/0/1")
    }

    @Test func messageTextWithReservedCharactersAndUnicodeIsPercentEncoded() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        try await pubnub.publish(channel: "ch", message: ["t": "a/b ,*:@+é"])
        let request = try #require(recorder.lastRequest)
        #expect(request.path == "\(base)/ch/0/%7B%22t%22%3A%22a%2Fb%20%2C%2A%3A%40%2B%C3%A9%22%7D")
        let segment = try #require(request.path.split(separator: "/").last)
        #expect(MessagingFixtures.percentDecoded(String(segment)) == #"{"t":"a/b ,*:@+é"}"#)
    }

    @Test func compressedPublishIsAGzipPOSTToThePathWithoutMessage() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let message: JSONValue = ["text": .string(String(repeating: "compress me ", count: 200))]
        try await pubnub.publish(channel: "ch1", message: message, shouldCompress: true)
        try MessagingFixtures.expect(recorder.lastRequest, method: "POST", path: "\(base)/ch1/0")
        let request = try #require(recorder.lastRequest)
        #expect(request.headers["Content-Encoding"] == "gzip")
        #expect(request.headers["Content-Type"] == "application/json; charset=UTF-8")
        let body = try #require(request.body)
        #expect(Array(body.prefix(2)) == [0x1F, 0x8B])
        #expect(body.count < 2400)
        let plain = try #require(GzipBody.decompress(body))
        #expect(try JSONValue(parsing: plain) == message)
    }

    @Test func aMessageTooLongForAURLGoesAsAPlainPOST() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        // 12 000 characters that each take three bytes percent-encoded: 36 000 bytes in a path,
        // 12 000 in a body.
        let text = String(repeating: "{", count: 12_000)
        try await pubnub.publish(channel: "ch1", message: text)
        let request = try #require(recorder.lastRequest)
        #expect(request.method == .post)
        #expect(request.path == "\(base)/ch1/0")
        #expect(request.headers["Content-Encoding"] == nil)
        #expect(request.headers["Content-Type"] == "application/json; charset=UTF-8")
        #expect(request.body.map { try? JSONValue(parsing: $0) } == .string(text))
    }

    @Test func aMessageThatFitsAURLStaysAGET() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        try await pubnub.publish(channel: "ch1", message: String(repeating: "a", count: 31_000))
        #expect(recorder.lastRequest?.method == .get)
    }

    @Test func aMessageOverTheLimitFailsLocallyWithMessageTooLarge() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let error = await MessagingFixtures.error {
            try await pubnub.publish(channel: "ch1", message: String(repeating: "a", count: 33_000))
        }
        #expect(error?.reason == .messageTooLarge)
        #expect(recorder.requests.isEmpty)
    }

    @Test func theLimitCountsTheChannelName() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        pubnub.set(messagingConfiguration: PubNub.MessagingConfiguration(messageSizeLimit: 20))
        // `"1234567890"` is 12 bytes encoded as %22…%22 = 16 bytes; with a 5-byte channel: 21.
        let error = await MessagingFixtures.error {
            try await pubnub.publish(channel: "chan5", message: "1234567890")
        }
        #expect(error?.reason == .messageTooLarge)
        try await pubnub.publish(channel: "ch1", message: "1234567890")
        #expect(recorder.requests.count == 1)
    }

    @Test func aCompressedMessageIsMeasuredCompressed() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let big = String(repeating: "a", count: 100_000)
        try await pubnub.publish(channel: "ch1", message: big, shouldCompress: true)
        #expect(recorder.lastRequest?.method == .post)
        #expect((recorder.lastRequest?.body?.count ?? .max) < 1000)
    }

    @Test func fireSendsStoreZeroAndNorepTrue() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        try await pubnub.fire(channel: "ch1", message: ["such": "object"], meta: ["k": 1])
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/ch1/0/%7B%22such%22%3A%22object%22%7D",
            query: ["store": "0", "norep": "true", "meta": #"{"k":1}"#])
    }

    @Test func signalGoesToSignalWithItsCustomMessageType() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let timetoken = try await pubnub.signal(
            channel: "ch1", message: ["such": "object"], customMessageType: "test-message-type")
        #expect(timetoken == 14_647_523_059_145_592)
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET",
            path: "/signal/myPublishKey/mySubKey/0/ch1/0/%7B%22such%22%3A%22object%22%7D",
            query: ["custom_message_type": "test-message-type"])
    }

    @Test func aSignalOverSixtyFourBytesFailsLocally() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        // 64 bytes of JSON pass, 65 fail.
        try await pubnub.signal(channel: "ch1", message: String(repeating: "x", count: 62))
        let error = await MessagingFixtures.error {
            try await pubnub.signal(channel: "ch1", message: String(repeating: "x", count: 63))
        }
        #expect(error?.reason == .signalTooLarge)
        #expect(recorder.requests.count == 1)
    }

    @Test func aRaisedSignalLimitIsHonoured() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        pubnub.set(messagingConfiguration: PubNub.MessagingConfiguration(signalSizeLimit: 200))
        try await pubnub.signal(channel: "ch1", message: String(repeating: "x", count: 150))
        #expect(recorder.requests.count == 1)
    }

    @Test func aMissingOrEmptyPublishKeyFailsLocally() async throws {
        for key in [nil, ""] as [String?] {
            let (pubnub, recorder) = MessagingFixtures.recorded(publishKey: key)
            let publish = await MessagingFixtures.error { try await pubnub.publish(channel: "ch", message: 1) }
            let signal = await MessagingFixtures.error { try await pubnub.signal(channel: "ch", message: 1) }
            let fire = await MessagingFixtures.error { try await pubnub.fire(channel: "ch", message: 1) }
            #expect(publish?.reason == .invalidConfiguration)
            #expect(signal?.reason == .invalidConfiguration)
            #expect(fire?.reason == .invalidConfiguration)
            #expect(recorder.requests.isEmpty)
        }
    }

    @Test func anEmptyChannelFailsLocally() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let error = await MessagingFixtures.error { try await pubnub.publish(channel: "", message: 1) }
        #expect(error?.reason == .missingRequiredParameter)
        #expect(recorder.requests.isEmpty)
    }

    @Test func aNegativeTTLAndANonFiniteNumberFailLocally() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let ttl = await MessagingFixtures.error { try await pubnub.publish(channel: "c", message: 1, storeTTL: -1) }
        let nan = await MessagingFixtures.error { try await pubnub.publish(channel: "c", message: Double.nan) }
        #expect(ttl?.reason == .invalidArguments)
        #expect(nan?.reason == .invalidArguments)
        #expect(recorder.requests.isEmpty)
    }

    @Test(
        "Custom message types follow the service's rule",
        arguments: [
            ("abc", true), ("test-message-type", true), ("A_b-9", true), (String(repeating: "a", count: 50), true),
            ("ab", false), (String(repeating: "a", count: 51), false), ("-abc", false), ("_abc", false),
            ("pn-abc", false), ("pn_abc", false), ("PN_abc", false), ("a b c", false), ("abc!", false),
            ("ábc", false),
        ])
    func customMessageTypeValidation(type: String, valid: Bool) async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let error = await { () async -> PubNubError? in
            do {
                try await pubnub.publish(channel: "c", message: 1, customMessageType: type)
                return nil
            } catch {
                return error.pubNubError
            }
        }()
        #expect((error == nil) == valid)
        #expect(recorder.requests.count == (valid ? 1 : 0))
        if !valid { #expect(error?.reason == .invalidArguments) }
    }

    @Test func publishesAreNotRetriedUnlessAsked() async throws {
        let failing = HTTPResponse(status: 500, body: Array(#"{"message":"oops","error":true,"status":500}"#.utf8))
        let scripted = ScriptedHTTPClient([
            .success(failing), .success(HTTPResponse(status: 200, body: Array(MessagingFixtures.sent.utf8))),
        ])
        // Zero delays: were the publish resent, the test would see a second request, not wait.
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: "pub", subscribeKey: "sub", userId: "u", transport: scripted,
                retryPolicy: .linear(delay: .zero, maximumRetries: 3, maximumJitter: .zero)))
        let error = await MessagingFixtures.error { try await pubnub.publish(channel: "c", message: 1) }
        #expect(error?.reason == .internalServiceError)
        #expect(scripted.requestCount == 1)
        // The same call again is the retry.
        let timetoken = try await pubnub.publish(channel: "c", message: 1)
        #expect(timetoken == 14_647_523_059_145_592)
        #expect(scripted.requestCount == 2)
    }

    @Test func serialPublishesAreSentInTheOrderTheyAreAwaited() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        for index in 0..<5 { try await pubnub.publish(channel: "ch", message: JSONValue.int(Int64(index))) }
        #expect(recorder.requests.map(\.path) == (0..<5).map { "\(base)/ch/0/\($0)" })
    }

    @Test func theTimetokenMayComeAsANumber() async throws {
        let (pubnub, _) = MessagingFixtures.recorded(body: #"[1,"Sent",15644265196692560]"#)
        #expect(try await pubnub.publish(channel: "c", message: 1) == 15_644_265_196_692_560)
    }

    @Test func completionFormsDeliverTheTimetoken() async throws {
        let (pubnub, _) = MessagingFixtures.recorded()
        let results = await withCheckedContinuation { (continuation: CheckedContinuation<[Timetoken], Never>) in
            pubnub.publish(channel: "c", message: 1) { publish in
                pubnub.fire(channel: "c", message: 1) { fire in
                    pubnub.signal(channel: "c", message: 1) { signal in
                        continuation.resume(
                            returning: [publish, fire, signal].compactMap { try? $0.get() })
                    }
                }
            }
        }
        #expect(results == [14_647_523_059_145_592, 14_647_523_059_145_592, 14_647_523_059_145_592])
    }

    @Test func theCompletionFormReportsTheTypedError() async throws {
        let (pubnub, _) = MessagingFixtures.recorded(status: 400, body: #"[0,"Message Too Large","15635079026391944"]"#)
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Timetoken, PubNubPublishError>, Never>) in
            pubnub.publish(channel: "c", message: 1) { continuation.resume(returning: $0) }
        }
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.pubNubError?.reason == .messageTooLarge)
        #expect(error.pubNubError?.statusCode == 400)
        #expect(error.category == .badRequest)
        #expect(error.statusCode == 400)
    }
}
