import DataSyncTestSupport
import JSONCore
import Messaging
import Testing
import Transport

@Suite("Push payload helper")
struct PushPayloadTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var payload: PubNubPushPayload
        var expected: JSONValue
    }

    static let cases: [Case] = [
        Case(description: "empty", payload: PubNubPushPayload(), expected: [:]),
        Case(
            description: "APNs alert, badge, sound",
            payload: PubNubPushPayload().apns(title: "T", body: "B", badge: 2, sound: "default"),
            expected: ["pn_apns": ["aps": ["alert": ["title": "T", "body": "B"], "badge": 2, "sound": "default"]]]),
        Case(
            description: "APNs background update",
            payload: PubNubPushPayload().apns(contentAvailable: true),
            expected: ["pn_apns": ["aps": ["content-available": 1]]]),
        Case(
            description: "APNs extra aps keys and custom data",
            payload: PubNubPushPayload().apns(body: "B", extra: ["category": "INVITE"]).apnsData(["orderId": "o-1"]),
            expected: ["pn_apns": ["aps": ["alert": ["body": "B"], "category": "INVITE"], "orderId": "o-1"]]),
        Case(
            description: "APNs2 targets",
            payload: PubNubPushPayload().apns(title: "T").apns2(topic: "com.example.app")
                .apns2(topic: "com.example.app", environment: .production),
            expected: [
                "pn_apns": [
                    "aps": ["alert": ["title": "T"]],
                    "pn_push": [
                        [
                            "push_type": "apns2", "auth_method": "token", "version": "v2",
                            "targets": [["environment": "development", "topic": "com.example.app"]],
                        ],
                        [
                            "push_type": "apns2", "auth_method": "token", "version": "v2",
                            "targets": [["environment": "production", "topic": "com.example.app"]],
                        ],
                    ],
                ]
            ]),
        Case(
            description: "FCM notification and data",
            payload: PubNubPushPayload().fcm(title: "T", body: "B", data: ["id": "7"]),
            expected: ["pn_fcm": ["notification": ["title": "T", "body": "B"], "data": ["id": "7"]]]),
        Case(
            description: "FCM extra keys",
            payload: PubNubPushPayload().fcm(data: ["id": "7"], extra: ["android": ["priority": "high"]]),
            expected: ["pn_fcm": ["data": ["id": "7"], "android": ["priority": "high"]]]),
        Case(
            description: "both",
            payload: PubNubPushPayload().apns(badge: 1).fcm(body: "B"),
            expected: ["pn_apns": ["aps": ["badge": 1]], "pn_fcm": ["notification": ["body": "B"]]]),
    ]

    @Test(arguments: cases)
    func producedJSON(_ test: Case) {
        #expect(test.payload.jsonValue == test.expected)
        #expect(test.payload.isEmpty == (test.expected == [:]))
    }

    @Test(
        "Merging into a message",
        arguments: [
            (nil, ["pn_fcm": ["notification": ["body": "B"]]]),
            (["text": "hi"], ["text": "hi", "pn_fcm": ["notification": ["body": "B"]]]),
            (["pn_fcm": "old", "x": 1], ["pn_fcm": ["notification": ["body": "B"]], "x": 1]),
            ("hi", ["pn_other": "hi", "pn_fcm": ["notification": ["body": "B"]]]),
            ([1, 2], ["pn_other": [1, 2], "pn_fcm": ["notification": ["body": "B"]]]),
        ] as [(JSONValue?, JSONValue)])
    func merging(message: JSONValue?, expected: JSONValue) {
        #expect(PubNubPushPayload().fcm(body: "B").merged(into: message) == expected)
    }

    @Test func publishSendsTheMergedMessage() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        try await pubnub.publish(
            channel: "c", message: ["text": "shipped"], payloads: PubNubPushPayload().apns(badge: 3))
        let segment = try #require(recorder.lastRequest?.path.split(separator: "/").last)
        let text = try #require(MessagingFixtures.percentDecoded(String(segment)))
        #expect(try JSONValue(parsing: text) == ["text": "shipped", "pn_apns": ["aps": ["badge": 3]]])
    }
}
