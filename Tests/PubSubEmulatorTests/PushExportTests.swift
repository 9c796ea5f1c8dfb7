import JSONCore
import Testing

@testable import DataSyncEmulator

/// Mobile push registrations in the admin export and import (issue 33: "the console and the
/// admin export show them"), and a start-up seed that names them.
@Suite struct PushExportTests {
    @Test func exportHoldsTheRegistrationsAndImportRestoresThem() async throws {
        let source = try PubSubClient()
        _ = await source.send(PushTargets.fcm + "?type=fcm&add=news,sport")
        _ = await source.send(PushTargets.apns2 + "?topic=com.example.app&environment=production&add=orders")
        let exported = await source.send("/_emulator/v1/export")
        #expect(exported.status == 200, "\(exported.text)")
        let registrations = try #require(exported.json?["keysets"]?["demo"]?["pushRegistrations"]?.arrayValue)
        #expect(
            registrations == [
                [
                    "type": "apns2", "token": "a1b2c3d4", "topic": "com.example.app", "environment": "production",
                    "channels": ["orders"],
                ],
                ["type": "fcm", "token": "fcm-token-1", "channels": ["news", "sport"]],
            ])

        let target = try PubSubClient()
        _ = await target.send(PushTargets.fcm + "?type=gcm&add=stale")
        let imported = await target.send("POST", "/_emulator/v1/import", body: Array(exported.body))
        #expect(imported.status == 200, "\(imported.text)")
        #expect(imported.json?["keysets"]?["demo"]?["pushRegistrations"] == 2, "\(imported.text)")
        #expect(await PushTargets.list(target, PushTargets.fcm + "?type=fcm") == ["news", "sport"])
        #expect(
            await PushTargets.list(target, PushTargets.apns2 + "?topic=com.example.app&environment=production") == [
                "orders"
            ])
        // An import replaces the keyset, registrations included.
        #expect(await PushTargets.list(target, PushTargets.fcm + "?type=gcm") == [])
    }

    @Test func aBadRegistrationRefusesTheImportAndChangesNothing() async throws {
        let client = try PubSubClient()
        _ = await client.send(PushTargets.fcm + "?type=fcm&add=kept")
        for registration: JSONValue in [
            ["type": "fcm", "token": "t", "channels": []],
            ["type": "telegraph", "token": "t", "channels": ["a"]],
            ["type": "apns2", "token": "t", "channels": ["a"]],
            ["type": "fcm", "token": "bad token", "channels": ["a"]],
            ["type": "fcm", "token": "a%41", "channels": ["a"]],
            ["type": "fcm", "channels": ["a"]],
        ] {
            let document: JSONValue = ["keysets": ["demo": ["pushRegistrations": [registration]]]]
            let reply = await client.send("POST", "/_emulator/v1/import", body: try document.jsonBytes())
            #expect(reply.status == 400, "\(registration): \(reply.text)")
            #expect(reply.text.contains("pushRegistrations/0"), "\(reply.text)")
            #expect(await PushTargets.list(client, PushTargets.fcm + "?type=fcm") == ["kept"])
        }
    }

    @Test func aStartUpSeedRefusesRegistrationsWithAClearMessage() throws {
        let seed: JSONValue = [
            "keysets": ["demo": ["pushRegistrations": [["type": "fcm", "token": "t", "channels": ["a"]]]]]
        ]
        #expect {
            _ = try Emulator(configuration: EmulatorConfiguration(seed: seed))
        } throws: { error in
            (error as? EmulatorError)?.message.contains("restored by the admin import") == true
        }
    }
}
