import ArgumentParsing
import DataSyncEmulator
import Testing

@testable import datasync_cli

/// The parser on a small tree of its own, independent of the CLI's commands.
@Suite("ArgumentParser")
struct ArgumentParserTests {
    typealias Action = @Sendable () -> Int

    static let parser = ArgumentParser<Action>(
        root: Command(
            name: "tool", summary: "a tool",
            subcommands: [
                Command(
                    name: "items", aliases: ["i"], summary: "items",
                    subcommands: [
                        Command(
                            name: "get", summary: "gets one",
                            options: [.flag("--all", help: "all"), .value("--limit", "N", help: "how many")],
                            positionals: [PositionalSpec(name: "ID", help: "the id")], action: { 1 }),
                        Command(
                            name: "tag", summary: "tags",
                            options: [
                                .repeated("--tag", "T", aliases: ["-t"], help: "a tag"),
                                .value("--mode", "M", help: "mode", choices: ["fast", "slow"], required: true),
                            ],
                            positionals: [
                                PositionalSpec(name: "ID", help: "the id"),
                                PositionalSpec(name: "REST", help: "more", required: false, variadic: true),
                            ], action: { 2 }),
                    ]),
                Command(name: "raw", summary: "raw", passesArgumentsThrough: true, action: { 3 }),
            ]),
        globalOptions: [.value("--origin", "HOST", help: "where"), .flag("--verbose", aliases: ["-v"], help: "talk")],
        version: "tool 9.9.9")

    func run(_ arguments: [String]) throws -> ParsedArguments {
        guard case .run(_, let parsed) = try Self.parser.parse(arguments) else {
            Issue.record("expected a command to run for \(arguments)")
            return ParsedArguments(commandPath: [])
        }
        return parsed
    }

    func failure(_ arguments: [String]) -> UsageError? {
        do {
            _ = try Self.parser.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test("options before, between and after positionals; --name=value; global options anywhere")
    func optionsAndPositionals() throws {
        let parsed = try run(["--origin", "h1", "items", "get", "--limit=5", "abc", "-v", "--all"])
        #expect(parsed.commandPath == ["tool", "items", "get"])
        #expect(parsed.value("--origin") == "h1")
        #expect(try parsed.int("--limit") == 5)
        #expect(parsed.flag("--all"))
        #expect(parsed.flag("--verbose"))
        #expect(parsed.named["ID"] == "abc")
        // Aliases of commands; the last value of a single-value option wins.
        let again = try run(["i", "get", "x", "--origin", "a", "--origin", "b"])
        #expect(again.value("--origin") == "b")
    }

    @Test("repeated options keep their order; choices are matched without case; variadic positionals")
    func repeatedChoicesVariadic() throws {
        let parsed = try run(["items", "tag", "id1", "--tag", "a", "-t", "b", "--mode", "FAST", "x", "y"])
        #expect(parsed.values("--tag") == ["a", "b"])
        #expect(parsed.value("--mode") == "fast")
        #expect(parsed.positionals == ["id1", "x", "y"])
        #expect(parsed.named["REST"] == "x")
    }

    @Test("- (standard input), negative numbers and everything after -- are positionals")
    func positionalLookalikes() throws {
        #expect(try run(["items", "get", "-"]).named["ID"] == "-")
        #expect(try run(["items", "get", "-5"]).named["ID"] == "-5")
        #expect(try run(["items", "get", "--", "--all"]).named["ID"] == "--all")
        #expect(try run(["items", "get", "--", "--all"]).flag("--all") == false)
    }

    @Test("a pass-through command receives its arguments untouched, --help included")
    func passThrough() throws {
        let parsed = try run(["raw", "--port", "1", "--help", "--origin"])
        #expect(parsed.passthrough == ["--port", "1", "--help", "--origin"])
        #expect(parsed.value("--origin") == nil)
    }

    @Test("--help and -h anywhere before -- ask for the help of the command named so far")
    func help() throws {
        guard case .help(let path) = try Self.parser.parse(["items", "get", "--bogus", "--help"]) else {
            Issue.record("expected help")
            return
        }
        #expect(path.map(\.name) == ["tool", "items", "get"])
        guard case .help(let short) = try Self.parser.parse(["-h"]) else {
            Issue.record("expected help")
            return
        }
        #expect(short.map(\.name) == ["tool"])
        let text = Self.parser.help(path)
        #expect(text.hasPrefix("tool items get: gets one\n\nusage: tool items get ID [options]"))
        #expect(text.contains("  --limit N"))
        #expect(text.contains("global options"))
        #expect(text.contains("  -v, --verbose"))
        let group = Self.parser.help(Array(path.dropLast()))
        #expect(group.contains("commands:\n  get"))
        #expect(
            Self.parser.usageLine([Self.parser.root, Self.parser.root.subcommands[0].subcommands[1]])
                == "usage: tool tag --mode M ID [REST...] [options]")
    }

    @Test("errors name the argument and suggest the nearest valid spelling")
    func errors() throws {
        let command = failure(["itmes", "get", "a"])
        #expect(command?.message == "unknown command 'itmes' for 'tool'")
        #expect(command?.suggestion == "items")
        let option = failure(["items", "get", "a", "--limt", "3"])
        #expect(option?.message == "unknown option '--limt' for 'tool items get'")
        #expect(option?.suggestion == "--limit")
        #expect(
            option?.description.contains(
                "did you mean '--limit'?\nusage: tool items get ID [options]\nsee 'tool items get --help'") == true)
        let global = failure(["items", "get", "a", "--orign", "x"])
        #expect(global?.suggestion == "--origin")
        let choice = failure(["items", "tag", "a", "--mode", "fsat"])
        #expect(choice?.message == "invalid value 'fsat' for '--mode': expected one of fast, slow")
        #expect(choice?.suggestion == "fast")
        #expect(failure(["items", "tag", "a"])?.message == "missing option '--mode M' for 'tool items tag'")
        #expect(failure(["items", "get"])?.message == "missing argument ID for 'tool items get'")
        #expect(
            failure(["items", "get", "a", "b"])?.message == "unexpected argument 'b' for 'tool items get' (it takes ID)"
        )
        #expect(failure(["items", "get", "a", "--limit"])?.message == "option '--limit' needs a value (N)")
        #expect(failure(["items", "get", "a", "--all=1"])?.message == "option '--all' takes no value")
        #expect(failure(["items"])?.message == "'tool items' needs a command: get, tag")
        #expect(failure(["nothing-like-it"])?.suggestion == nil)
        let number = try run(["items", "get", "a", "--limit", "x"])
        #expect(throws: UsageError.self) { try number.int("--limit") }
        #expect(throws: UsageError.self) { try run(["items", "get", "a", "--limit", "0"]).int("--limit", in: 1...100) }
    }

    @Test("--help after a word that names no command reports the unknown command, not a help")
    func helpAfterUnknownCommand() {
        let unknown = failure(["nosuch", "--help"])
        #expect(unknown?.message == "unknown command 'nosuch' for 'tool'")
        #expect(unknown?.kind == .unknownCommand)
        #expect(failure(["items", "gte", "-h"])?.suggestion == "get")
        #expect(failure(["--help", "itmes"])?.suggestion == "items")
        // An option's value is not taken for a command name.
        guard case .help(let path) = try? Self.parser.parse(["--origin", "nosuch", "items", "--help"]) else {
            Issue.record("expected help")
            return
        }
        #expect(path.map(\.name) == ["tool", "items"])
    }

    @Test("--version at the top level prints the version; below it, it is an unknown option")
    func version() throws {
        guard case .version = try Self.parser.parse(["--version"]) else {
            Issue.record("expected the version")
            return
        }
        #expect(failure(["items", "get", "a", "--version"])?.kind == .unknownOption)
        let without = ArgumentParser<Action>(root: Self.parser.root)
        #expect(throws: UsageError.self) { try without.parse(["--version"]) }
    }

    @Test("help paths by name, for `help items get`")
    func pathsByName() throws {
        #expect(try Self.parser.path(named: ["i", "tag"]).map(\.name) == ["tool", "items", "tag"])
        #expect(throws: UsageError.self) { try Self.parser.path(named: ["items", "gte"]) }
    }
}

