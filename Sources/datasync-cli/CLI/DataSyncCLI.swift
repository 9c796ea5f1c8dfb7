import ArgumentParsing
import BuildInfo
import DataSync
import Foundation

/// The `datasync` command line: the command tree, the global options, and how a run ends.
enum DataSyncCLI {
    /// Options every command takes (Documentation/CLI.md, "Connection settings").
    static let globalOptions: [OptionSpec] = [
        .value(
            "--origin", "HOST[:PORT]",
            help:
                "the service: a host with an optional port, or http://… / https://… (env DATASYNC_ORIGIN; default ps.pndsn.com)"
        ),
        .value("--subscribe-key", "KEY", help: "the keyset's subscribe key (env DATASYNC_SUBSCRIBE_KEY)"),
        .value(
            "--publish-key", "KEY", help: "the publish key, for publish, signal and fire (env DATASYNC_PUBLISH_KEY)"),
        .value(
            "--token", "TOKEN", help: "an Access Manager token; never printed (env DATASYNC_TOKEN, safer than the flag)"
        ),
        .value("--user-id", "ID", help: "this client's user id (env DATASYNC_USER_ID; default datasync-cli)"),
        .flag("--insecure-http", help: "plain HTTP, for a local emulator (env DATASYNC_INSECURE_HTTP=1)"),
        .value(
            "--config", "FILE", help: "the config file (env DATASYNC_CONFIG; default ~/.config/datasync/config.json)"),
        .flag("--pretty", help: "indent JSON results (the default on a terminal)"),
        .flag("--compact", help: "one-line JSON results (the default when piped)"),
        .flag(
            "--verbose", aliases: ["-v"],
            help: "print the settings used and every HTTP request to stderr (never the token)"),
        .flag("--quiet", aliases: ["-q"], help: "no progress or notes on stderr"),
        .value(
            "--output", "FORMAT", aliases: ["-o"],
            help: "text or json: json writes each error as one JSON object on stderr (env DATASYNC_OUTPUT)",
            choices: ["text", "json"]),
        .value(
            "--timeout", "SECONDS",
            help: "the longest one call may take, every retry included (default 60; each attempt at most 10)"),
        .value("--retries", "N", help: "how many times a failed call is resent, 0 to 10 (default 3)"),
    ]

    static let settingsHelp = """
        Connection settings come from, in this order: flags, environment variables, the config file.

          setting         flag              environment              config key     default
          origin          --origin          DATASYNC_ORIGIN          origin         ps.pndsn.com (HTTPS)
          subscribe key   --subscribe-key   DATASYNC_SUBSCRIBE_KEY   subscribeKey   (required)
          publish key     --publish-key     DATASYNC_PUBLISH_KEY     publishKey     (publish, signal, fire)
          token           --token           DATASYNC_TOKEN           token          (none)
          user id         --user-id         DATASYNC_USER_ID         userId         datasync-cli
          plain HTTP      --insecure-http   DATASYNC_INSECURE_HTTP   insecureHTTP   off
          config file     --config          DATASYNC_CONFIG          -              $XDG_CONFIG_HOME/datasync/config.json,
                                                                                    else ~/.config/datasync/config.json

        The config file is one JSON object, for example:
          {"origin": "127.0.0.1:8090", "insecureHTTP": true, "subscribeKey": "demo", "publishKey": "demo"}
        An origin written as http://HOST:PORT (as the emulator prints it) means plain HTTP, https:// means HTTPS.
        The token is never printed: not in errors, not with --verbose.

        Exit codes: 0 success, 1 the service (or the network) failed the request, 2 the command line is wrong.
        """

    static func rootCommand() -> Command<CommandAction> {
        var subcommands = ObjectKind.allCases.map(ObjectCommands.command)
        subcommands += MessagingCommands.commands
        subcommands += HistoryCommands.commands
        subcommands += [
            WatchCommand.command, EmulatorCommand.command, InitCommand.command, AdminCommand.command,
            TokenCommands.grant, TokenCommands.token, FaultsCommand.command, FilesCommand.command, helpCommand,
            versionCommand,
            completionsCommand,
        ]
        return Command(
            name: "datasync", summary: "the PubNub DataSync command line",
            discussion:
                "Reads and writes DataSync objects (JSON in and out), publishes, watches events, and runs the "
                + "local emulator. Results go to stdout; errors, progress and statuses to stderr.\n\n"
                + "Exit codes: 0 success, 1 service error, 2 usage error. Settings: 'datasync help settings'.",
            subcommands: subcommands,
            examples: [
                "datasync emulator --port 8090 &",
                "export DATASYNC_ORIGIN=http://127.0.0.1:8090 DATASYNC_SUBSCRIBE_KEY=demo DATASYNC_PUBLISH_KEY=demo",
                #"datasync users create --id alice --class-version 1 --payload '{"fullName":"Alice"}'"#,
                "datasync users list --all | jq -r .id", "datasync watch alice",
            ])
    }

