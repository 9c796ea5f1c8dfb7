import DataSyncEmulator
import Foundation
import JSONCore
import Testing

@Suite("datasync grant and token parse, against an emulator with access control on", .timeLimit(.minutes(2)))
struct TokenCommandTests {
    static let protected = EmulatorConfiguration(
        pubSub: PubSubConfiguration(
            keysets: [PubSubKeyset.protected(publishKey: "demo", subscribeKey: "demo", secretKey: "s3cret")]))

    @Test("a granted token lets the CLI publish where it allows; token parse shows what it grants")
    func grantThenUse() async throws {
        try await withEmulator(Self.protected) { live in
            let environment = live.environment(extra: ["DATASYNC_SECRET_KEY": "s3cret", "DATASYNC_USER_ID": "ada"])
            let grant = try await live.run(
                [
                    "grant", "--authorized-user-id", "ada", "--ttl", "15", "--resource", "channels=room-1=rw",
                    "--pattern", "channels=^team-.*=r", "--compact",
                ], environment: environment)
            try #require(grant.status == 0, "\(grant)")
            #expect(!grant.stderr.contains("s3cret"), "\(grant)")
            let token = try #require(try grant.json()["token"]?.stringValue, "\(grant)")

            let refused = try await live.run(["publish", "room-1", "1"], environment: environment)
            #expect(refused.status == 1, "\(refused)")
            let allowed = try await live.run(["publish", "room-1", "1", "--token", token], environment: environment)
            #expect(allowed.status == 0, "\(allowed)")
            let elsewhere = try await live.run(["publish", "room-2", "1", "--token", token], environment: environment)
            #expect(elsewhere.status == 1, "\(elsewhere)")

            let parsed = try await live.run(["token", "parse", token, "--compact"])
            try #require(parsed.status == 0, "\(parsed)")
            let json = try parsed.json()
            #expect(json["authorizedUserId"] == "ada", "\(parsed)")
            #expect(json["ttlMinutes"] == 15, "\(parsed)")
            #expect(json["resources"]?["chan"]?["room-1"]?.stringValue?.contains("read") == true, "\(parsed)")
            #expect(json["patterns"]?["chan"]?["^team-.*"] != nil, "\(parsed)")
            // From standard input and from the --token setting.
            let piped = try await live.run(["token", "parse", "-", "--compact"], stdin: token + "\n")
            #expect(try piped.json() == json, "\(piped)")
            let setting = try await live.run(
                ["token", "parse", "--compact"], environment: live.environment(extra: ["DATASYNC_TOKEN": token]))
            #expect(try setting.json() == json, "\(setting)")
        }
    }

    @Test("grant mistakes are usage errors; a wrong secret is refused by the service (exit 1)")
    func mistakes() async throws {
        try await withEmulator(Self.protected) { live in
            let base = live.environment()
            for (arguments, message) in [
                (["grant", "--resource", "channels=a=r"], "grant needs the keyset's secret key"),
                (["grant", "--secret-key", "some-secret"], "grant needs at least one --resource or --pattern"),
                (
                    ["grant", "--secret-key", "some-secret", "--resource", "channels-a-r"],
                    "--resource takes BUCKET=NAME=PERMS"
                ),
                (
                    ["grant", "--secret-key", "some-secret", "--resource", "channels=a=rx"],
                    "PERMS are letters of rwmdcguj"
                ),
                (["token", "parse", "not-a-token"], "not a token"),
                (["token", "parse"], "no token"),
            ] {
                let result = try await live.run(arguments, environment: base)
                #expect(result.status == 2, "\(arguments): \(result)")
                #expect(result.stderr.contains(message), "\(arguments): \(result)")
            }
            let wrong = try await live.run(
                ["grant", "--secret-key", "wrong", "--resource", "channels=a=r"], environment: base)
            #expect(wrong.status == 1, "\(wrong)")
            #expect(wrong.stderr.contains("the grant was refused"), "\(wrong)")
            #expect(!wrong.stderr.contains("wrong\""), "\(wrong)")
        }
    }
}
