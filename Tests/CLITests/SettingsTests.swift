import DataSyncEmulator
import Foundation
import JSONCore
import Testing

@Suite("datasync connection settings", .timeLimit(.minutes(2)))
struct SettingsTests {
    /// The `--verbose` line of one setting: `datasync: subscribe key: X  [source]`.
    static func line(_ name: String, in stderr: String) -> String? {
        stderr.split(separator: "\n").map(String.init).first { $0.hasPrefix("datasync: \(name): ") }
    }

    @Test("flags win over environment variables, which win over the config file")
    func precedence() async throws {
        try await withEmulator { live in
            let config = live.home.appendingPathComponent("cli.json")
            try Data(
                #"{"origin":"127.0.0.1:9","subscribeKey":"from-file","userId":"file-user","publishKey":"demo","insecureHTTP":true}"#
                    .utf8
            ).write(to: config)
            var environment = CLIEnvironment.clean(home: live.home)
            environment["DATASYNC_CONFIG"] = config.path
            environment["DATASYNC_ORIGIN"] = live.origin
            environment["DATASYNC_USER_ID"] = "env-user"

            // origin from the environment, subscribe key and plain HTTP from the file.
            let fromFile = try await live.run(["users", "list", "-v"], environment: environment)
            #expect(fromFile.status == 0, "\(fromFile)")
            #expect(
                Self.line("origin", in: fromFile.stderr)
                    == "datasync: origin: http://\(live.origin)  [environment DATASYNC_ORIGIN]")
            #expect(
                Self.line("subscribe key", in: fromFile.stderr)?.contains(
                    "from-file  [config file \(config.path) (subscribeKey)]") == true, "\(fromFile)")
            #expect(
                Self.line("user id", in: fromFile.stderr)
                    == "datasync: user id: env-user  [environment DATASYNC_USER_ID]")
            #expect(Self.line("plain HTTP", in: fromFile.stderr)?.contains("insecureHTTP") == true, "\(fromFile)")
            #expect(fromFile.stderr.contains("/v1/datasync/subkeys/from-file/users"))

            environment["DATASYNC_SUBSCRIBE_KEY"] = "from-env"
            let fromEnvironment = try await live.run(["users", "list", "-v"], environment: environment)
            #expect(fromEnvironment.stderr.contains("/v1/datasync/subkeys/from-env/users"), "\(fromEnvironment)")

            let fromFlag = try await live.run(
                ["users", "list", "-v", "--subscribe-key", "from-flag", "--user-id", "flag-user"],
                environment: environment)
            #expect(fromFlag.stderr.contains("/v1/datasync/subkeys/from-flag/users"), "\(fromFlag)")
            #expect(Self.line("user id", in: fromFlag.stderr) == "datasync: user id: flag-user  [flag --user-id]")
            #expect(fromFlag.stderr.contains("uuid=flag-user"))

            // The origin in http:// form decides the scheme by itself.
            environment["DATASYNC_ORIGIN"] = live.url.absoluteString
            let scheme = try await live.run(["time"], environment: environment)
            #expect(scheme.status == 0, "\(scheme)")
        }
    }

    @Test("the config file: the default path, and mistakes in it are usage errors")
    func configFile() async throws {
        try await withEmulator { live in
            let directory = live.home.appendingPathComponent("config/datasync")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("config.json")
            try Data(#"{"origin":"http://\#(live.origin)","subscribeKey":"demo"}"#.utf8).write(to: file)
            let environment = CLIEnvironment.clean(home: live.home)
            let viaDefault = try await live.run(["time"], environment: environment)
            #expect(viaDefault.status == 0, "\(viaDefault)")

            try Data(#"{"origin":"127.0.0.1:1","subscribeKye":"demo"}"#.utf8).write(to: file)
            let typo = try await live.run(["time"], environment: environment)
            #expect(typo.status == 2)
            #expect(typo.stderr.contains(#"unknown key "subscribeKye" in config file"#), "\(typo)")
            #expect(typo.stderr.contains("did you mean 'subscribeKey'?"), "\(typo)")

            try Data("not json".utf8).write(to: file)
            let broken = try await live.run(["time"], environment: environment)
            #expect(broken.status == 2)
            #expect(broken.stderr.contains("is not valid JSON"), "\(broken)")
            try FileManager.default.removeItem(at: file)

            let missing = try await live.run(["time", "--config", live.home.appendingPathComponent("nope.json").path])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("does not exist"))

            let badFlag = try await live.run(
                ["time"], environment: live.environment(extra: ["DATASYNC_INSECURE_HTTP": "maybe"]))
            #expect(badFlag.status == 2)
            #expect(badFlag.stderr.contains("DATASYNC_INSECURE_HTTP must be 1, true, yes, 0, false or no"))
            let badOrigin = try await live.run(["time", "--origin", "host:99999"])
            #expect(badOrigin.status == 2)
            #expect(badOrigin.stderr.contains("invalid origin 'host:99999' (flag --origin)"), "\(badOrigin)")
        }
    }

    @Test("the token is sent but never printed: not with --verbose, not in errors")
    func tokenNeverPrinted() async throws {
        // Access control on: a made-up token is refused with 403.
        try await withEmulator(protectedDemoEmulator) { live in
            let token = "qEF2AkF0GmZZZZZZsecret-token-value"
            let runs = [
                try await live.run(["users", "get", "alice", "--verbose", "--token", token]),
                try await live.run(["users", "list", "-v", "--token=\(token)"]),
                try await live.run(
                    ["publish", "room", "1", "--verbose"],
                    environment: live.environment(extra: ["DATASYNC_TOKEN": token])),
                try await live.run(
                    ["time", "--verbose", "--origin", "127.0.0.1:1"],
                    environment: live.environment(extra: ["DATASYNC_TOKEN": token])),
                try await live.run(["users", "lst", "--token", token]),
            ]
            for result in runs {
                #expect(!result.stdout.contains(token) && !result.stderr.contains(token), "\(result)")
            }
            #expect(runs[0].status == 1, "\(runs[0])")
            #expect(runs[0].stderr.contains("HTTP 403") || runs[0].stderr.contains("HTTP 401"), "\(runs[0])")
            #expect(runs[0].stderr.contains("auth=REDACTED"), "\(runs[0])")
            #expect(runs[0].stderr.contains("token: (set, not shown)  [flag --token]"), "\(runs[0])")
            #expect(runs[2].stderr.contains("token: (set, not shown)  [environment DATASYNC_TOKEN]"), "\(runs[2])")
            #expect(runs[3].status == 1, "\(runs[3])")
            #expect(runs[4].status == 2)
        }
    }
}
