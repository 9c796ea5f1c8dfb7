import JSONCore
import Testing

@testable import DataSyncEmulator

/// The device paths and the listing the push tests share.
enum PushTargets {
    static let fcm = "/v1/push/sub-key/demo/devices/fcm-token-1"
    static let apns2 = "/v2/push/sub-key/demo/devices-apns2/a1b2c3d4"

    /// The channels `target` (a device path) lists, or nil when the answer is not a list.
    static func list(_ client: PubSubClient, _ target: String) async -> [String]? {
        await client.send(target).json?.arrayValue?.compactMap(\.stringValue)
    }
}

/// The push registration routes (`/v1/push`, `/v2/push`) as the SDKs call them.
@Suite struct PushTests {
    @Test func channelsAreAddedListedRemovedAndTheDeviceForgotten() async throws {
        let client = try PubSubClient()
        let added = await client.send(PushTargets.fcm + "?type=fcm&add=news,sport&uuid=u")
        #expect(added.status == 200 && added.json == [1, "Modified Channels"])
        _ = await client.send(PushTargets.fcm + "?type=fcm&add=alerts")
        #expect(await PushTargets.list(client, PushTargets.fcm + "?type=fcm") == ["alerts", "news", "sport"])
        #expect(await PushTargets.list(client, PushTargets.fcm + "?type=fcm&count=2") == ["alerts", "news"])
        // The same token under another gateway is another registration.
        #expect(await PushTargets.list(client, PushTargets.fcm + "?type=gcm") == [])
        let removed = await client.send(PushTargets.fcm + "?type=fcm&remove=news")
        #expect(removed.json == [1, "Modified Channels"])
        #expect(await PushTargets.list(client, PushTargets.fcm + "?type=fcm") == ["alerts", "sport"])
        // One call may add and remove, as the Swift SDK sends it.
        _ = await client.send(PushTargets.fcm + "?type=fcm&add=weather&remove=alerts")
        #expect(await PushTargets.list(client, PushTargets.fcm + "?type=fcm") == ["sport", "weather"])
        let gone = await client.send(PushTargets.fcm + "/remove?type=fcm")
        #expect(gone.status == 200 && gone.json == [1, "Removed Device"])
        #expect(await PushTargets.list(client, PushTargets.fcm + "?type=fcm") == [])
    }

