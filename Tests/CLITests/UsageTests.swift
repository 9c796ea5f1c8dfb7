import ArgumentParsing
import Foundation
import Testing

@testable import datasync_cli

@Suite("datasync: bad arguments and --help", .timeLimit(.minutes(3)))
struct UsageTests {
    /// Every command path of the tree: `["users"]`, `["users", "create"]`, ….
    static let commandPaths: [[String]] = {
        var paths: [[String]] = [[]]
        func walk(_ command: Command<CommandAction>, _ path: [String]) {
            for child in command.subcommands {
                paths.append(path + [child.name])
                walk(child, path + [child.name])
            }
        }
        walk(DataSyncCLI.rootCommand(), [])
        return paths
    }()

    @Test("--help on every command exits 0 and prints its usage on stdout")
    func helpEverywhere() async throws {
        #expect(Self.commandPaths.count > 40)
        for path in Self.commandPaths {
            let result = try await CLIEnvironment.run(path + ["--help"])
            #expect(result.status == 0, "\(path): \(result)")
            let name = (["datasync"] + path).joined(separator: " ")
            #expect(result.stdout.hasPrefix(name + ": "), "\(path): \(result)")
            #expect(result.stdout.contains("usage: " + name), "\(path): \(result)")
            #expect(result.stderr.isEmpty, "\(path): \(result)")
        }
        // `-h`, and `help COMMAND…`.
        let short = try await CLIEnvironment.run(["users", "list", "-h"])
        #expect(short.status == 0)
        #expect(short.stdout.contains("--filter-fast EXPR"))
        let viaHelp = try await CLIEnvironment.run(["help", "channel-groups", "add"])
        #expect(viaHelp.status == 0)
        #expect(viaHelp.stdout.hasPrefix("datasync channel-groups add: "))
        let settings = try await CLIEnvironment.run(["help", "settings"])
        #expect(settings.stdout.contains("DATASYNC_SUBSCRIBE_KEY"))
    }

    @Test(
        "a mistyped command, option or value exits 2, names the argument and suggests the nearest",
        arguments: [
            (["usres", "list"], "unknown command 'usres' for 'datasync'", "did you mean 'users'?"),
            (["users", "lsit"], "unknown command 'lsit' for 'datasync users'", "did you mean 'list'?"),
            (
                ["users", "create", "--clas-version", "1"], "unknown option '--clas-version'",
                "did you mean '--class-version'?"
            ),
            (["users", "list", "--fiter", "x"], "unknown option '--fiter'", "did you mean '--filter'?"),
            (
                ["users", "list", "--class-level", "sub-key"], "invalid value 'sub-key' for '--class-level'",
                "did you mean 'subkey'?"
            ),
            (
                ["watch", "a", "--format", "jsonl"], "invalid value 'jsonl' for '--format'",
                "expected one of human, ndjson"
            ),
            (
                ["memberships", "list", "--version", "1"], "unknown option '--version'",
                "did you mean '--class-version'?"
            ),
            (
                ["publish", "room"], "missing argument MESSAGE for 'datasync publish'",
                "usage: datasync publish CHANNEL MESSAGE"
            ),
            (["users", "get"], "missing argument ID for 'datasync users get'", "see 'datasync users get --help'"),
            (
                ["users", "get", "a", "b"], "unexpected argument 'b' for 'datasync users get'",
                "usage: datasync users get ID"
            ),
            (["users", "list", "--limit"], "option '--limit' needs a value (N)", "see 'datasync users list --help'"),
            (["users", "list", "--all=yes"], "option '--all' takes no value", ""),
            (["entities", "list"], "missing option '--class, --class-name NAME'", ""),
            (["users"], "'datasync users' needs a command: create, get, list, set, update, remove", ""),
            (
                ["emulator", "--prot", "8090"], "unknown option '--prot' for 'datasync emulator'",
                "did you mean '--port'?"
            ),
            (["nosuch", "--help"], "unknown command 'nosuch' for 'datasync'", "see 'datasync --help'"),
            (["usres", "list", "--help"], "unknown command 'usres' for 'datasync'", "did you mean 'users'?"),
            (["users", "lsit", "-h"], "unknown command 'lsit' for 'datasync users'", "did you mean 'list'?"),
            (["emulator", "--port", "x"], "--port takes 0 to 65535", ""),
        ])
    func mistakes(_ arguments: [String], _ message: String, _ hint: String) async throws {
        let result = try await CLIEnvironment.run(arguments, extra: ["DATASYNC_SUBSCRIBE_KEY": "demo"])
        #expect(result.status == 2, "\(arguments): \(result)")
        #expect(result.stderr.contains(message), "\(arguments): \(result)")
        if !hint.isEmpty { #expect(result.stderr.contains(hint), "\(arguments): \(result)") }
        #expect(result.stdout.isEmpty, "\(arguments): \(result)")
    }

    @Test("values checked before anything is sent exit 2: numbers, JSON, missing settings")
    func invalidValues() async throws {
        let cases: [([String], String)] = [
            (["users", "list", "--limit", "ten"], "option '--limit' takes a whole number, not 'ten'"),
            (["users", "create", "--class-version", "1", "--payload", "{oops"], "--payload takes JSON"),
            (["users", "create", "--payload", "{}"], "missing option '--class-version'"),
            (["users", "update", "a", "--ops", "[]"], "--operations needs at least one operation"),
            (["users", "update", "a", "--ops", #"{"op":"replase","path":"/a"}"#], "did you mean 'replace'?"),
            (["users", "create", "--json", #"{"classVersion":1,"stauts":"x"}"#], "did you mean 'status'?"),
            (["publish", "room", "hello"], "(to send text as it is, add --text"),
            (["watch"], "needs at least one TARGET"),
            (["watch", "a", "--projection", "__admin__"], "must start with a letter or a digit"),
        ]
        for (arguments, message) in cases {
            let result = try await CLIEnvironment.run(
                arguments,
                extra: [
                    "DATASYNC_SUBSCRIBE_KEY": "demo", "DATASYNC_PUBLISH_KEY": "demo", "DATASYNC_ORIGIN": "127.0.0.1:9",
                ])
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stderr.contains(message), "\(arguments): \(result)")
        }
        let noKey = try await CLIEnvironment.run(["time"])
        #expect(noKey.status == 2)
        #expect(noKey.stderr.contains("no subscribe key: pass --subscribe-key KEY, set DATASYNC_SUBSCRIBE_KEY"))
        let noPublishKey = try await CLIEnvironment.run(
            ["publish", "a", "1"], extra: ["DATASYNC_SUBSCRIBE_KEY": "demo"])
        #expect(noPublishKey.status == 2)
        #expect(noPublishKey.stderr.contains("needs a publish key"))
        let none = try await CLIEnvironment.run([])
        #expect(none.status == 2)
        #expect(none.stderr.contains("usage: datasync <command>"))
    }
}