@Suite("EditDistance")
struct EditDistanceTests {
    @Test("distances: insertions, deletions, substitutions, swaps of neighbours")
    func distances() {
        #expect(EditDistance.distance("list", "list") == 0)
        #expect(EditDistance.distance("lsit", "list") == 1)
        #expect(EditDistance.distance("lst", "list") == 1)
        #expect(EditDistance.distance("kitten", "sitting") == 3)
        #expect(EditDistance.distance("", "abc") == 3)
    }

    @Test("suggestions: near typos, word parts, nothing for unrelated input")
    func suggestions() {
        let options = ["--class", "--class-version", "--class-level", "--id", "--status"]
        #expect(EditDistance.suggestion(for: "--clas", among: options) == "--class")
        #expect(EditDistance.suggestion(for: "--class-verison", among: options) == "--class-version")
        #expect(EditDistance.suggestion(for: "--version", among: options) == "--class-version")
        #expect(EditDistance.suggestion(for: "--STATUS", among: options) == "--status")
        #expect(EditDistance.suggestion(for: "--zebra", among: options) == nil)
        #expect(EditDistance.suggestion(for: "", among: options) == nil)
    }
}

@Suite("EmulatorOptions")
struct EmulatorOptionsTests {
    @Test("every flag of datasync-emulator")
    func everyFlag() throws {
        let parsed = try EmulatorOptions.parse([
            "--host", "0.0.0.0", "--port", "8090", "--classes", "c.json", "--seed", "s.json", "--state-file", "st.json",
            "--filter-fast-limit", "20", "--publish-key", "p", "--subscribe-key", "s", "--secret-key", "k",
            "--keyset", "p2:s2:k2", "--keyset", "p3:s3:k3", "--access-control", "--catch-up-buffer", "5",
            "--presence-announce-max", "0", "--presence-interval", "3", "--max-connections", "64",
            "--max-buffered-request-bytes", "1048576", "--event-loops", "1", "--admin-secret", "s3cr3t",
            "--no-request-lines", "--log-level", "warning",
        ])
        guard case .run(let options) = parsed else {
            Issue.record("expected options")
            return
        }
        #expect(options.host == "0.0.0.0")
        #expect(options.port == 8090)
        #expect(options.classesFile == "c.json")
        #expect(options.seedFile == "s.json")
        #expect(options.stateFile == "st.json")
        #expect(options.filterFastLimit == 20)
        #expect(options.publishKey == "p")
        #expect(options.subscribeKey == "s")
        #expect(options.secretKey == "k")
        #expect(options.secretKeyGiven)
        #expect(options.accessControl)
        #expect(options.mainKeysetProtected)
        #expect(options.extraKeysets.map(\.subscribeKey) == ["s2", "s3"])
        #expect(options.catchUpBuffer == 5)
        #expect(options.announceMax == 0)
        #expect(options.presenceInterval == 3)
        #expect(
            options.serverLimits
                == EmulatorServerLimits(maximumConnections: 64, maximumBufferedRequestBytes: 1_048_576, eventLoops: 1)
        )
        #expect(options.adminSecret == "s3cr3t")
        #expect(options.quietRequests)
        #expect(options.logLevel == .warning)
        var withoutFiles = options
        withoutFiles.classesFile = nil
        withoutFiles.seedFile = nil
        let configuration = try withoutFiles.configuration()
        #expect(configuration.serverLimits.maximumConnections == 64)
        #expect(configuration.serverLimits.eventLoops == 1)
        #expect(configuration.admin.secret == "s3cr3t")
        #expect(configuration.logsRequests == false)
        #expect(EmulatorOptions.optionNames.count == 23)
    }

    @Test("the configuration: main keyset protected by --secret-key, extras by --access-control")
    func configuration() throws {
        guard case .run(let options) = try EmulatorOptions.parse(["--secret-key", "k", "--keyset", "a:b:c"]) else {
            Issue.record("expected options")
            return
        }
        let configuration = try options.configuration()
        #expect(configuration.pubSub.keysets.map(\.accessControl) == [true, false])
        #expect(configuration.pubSub.keysets.map(\.secretKey) == ["k", "c"])
        guard case .run(let defaults) = try EmulatorOptions.parse([]) else { return }
        #expect(defaults == EmulatorOptions())
        #expect(try defaults.configuration().pubSub.keysets == [PubSubKeyset.demo])
    }

    @Test("errors carry the option, a code and datasync-emulator's message")
    func errors() {
        func error(_ arguments: [String]) -> EmulatorOptionsError? {
            do {
                _ = try EmulatorOptions.parse(arguments)
                return nil
            } catch {
                return error
            }
        }
        #expect(
            error(["--bogus"])
                == EmulatorOptionsError(
                    code: .unknownOption, option: "--bogus", message: "unknown option '--bogus' for 'datasync-emulator'"
                ))
        #expect(error(["--prot", "1"])?.message.hasSuffix("(did you mean '--port'?)") == true)
        #expect(error(["8090"])?.code == .unknownOption)
        #expect(error(["--port"])?.code == .missingValue)
        #expect(error(["--port"])?.showsUsage == true)
        #expect(error(["--port", "70000"])?.message == "--port takes 0 to 65535")
        #expect(error(["--port", "70000"])?.showsUsage == false)
        #expect(error(["--keyset", "a:b"])?.message == "--keyset takes PUBLISH:SUBSCRIBE:SECRET")
        #expect(error(["--filter-fast-limit", "0"])?.option == "--filter-fast-limit")
        #expect(error(["--event-loops", "0"])?.message == "--event-loops takes 1 to 8")
        #expect(error(["--event-loops", "9"])?.option == "--event-loops")
        #expect(error(["--presence-announce-max", "-1"])?.message == "--presence-announce-max takes a number")
        // As everywhere in the package: --help wins over a mistake beside it.
        #expect((try? EmulatorOptions.parse(["--bogus", "--help"])) == .help)
        #expect(throws: EmulatorOptionsError.self) {
            guard case .run(let options) = try EmulatorOptions.parse(["--classes", "/nonexistent/classes.json"]) else {
                return
            }
            _ = try options.configuration()
        }
        #expect((try? EmulatorOptions.parse(["--port", "1", "-h"])) == .help)
    }

    @Test("the usage aligns its continuation lines under the program name")
    func usage() {
        let lines = EmulatorOptions.usage(program: "datasync-emulator").split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "usage: datasync-emulator [--host ADDRESS] [--port N] [--classes FILE] [--seed FILE]")
        #expect(lines[1] == "                         [--state-file FILE] [--filter-fast-limit N]")
        let short = EmulatorOptions.usage(program: "emu").split(separator: "\n")
        #expect(short[1].hasPrefix(String(repeating: " ", count: 11) + "[--state-file"))
    }
}