    @Test func apns2RegistrationsArePerTopicAndEnvironment() async throws {
        let client = try PubSubClient()
        _ = await client.send(PushTargets.apns2 + "?topic=com.example.app&add=a")
        _ = await client.send(PushTargets.apns2 + "?topic=com.example.app&environment=production&add=b")
        _ = await client.send(PushTargets.apns2 + "?topic=com.example.other&environment=development&add=c")
        // No environment means development, as the SDKs default it.
        #expect(
            await PushTargets.list(client, PushTargets.apns2 + "?topic=com.example.app&environment=development") == [
                "a"
            ])
        #expect(
            await PushTargets.list(client, PushTargets.apns2 + "?topic=com.example.app&environment=production") == ["b"]
        )
        #expect(await PushTargets.list(client, PushTargets.apns2 + "?topic=com.example.other&type=apns2") == ["c"])
        _ = await client.send(PushTargets.apns2 + "/remove?topic=com.example.app&environment=production")
        #expect(
            await PushTargets.list(client, PushTargets.apns2 + "?topic=com.example.app&environment=production") == [])
        #expect(await PushTargets.list(client, PushTargets.apns2 + "?topic=com.example.app") == ["a"])
        // An APNs (v1) registration of the same token is yet another one.
        #expect(await PushTargets.list(client, "/v1/push/sub-key/demo/devices/a1b2c3d4?type=apns") == [])
    }

    @Test(arguments: [
        ("/v1/push/sub-key/demo/devices/t1?add=a", "Missing type"),
        ("/v1/push/sub-key/demo/devices/t1?type=apns2&add=a", "Invalid type"),
        ("/v1/push/sub-key/demo/devices/t1?type=fcm&add=", "Missing channels"),
        ("/v1/push/sub-key/demo/devices/bad%20token?type=fcm&add=a", "Invalid device token"),
        ("/v1/push/sub-key/demo/devices/bad%2Ftoken?type=fcm", "Invalid device token"),
        ("/v2/push/sub-key/demo/devices-apns2/t1?add=a", "Missing topic"),
        ("/v2/push/sub-key/demo/devices-apns2/t1?topic=&add=a", "Missing topic"),
        ("/v2/push/sub-key/demo/devices-apns2/t1?topic=app&environment=staging&add=a", "Invalid environment"),
    ])
    func badRequestsAreRefusedWithThePushErrorBody(target: String, text: String) async throws {
        let client = try PubSubClient()
        let reply = await client.send(target)
        #expect(reply.status == 400)
        let message = try #require(reply.json?["error"]?.stringValue, "\(reply.text)")
        #expect(message.hasPrefix(text), "\(message)")
        #expect(await PushTargets.list(client, "/v1/push/sub-key/demo/devices/t1?type=fcm") == [])
    }

    @Test func unknownRoutesKeysAndMethodsAreRefused() async throws {
        let client = try PubSubClient()
        #expect(await client.send("/v1/push/sub-key/nope/devices/t1?type=fcm").status == 400)
        #expect(await client.send("/v1/push/sub-key/demo/devices-apns2/t1?type=fcm").status == 404)
        #expect(await client.send("/v1/push/sub-key/demo/devices/t1/other?type=fcm").status == 404)
        #expect(await client.send("POST", "/v1/push/sub-key/demo/devices/t1?type=fcm").status == 405)
        let long = String(repeating: "a", count: PushService.tokenLimit + 1)
        #expect(await client.send("/v1/push/sub-key/demo/devices/\(long)?type=fcm").status == 400)
    }

    @Test func aRegistrationHoldsAtMostAThousandChannelsAndNothingChangesPastIt() async throws {
        let client = try PubSubClient()
        let names = (0..<PushService.channelLimit).map { "c\($0)" }
        #expect(await client.send(PushTargets.fcm + "?type=fcm&add=" + names.joined(separator: ",")).status == 200)
        let over = await client.send(PushTargets.fcm + "?type=fcm&add=one-more")
        #expect(over.status == 400)
        #expect(over.json?["error"]?.stringValue?.hasPrefix("Too many channels") == true)
        #expect(await PushTargets.list(client, PushTargets.fcm + "?type=fcm")?.count == PushService.channelLimit)
        // Swapping one channel for another keeps the count and is allowed.
        #expect(await client.send(PushTargets.fcm + "?type=fcm&add=one-more&remove=c0").status == 200)
    }

    @Test func aKeysetHoldsAtMostItsRegistrationLimit() async throws {
        let client = try PubSubClient(pubSub: PubSubConfiguration(maximumPushRegistrations: 2))
        #expect(await client.send("/v1/push/sub-key/demo/devices/t1?type=fcm&add=a").status == 200)
        #expect(await client.send("/v1/push/sub-key/demo/devices/t2?type=fcm&add=a").status == 200)
        let third = await client.send("/v1/push/sub-key/demo/devices/t3?type=fcm&add=a")
        #expect(third.status == 400)
        #expect(third.json?["error"]?.stringValue?.hasPrefix("Too many devices") == true)
        // A device already registered may still change; a removed one frees its place.
        #expect(await client.send("/v1/push/sub-key/demo/devices/t1?type=fcm&add=b").status == 200)
        _ = await client.send("/v1/push/sub-key/demo/devices/t2/remove?type=fcm")
        #expect(await client.send("/v1/push/sub-key/demo/devices/t3?type=fcm&add=a").status == 200)
    }

    @Test func theAdminRouteListsRegistrationsAndAResetDropsThem() async throws {
        let client = try PubSubClient()
        _ = await client.send(PushTargets.fcm + "?type=fcm&add=b,a")
        _ = await client.send(PushTargets.apns2 + "?topic=com.example.app&environment=production&add=c")
        let admin = await client.send("/_emulator/v1/keysets/demo/push")
        #expect(admin.status == 200)
        #expect(admin.json?["notificationsSent"] == false)
        let registrations = try #require(admin.json?["registrations"]?.arrayValue)
        #expect(
            registrations == [
                [
                    "type": "apns2", "token": "a1b2c3d4", "topic": "com.example.app", "environment": "production",
                    "channels": ["c"],
                ],
                ["type": "fcm", "token": "fcm-token-1", "channels": ["a", "b"]],
            ])
        _ = await client.send("POST", "/_emulator/v1/keysets/demo/reset")
        #expect(await client.send("/_emulator/v1/keysets/demo/push").json?["registrations"] == [])
        #expect(await PushTargets.list(client, PushTargets.fcm + "?type=fcm") == [])
    }
}
