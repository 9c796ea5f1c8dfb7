import DataSyncEmulator
import Foundation
import JSONCore
import Testing

/// The console's token helper routes (`/_emulator/v1/keysets/{sub}/tokens` and `…/tokens/parse`):
/// they mint with the keyset's secret key on the emulator's clock, read a token back, and never
/// answer with the secret key.
@Suite("Admin token routes")
struct AdminTokenRouteTests {
    static let secretKey = "sec-c-very-secret-value"

    private static func emulator() throws -> Emulator {
        try Emulator(
            configuration: EmulatorConfiguration(
                startTime: Date(timeIntervalSince1970: 1_800_000_000),
                pubSub: PubSubConfiguration(keysets: [
                    .protected(publishKey: "pub", subscribeKey: "sub", secretKey: secretKey),
                    PubSubKeyset(publishKey: "pub2", subscribeKey: "other", secretKey: "other-secret"),
                ])))
    }

    private static func post(_ emulator: Emulator, _ path: String, _ body: JSONValue) async throws -> (
        status: Int, json: JSONValue, text: String
    ) {
        let response = await emulator.respond(
            to: ServerRequest(
                method: "POST", target: "/_emulator/v1" + path,
                headers: [
                    (name: "Authorization", value: "Bearer " + emulator.adminSecret),
                    (name: "Content-Type", value: "application/json"),
                ],
                body: try body.jsonBytes()))
        let text = String(decoding: response.body, as: UTF8.self)
        return (response.status, (try? JSONValue(parsing: response.body)) ?? .null, text)
    }

    @Test("a minted token is signed with the keyset's secret key, and the answer never holds the key")
    func mintSignsWithTheSecretKey() async throws {
        let emulator = try Self.emulator()
        let minted = try await Self.post(
            emulator, "/keysets/sub/tokens",
            [
                "ttl": 15,
                "permissions": [
                    "resources": ["channels": ["lobby": 3]], "patterns": ["uuids": [".*": 32]], "uuid": "alice",
                ],
            ])
        #expect(minted.status == 201, "\(minted.text)")
        #expect(!minted.text.contains(Self.secretKey))
        let token = try #require(minted.json["token"]?.stringValue)
        #expect(minted.json["ttlMinutes"] == 15)
        #expect(minted.json["expiresAt"] == "2027-01-15T08:15:00Z")
        // The publish route takes it on the protected keyset: it is this keyset's token.
        let publish = await emulator.respond(
            to: ServerRequest(method: "GET", target: "/publish/pub/sub/0/lobby/0/%22hi%22?uuid=alice&auth=\(token)"))
        #expect(publish.status == 200, "\(String(decoding: publish.body, as: UTF8.self))")

        let parsed = try await Self.post(emulator, "/keysets/sub/tokens/parse", ["token": .string(token)])
        #expect(parsed.status == 200)
        #expect(!parsed.text.contains(Self.secretKey))
        #expect(parsed.json["signedByThisKeyset"] == true)
        #expect(parsed.json["expired"] == false)
        #expect(parsed.json["revoked"] == false)
        #expect(parsed.json["authorizedUserId"] == "alice")
        #expect(parsed.json["resources"] == ["chan": ["lobby": "rw"]])
        #expect(parsed.json["patterns"] == ["uuid": [".*": "g"]])
        #expect(parsed.json["issuedAt"] == "2027-01-15T08:00:00Z")

        // Read on another keyset it parses, but that keyset did not sign it.
        let elsewhere = try await Self.post(emulator, "/keysets/other/tokens/parse", ["token": .string(token)])
        #expect(elsewhere.json["signedByThisKeyset"] == false)
        #expect(elsewhere.json["resources"] == ["chan": ["lobby": "rw"]])

        // The emulator's clock decides expiry.
        await emulator.advanceTime(bySeconds: 16 * 60)
        let later = try await Self.post(emulator, "/keysets/sub/tokens/parse", ["token": .string(token)])
        #expect(later.json["expired"] == true)
    }

    @Test("bad grants, bad tokens and keysets without a secret key get a clear 4xx")
    func refusals() async throws {
        let emulator = try Self.emulator()
        let noPermissions = try await Self.post(emulator, "/keysets/sub/tokens", ["ttl": 5, "permissions": [:]])
        #expect(noPermissions.status == 400)
        #expect(noPermissions.text.contains("At least one resource or pattern"))
        let badTTL = try await Self.post(
            emulator, "/keysets/sub/tokens", ["ttl": 0, "permissions": ["resources": ["channels": ["a": 1]]]])
        #expect(badTTL.status == 400)
        #expect(badTTL.text.contains("ttl"))
        let unknown = try await Self.post(
            emulator, "/keysets/nope/tokens", ["ttl": 5, "permissions": ["resources": ["channels": ["a": 1]]]])
        #expect(unknown.status == 404)
        #expect(unknown.text.contains("no pub/sub service"))
        let garbage = try await Self.post(emulator, "/keysets/sub/tokens/parse", ["token": "not a token"])
        #expect(garbage.status == 400)
        #expect(garbage.text.contains("not a token"))
        let noToken = try await Self.post(emulator, "/keysets/sub/tokens/parse", ["nope": 1])
        #expect(noToken.status == 400)
        let get = await emulator.respond(
            to: ServerRequest(
                method: "GET", target: "/_emulator/v1/keysets/sub/tokens",
                headers: [(name: "Authorization", value: "Bearer " + emulator.adminSecret)]))
        #expect(get.status == 405)
    }

    @Test("without the admin secret the token routes refuse, as every admin route does")
    func needsTheAdminSecret() async throws {
        let emulator = try Self.emulator()
        let response = await emulator.respond(
            to: ServerRequest(
                method: "POST", target: "/_emulator/v1/keysets/sub/tokens",
                body: Array(#"{"ttl":5,"permissions":{"resources":{"channels":{"a":1}}}}"#.utf8)))
        #expect(response.status == 401)
        #expect(!String(decoding: response.body, as: UTF8.self).contains(Self.secretKey))
    }
}
