import DataSyncTestSupport
import JSONCore
import Messaging
import Testing
import Transport

@Suite("Error answers of pub/sub, presence and channel groups (§8)")
struct MessagingErrorTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var status: Int
        var body: String
        var reason: PubNubError.Reason
        var message: String
        var details: [String] = []
    }

    static let cases: [Case] = [
        Case(
            description: "publish array, too large", status: 400, body: #"[0,"Message Too Large","15635079026391944"]"#,
            reason: .messageTooLarge, message: "Message Too Large", details: ["Message Too Large"]),
        Case(
            description: "signal array, too large", status: 400,
            body: #"[0,"Signal size too large","15910331991263359"]"#, reason: .signalTooLarge,
            message: "Signal size too large", details: ["Signal size too large"]),
        Case(
            description: "invalid key", status: 400, body: #"[0,"Invalid Key","15635079026391944"]"#,
            reason: .invalidKey, message: "Invalid Key", details: ["Invalid Key"]),
        Case(
            description: "invalid JSON", status: 400, body: #"[0,"Invalid JSON","15646801805496402"]"#,
            reason: .invalidJSON, message: "Invalid JSON", details: ["Invalid JSON"]),
        Case(
            description: "two-element array, unknown text", status: 400, body: #"[0,"Something else"]"#,
            reason: .badRequest, message: "Something else", details: ["Something else"]),
        Case(
            description: "414 balancer object", status: 414,
            body: #"{"message":"Request URI Too Long","error":true,"service":"Balancer","status":414}"#,
            reason: .requestURITooLong, message: "Request URI Too Long", details: ["Request URI Too Long"]),
        Case(
            description: "403 Access Manager with channels and groups", status: 403,
            body:
                #"{"message":"Forbidden","payload":{"channels":["ch1"],"channel-groups":[":cg1"]},"error":true,"service":"Access Manager","status":403}"#,
            reason: .forbidden, message: "Forbidden",
            details: ["Forbidden", "channel ch1 (at channels)", "channel group cg1 (at channel-groups)"]),
        Case(
            description: "invalid subscribe key object", status: 400,
            body: #"{"message":"Invalid Subscribe Key","error":true,"service":"Access Manager","status":400}"#,
            reason: .invalidKey, message: "Invalid Subscribe Key", details: ["Invalid Subscribe Key"]),
        Case(
            description: "channel group count", status: 400,
            body:
                #"{"status":400,"message":"Maximum channel group count exceeded.","service":"channel-registry","error":true}"#,
            reason: .channelGroupLimitExceeded, message: "Maximum channel group count exceeded.",
            details: ["Maximum channel group count exceeded."]),
        Case(
            description: "reserved character", status: 400,
            body:
                #"{"status":400,"message":"Reserved character in input parameters.","service":"channel-registry","error":true}"#,
            reason: .reservedCharacter, message: "Reserved character in input parameters.",
            details: ["Reserved character in input parameters."]),
        Case(
            description: "presence error with error: 1", status: 400,
            body: #"{"status":400,"error":1,"message":"No state specified.","service":"Presence"}"#,
            reason: .badRequest, message: "No state specified.", details: ["No state specified."]),
        Case(
            description: "new service object with details", status: 400,
            body:
                #"{"status":400,"error":{"message":"Invalid request.","source":"objects","details":[{"message":"bad id","location":"id","locationType":"path"}]}}"#,
            reason: .badRequest, message: "Invalid request.", details: ["bad id (at id)"]),
        Case(
            description: "bare error text", status: 400, body: #"{"error":"Push not enabled"}"#, reason: .badRequest,
            message: "Push not enabled", details: ["Push not enabled"]),
        Case(
            description: "error_message", status: 403, body: #"{"status":403,"error":true,"error_message":"Denied"}"#,
            reason: .forbidden, message: "Denied", details: ["Denied"]),
        Case(
            description: "non-JSON body", status: 502, body: "<html>Bad Gateway</html>", reason: .badGateway,
            message: "<html>Bad Gateway</html>"),
        Case(
            description: "empty 503", status: 503, body: "", reason: .serviceUnavailable,
            message: "the service answered HTTP 503"),
    ]

    @Test(arguments: cases)
    func publishMapsTheBody(_ test: Case) async throws {
        let (pubnub, _) = MessagingFixtures.recorded(status: test.status, body: test.body)
        let error = try #require(
            await MessagingFixtures.error { try await pubnub.publish(channel: "ch", message: "hi") })
        #expect(error.reason == test.reason)
        #expect(error.statusCode == test.status)
        #expect(error.message == test.message)
        #expect(error.details.map(\.description) == test.details)
    }

    @Test(arguments: cases.filter { $0.body.hasPrefix("{") })
    func channelGroupCallsMapTheBody(_ test: Case) async throws {
        let (pubnub, _) = MessagingFixtures.recorded(status: test.status, body: test.body)
        let error = try #require(await MessagingFixtures.error { try await pubnub.add(channels: ["a"], to: "g") })
        #expect(error.reason == test.reason)
        #expect(error.message == test.message)
    }

    @Test func aPublishArrayWithZeroUnder200IsAnError() async throws {
        let (pubnub, _) = MessagingFixtures.recorded(status: 200, body: #"[0,"Message Too Large","1"]"#)
        let error = await MessagingFixtures.error { try await pubnub.publish(channel: "ch", message: "hi") }
        #expect(error?.reason == .messageTooLarge)
    }

    @Test func anErrorFlagUnder200IsAnError() async throws {
        let (pubnub, _) = MessagingFixtures.recorded(
            status: 200, body: #"{"status":400,"message":"Reserved character in input parameters.","error":true}"#)
        let error = await MessagingFixtures.error { try await pubnub.add(channels: ["a"], to: "g") }
        #expect(error?.reason == .reservedCharacter)
        #expect(error?.statusCode == 400)
    }

    @Test(
        "Malformed successes",
        arguments: [#"{"a":1}"#, "[1,\"Sent\"]", "[1,\"Sent\",\"abc\"]", "not json", "[1,\"Sent\",-5]"])
    func malformedPublishAnswers(body: String) async throws {
        let (pubnub, _) = MessagingFixtures.recorded(status: 200, body: body)
        let error = await MessagingFixtures.error { try await pubnub.publish(channel: "ch", message: "hi") }
        #expect(error?.reason == .malformedResponse)
    }
}