    static var helpCommand: Command<CommandAction> {
        Command(
            name: "help", summary: "shows the help of a command, or of the settings ('datasync help settings')",
            positionals: [
                PositionalSpec(
                    name: "COMMAND", help: "a command, such as users create", required: false, variadic: true)
            ],
            examples: ["datasync help users list", "datasync help settings"],
            action: { invocation in
                let names = invocation.arguments.positionals
                if names == ["settings"] || names == ["config"] {
                    invocation.console.out(settingsHelp)
                    return ExitStatus.ok
                }
                let parser = invocation.context.parser
                let path = try parser.path(named: names)
                invocation.console.out(parser.help(path))
                return ExitStatus.ok
            })
    }

    static var completionsCommand: Command<CommandAction> {
        Command(
            name: "completions", summary: "prints a completion script for bash, zsh or fish",
            discussion:
                "The script completes every command, option and option value of this CLI; it is generated from "
                + "the same command table the parser reads, so it never falls behind.",
            positionals: [PositionalSpec(name: "SHELL", help: "bash, zsh or fish")],
            examples: [
                "source <(datasync completions bash)        # in ~/.bashrc",
                "datasync completions zsh > \"${fpath[1]}/_datasync\"",
                "datasync completions fish > ~/.config/fish/completions/datasync.fish",
            ],
            action: { invocation in
                let name = invocation.positional("SHELL")
                guard let shell = CompletionShell(rawValue: name.lowercased()) else {
                    let shells = CompletionShell.allCases.map(\.rawValue)
                    throw UsageError(
                        "unknown shell '\(name)': expected one of " + shells.joined(separator: ", "),
                        kind: .invalidValue, option: name,
                        suggestion: EditDistance.suggestion(for: name, among: shells),
                        command: invocation.arguments.commandName)
                }
                invocation.console.out(CompletionScript(parser: invocation.context.parser).script(for: shell))
                return ExitStatus.ok
            })
    }

    static var versionCommand: Command<CommandAction> {
        Command(
            name: "version", summary: "prints the version, as --version does, and the SDK name sent to the service",
            action: { invocation in
                invocation.console.out(PackageVersion.line(for: "datasync"))
                invocation.console.out("sdk: " + PubNub.pnsdk)
                return ExitStatus.ok
            })
    }

    /// Runs the command line and returns the exit status.
    static func parser() -> ArgumentParser<CommandAction> {
        ArgumentParser<CommandAction>(
            root: rootCommand(), globalOptions: globalOptions,
            globalOptionsTitle: "global options (any command; see 'datasync help settings'):",
            version: PackageVersion.line(for: "datasync"))
    }

    static func main(_ arguments: [String], environment: [String: String]) async -> Int32 {
        let console = Console()
        let parser = parser()
        let context = Context(console: console, environment: environment, parser: parser)
        let format = ErrorFormat.requested(arguments, environment: environment)
        // A token can be named before any setting is resolved (in an error about the arguments).
        if let token = environment[SettingName.token.environment] { console.addSecret(token) }
        if let index = arguments.firstIndex(of: SettingName.token.flag), index + 1 < arguments.count {
            console.addSecret(arguments[index + 1])
        }
        for argument in arguments where argument.hasPrefix(SettingName.token.flag + "=") {
            console.addSecret(String(argument.dropFirst(SettingName.token.flag.count + 1)))
        }
        if arguments.isEmpty {
            console.err(parser.help([parser.root]))
            return ExitStatus.usage
        }
        let outcome: ParseOutcome<CommandAction>
        do throws(UsageError) {
            outcome = try parser.parse(arguments)
        } catch {
            return ErrorReport(error).write(to: console, as: format)
        }
        switch outcome {
        case .help(let path):
            console.out(parser.help(path))
            return ExitStatus.ok
        case .version:
            console.out(parser.version ?? "")
            return ExitStatus.ok
        case .run(let command, let parsed):
            guard let action = command.action else {
                console.err(parser.help([parser.root]))
                return ExitStatus.usage
            }
            let invocation = Invocation(arguments: parsed, context: context)
            do {
                return try await action(invocation)
            } catch let error as UsageError {
                return ErrorReport(error).write(to: console, as: format)
            } catch {
                let command = parsed.commandPath.dropFirst().joined(separator: " ")
                return ErrorReport(error, command: command).write(to: console, as: format)
            }
        }
    }

    /// A failure the SDK reported before sending anything, because of an argument: a usage error.
    static func isLocal(_ error: PubNubError) -> Bool {
        guard error.statusCode == nil else { return false }
        return [.missingRequiredParameter, .invalidArguments, .invalidConfiguration, .invalidFilterExpression]
            .contains(error.reason)
    }

    /// `resourceNotFound (HTTP 404): User alice not found`, then each detail on its own line.
    static func describe(_ error: PubNubError) -> String {
        var text = error.reason.rawValue
        if let status = error.statusCode { text += " (HTTP \(status))" }
        if !error.message.isEmpty { text += ": " + error.message }
        if let code = error.errorCode, !text.contains(code) { text += " [\(code)]" }
        for detail in error.details where !error.message.contains(detail.message) {
            text += "\n  " + detail.description
        }
        if error.message.isEmpty, let underlying = error.underlying {
            text += ": \(underlying)"
        }
        return text
    }
}
