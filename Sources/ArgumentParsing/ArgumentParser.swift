// A small command-line parser: a tree of commands, each with options and positional arguments,
// plus global options accepted at every level. No external package; nothing here knows about
// DataSync, so the same parser serves every executable of the package (the CLI, the emulator,
// the quickstart, codegen, the benchmarks, the fuzz harnesses) and their tests.

/// One option a command accepts: a flag (`--all`), an option with one value (`--limit N`, also
/// `--limit=N`) or a repeatable one (`--sort FIELD`, given several times).
package struct OptionSpec: Sendable, Hashable {
    /// How an option takes values.
    package enum Kind: Sendable, Hashable {
        /// No value: present or not.
        case flag
        /// One value; given twice, the last wins.
        case value
        /// One value per occurrence, kept in order.
        case repeated
    }

    /// The canonical name, with its dashes: `--class-version`.
    package var name: String
    /// Other spellings: `-h`, `--ops`.
    package var aliases: [String] = []
    package var kind: Kind
    /// What the value is, for help: `N`, `JSON`, `FIELD[:desc]`.
    package var valueName: String = ""
    /// One line of help.
    package var help: String
    /// The values allowed, compared without case (and given back in this spelling); empty for any.
    package var choices: [String] = []
    /// Whether the command cannot run without it.
    package var required = false

    package init(
        name: String, aliases: [String] = [], kind: Kind, valueName: String = "", help: String,
        choices: [String] = [], required: Bool = false
    ) {
        self.name = name
        self.aliases = aliases
        self.kind = kind
        self.valueName = valueName
        self.help = help
        self.choices = choices
        self.required = required
    }

    package static func flag(_ name: String, aliases: [String] = [], help: String) -> OptionSpec {
        OptionSpec(name: name, aliases: aliases, kind: .flag, help: help)
    }

    package static func value(
        _ name: String, _ valueName: String, aliases: [String] = [], help: String, choices: [String] = [],
        required: Bool = false
    ) -> OptionSpec {
        OptionSpec(
            name: name, aliases: aliases, kind: .value, valueName: valueName, help: help, choices: choices,
            required: required)
    }

    package static func repeated(_ name: String, _ valueName: String, aliases: [String] = [], help: String)
        -> OptionSpec
    {
        OptionSpec(name: name, aliases: aliases, kind: .repeated, valueName: valueName, help: help)
    }

    /// Every spelling, canonical first.
    package var spellings: [String] { [name] + aliases }

    /// `--limit N`, `--all`, `-h, --help`.
    package var label: String {
        let names = (aliases.filter { !$0.hasPrefix("--") } + [name] + aliases.filter { $0.hasPrefix("--") })
            .joined(separator: ", ")
        return kind == .flag ? names : names + " " + valueName
    }
}

/// One positional argument of a command.
package struct PositionalSpec: Sendable, Hashable {
    /// Its name in help and errors: `ID`, `CHANNEL`.
    package var name: String
    /// One line of help.
    package var help: String
    package var required = true
    /// Takes every remaining argument (only the last positional may).
    package var variadic = false

    package init(name: String, help: String, required: Bool = true, variadic: Bool = false) {
        self.name = name
        self.help = help
        self.required = required
        self.variadic = variadic
    }

    /// `ID`, `[USER_ID]`, `TARGET...`.
    package var label: String {
        let base = variadic ? name + "..." : name
        return required ? base : "[" + base + "]"
    }
}

/// A command: a group of subcommands (`users`) or a leaf that runs (`users create`).
package struct Command<Action: Sendable>: Sendable {
    package var name: String
    package var aliases: [String] = []
    /// One line, shown in the parent's command list and at the top of the help.
    package var summary: String
    /// Paragraphs shown after the usage line.
    package var discussion: String = ""
    package var options: [OptionSpec] = []
    package var positionals: [PositionalSpec] = []
    package var subcommands: [Command] = []
    package var examples: [String] = []
    /// Hands every argument after the command's name to the action untouched (no global
    /// options, no `--help`): for a command that parses its own flags.
    package var passesArgumentsThrough = false
    package var action: Action?

    package init(
        name: String, aliases: [String] = [], summary: String, discussion: String = "", options: [OptionSpec] = [],
        positionals: [PositionalSpec] = [], subcommands: [Command] = [], examples: [String] = [],
        passesArgumentsThrough: Bool = false, action: Action? = nil
    ) {
        self.name = name
        self.aliases = aliases
        self.summary = summary
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.examples = examples
        self.passesArgumentsThrough = passesArgumentsThrough
        self.action = action
    }

    /// Every spelling of the name.
    package var spellings: [String] { [name] + aliases }

    package func subcommand(named name: String) -> Command? {
        subcommands.first { $0.spellings.contains(name) }
    }
}

/// What the parser read for the command to run.
package struct ParsedArguments: Sendable, Hashable {
    /// The command's names from the root: `["datasync", "users", "create"]`.
    package var commandPath: [String]
    /// Each option's values by canonical name; a flag holds one empty string per occurrence.
    package var options: [String: [String]] = [:]
    /// The positional arguments, in order.
    package var positionals: [String] = []
    /// The positionals by their spec name (a variadic one holds its first value; see ``positionals``).
    package var named: [String: String] = [:]
    /// For a command that ``Command/passesArgumentsThrough``: its arguments, untouched.
    package var passthrough: [String] = []

    package init(
        commandPath: [String], options: [String: [String]] = [:], positionals: [String] = [],
        named: [String: String] = [:], passthrough: [String] = []
    ) {
        self.commandPath = commandPath
        self.options = options
        self.positionals = positionals
        self.named = named
        self.passthrough = passthrough
    }

    /// `datasync users create`.
    package var commandName: String { commandPath.joined(separator: " ") }

    package func flag(_ name: String) -> Bool { options[name] != nil }

    package func value(_ name: String) -> String? { options[name]?.last }

    package func values(_ name: String) -> [String] { options[name] ?? [] }

    /// The option's value as a whole number, nil when absent.
    ///
    /// - Throws: ``UsageError`` naming the option when the value is not a whole number in `range`.
    package func int(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            let bounds =
                range.upperBound == Int.max
                ? (range.lowerBound == Int.min ? "" : " of at least \(range.lowerBound)")
                : " from \(range.lowerBound) to \(range.upperBound)"
            throw UsageError(
                "option '\(name)' takes a whole number\(bounds), not '\(text)'", kind: .invalidValue,
                option: name, command: commandName)
        }
        return number
    }
}

/// A mistake in the arguments: exit status 2, a message naming the argument, and the nearest
/// valid spelling when there is one.
package struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake, for callers that map it to an error type of their own.
    package enum Kind: Sendable, Hashable {
        case unknownOption
        case unknownCommand
        case missingValue
        case invalidValue
        case missingArgument
        case unexpectedArgument
        case other
    }

    package var message: String
    package var kind: Kind
    /// The argument the mistake is about (`--port`, or what was typed), when there is one.
    package var option: String?
    /// The valid spelling nearest to what was typed.
    package var suggestion: String?
    /// The command whose help to point at.
    package var command: String?
    /// The command's usage line.
    package var usage: String?

    package init(
        _ message: String, kind: Kind = .other, option: String? = nil, suggestion: String? = nil,
        command: String? = nil, usage: String? = nil
    ) {
        self.message = message
        self.kind = kind
        self.option = option
        self.suggestion = suggestion
        self.command = command
        self.usage = usage
    }

    /// The message, then `did you mean '…'?`, the usage line and where the help is.
    package var description: String {
        var lines = [message]
        if let suggestion { lines.append("did you mean '\(suggestion)'?") }
        if let usage { lines.append(usage) }
        if let command { lines.append("see '\(command) --help'") }
        return lines.joined(separator: "\n")
    }
}

/// What to do after parsing.
package enum ParseOutcome<Action: Sendable>: Sendable {
    /// Run `command` with `arguments`.
    case run(Command<Action>, ParsedArguments)
    /// Print the help of the last command of `path` (from the root) and exit 0.
    case help([Command<Action>])
    /// `--version` at the top level: print ``ArgumentParser/version`` and exit 0.
    case version
}

/// Parses arguments against a command tree.
package struct ArgumentParser<Action: Sendable>: Sendable {
    package var root: Command<Action>
    /// Options every command accepts, wherever they appear (connection settings, `--verbose`).
    package var globalOptions: [OptionSpec] = []
    /// The heading of the global options in every help.
    package var globalOptionsTitle = "global options:"
    /// What `--version` prints when given before any subcommand; nil when the tool takes no
    /// `--version` (it is then an unknown option like any other).
    package var version: String?

    package init(
        root: Command<Action>, globalOptions: [OptionSpec] = [], globalOptionsTitle: String = "global options:",
        version: String? = nil
    ) {
        self.root = root
        self.globalOptions = globalOptions
        self.globalOptionsTitle = globalOptionsTitle
        self.version = version
    }

    package static var helpSpellings: [String] { ["--help", "-h"] }
    package static var versionSpelling: String { "--version" }

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: ``UsageError`` for an unknown command or option (with the nearest valid one), a
    ///   missing or invalid value, a missing or unexpected positional argument.
    package func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome<Action> {
        if let path = helpRequest(arguments) { return .help(path) }
        var path = [root]
        var command = root
        var parsed = ParsedArguments(commandPath: [root.name])
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if command.passesArgumentsThrough {
                parsed.passthrough = Array(arguments[(index - 1)...])
                break
            }
            if !onlyPositionals, argument == "--" {
                onlyPositionals = true
                continue
            }
            // A `--help` left here stands after an unknown command word, which the loop reports.
            if !onlyPositionals, Self.helpSpellings.contains(argument) { continue }
            if !onlyPositionals, Self.looksLikeOption(argument) {
                var name = argument
                var inline: String?
                if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    inline = String(argument[argument.index(after: equals)...])
                }
                let known = command.options + globalOptions
                guard let spec = known.first(where: { $0.spellings.contains(name) }) else {
                    if name == Self.versionSpelling, inline == nil, version != nil, path.count == 1 {
                        return .version
                    }
                    // `--help` is everywhere, `--version` at the top: both are worth suggesting.
                    let builtIn = ["--help"] + (version != nil && path.count == 1 ? [Self.versionSpelling] : [])
                    throw UsageError(
                        "unknown option '\(name)' for '\(parsed.commandName)'", kind: .unknownOption, option: name,
                        suggestion: EditDistance.suggestion(for: name, among: known.flatMap(\.spellings) + builtIn),
                        command: parsed.commandName, usage: usageLine(path))
                }
                switch spec.kind {
                case .flag:
                    if inline != nil {
                        throw UsageError(
                            "option '\(spec.name)' takes no value", kind: .invalidValue, option: spec.name,
                            command: parsed.commandName,
                            usage: usageLine(path))
                    }
                    parsed.options[spec.name, default: []].append("")
                case .value, .repeated:
                    var value: String
                    if let inline {
                        value = inline
                    } else {
                        guard index < arguments.count else {
                            throw UsageError(
                                "option '\(spec.name)' needs a value (\(spec.valueName))", kind: .missingValue,
                                option: spec.name, command: parsed.commandName,
                                usage: usageLine(path))
                        }
                        value = arguments[index]
                        index += 1
                    }
                    if !spec.choices.isEmpty {
                        guard let choice = spec.choices.first(where: { $0.lowercased() == value.lowercased() }) else {
                            throw UsageError(
                                "invalid value '\(value)' for '\(spec.name)': expected one of "
                                    + spec.choices.joined(separator: ", "),
                                kind: .invalidValue, option: spec.name,
                                suggestion: EditDistance.suggestion(for: value, among: spec.choices),
                                command: parsed.commandName)
                        }
                        value = choice
                    }
                    if spec.kind == .value {
                        parsed.options[spec.name] = [value]
                    } else {
                        parsed.options[spec.name, default: []].append(value)
                    }
                }
                continue
            }
            if !command.subcommands.isEmpty {
                guard let next = command.subcommand(named: argument) else {
                    throw UsageError(
                        "unknown command '\(argument)' for '\(parsed.commandName)'", kind: .unknownCommand,
                        option: argument,
                        suggestion: EditDistance.suggestion(
                            for: argument, among: command.subcommands.map(\.name)),
                        command: parsed.commandName, usage: usageLine(path))
                }
                command = next
                path.append(next)
                parsed.commandPath.append(next.name)
                continue
            }
            parsed.positionals.append(argument)
        }
        if !command.subcommands.isEmpty {
            throw UsageError(
                "'\(parsed.commandName)' needs a command: "
                    + command.subcommands.map(\.name).joined(separator: ", "),
                command: parsed.commandName, usage: usageLine(path))
        }
        if command.passesArgumentsThrough { return .run(command, parsed) }
        try assign(&parsed, to: command, path: path)
        return .run(command, parsed)
    }

    /// The commands from the root named by `names`, for `help users create`.
    ///
    /// - Throws: ``UsageError`` for a name that is no subcommand, with the nearest one.
    package func path(named names: [String]) throws(UsageError) -> [Command<Action>] {
        var path = [root]
        for name in names {
            let current = path[path.count - 1]
            guard let next = current.subcommand(named: name) else {
                let shown = path.map(\.name).joined(separator: " ")
                throw UsageError(
                    "unknown command '\(name)' for '\(shown)'", kind: .unknownCommand, option: name,
                    suggestion: EditDistance.suggestion(for: name, among: current.subcommands.map(\.name)),
                    command: shown)
            }
            path.append(next)
        }
        return path
    }

    /// When `--help` or `-h` appears before `--` and before a pass-through command: the commands
    /// named before it. Nil when a word stands where a command must be and names none
    /// (`datasync nosuch --help`): parsing then reports the unknown command instead of showing a
    /// help that would pretend it exists.
    private func helpRequest(_ arguments: [String]) -> [Command<Action>]? {
        var path = [root]
        var asksHelp = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            let current = path[path.count - 1]
            if current.passesArgumentsThrough || argument == "--" { break }
            if Self.helpSpellings.contains(argument) {
                asksHelp = true
            } else if Self.looksLikeOption(argument) {
                // An option's value is no command name: step over it.
                if !argument.contains("="),
                    let spec = (current.options + globalOptions).first(where: { $0.spellings.contains(argument) }),
                    spec.kind != .flag
                {
                    index += 1
                }
            } else if let next = current.subcommand(named: argument) {
                path.append(next)
            } else if !current.subcommands.isEmpty {
                return nil
            }
        }
        guard asksHelp, !path[path.count - 1].passesArgumentsThrough else { return nil }
        return path
    }

    private func assign(
        _ parsed: inout ParsedArguments, to command: Command<Action>, path: [Command<Action>]
    ) throws(UsageError) {
        var remaining = parsed.positionals[...]
        for spec in command.positionals {
            if let first = remaining.first {
                parsed.named[spec.name] = first
                remaining = spec.variadic ? [] : remaining.dropFirst()
            } else if spec.required {
                throw UsageError(
                    "missing argument \(spec.name) for '\(parsed.commandName)'", kind: .missingArgument,
                    option: spec.name, command: parsed.commandName,
                    usage: usageLine(path))
            }
        }
        if let extra = remaining.first {
            let takes =
                command.positionals.isEmpty ? "no arguments" : command.positionals.map(\.label).joined(separator: " ")
            throw UsageError(
                "unexpected argument '\(extra)' for '\(parsed.commandName)' (it takes \(takes))",
                kind: .unexpectedArgument, option: extra,
                suggestion: Self.looksLikeOption(extra)
                    ? nil : EditDistance.suggestion(for: extra, among: command.subcommands.map(\.name)),
                command: parsed.commandName, usage: usageLine(path))
        }
        for spec in command.options + globalOptions where spec.required && parsed.options[spec.name] == nil {
            throw UsageError(
                "missing option '\(spec.label)' for '\(parsed.commandName)'", kind: .missingArgument,
                option: spec.name, command: parsed.commandName,
                usage: usageLine(path))
        }
    }

    /// `-x`, `--name`, `--name=value`; not `-` (standard input) nor a negative number.
    package static func looksLikeOption(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), argument.count > 1 else { return false }
        let second = argument[argument.index(after: argument.startIndex)]
        return !(second.isNumber || second == ".")
    }

    // MARK: Help

    /// `usage: datasync users get ID [options]`.
    package func usageLine(_ path: [Command<Action>]) -> String {
        let command = path[path.count - 1]
        var parts = ["usage:", path.map(\.name).joined(separator: " ")]
        if !command.subcommands.isEmpty {
            parts.append("<command>")
        } else if command.passesArgumentsThrough {
            parts.append("[arguments]")
        } else {
            parts += command.options.filter(\.required).map(\.label)
            parts += command.positionals.map(\.label)
        }
        if !command.passesArgumentsThrough { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    /// The help of the last command of `path`.
    package func help(_ path: [Command<Action>], width: Int = 100) -> String {
        let command = path[path.count - 1]
        let fullName = path.map(\.name).joined(separator: " ")
        var out = ["\(fullName): \(command.summary)", "", usageLine(path)]
        if !command.discussion.isEmpty {
            for paragraph in command.discussion.split(separator: "\n\n") {
                out += [""] + Self.wrap(String(paragraph), width: width)
            }
        }
        if !command.subcommands.isEmpty {
            out += ["", "commands:"]
            out += Self.table(
                command.subcommands.map { ($0.spellings.joined(separator: ", "), $0.summary) }, width: width)
        }
        if !command.positionals.isEmpty {
            out += ["", "arguments:"]
            out += Self.table(command.positionals.map { ($0.label, $0.help) }, width: width)
        }
        if !command.options.isEmpty {
            out += ["", "options:"]
            out += Self.table(
                command.options.map { ($0.label, $0.help + ($0.required ? " (required)" : "")) }, width: width)
        }
        if !globalOptions.isEmpty, !command.passesArgumentsThrough {
            out += ["", globalOptionsTitle]
            out += Self.table(globalOptions.map { ($0.label, $0.help) }, width: width)
        }
        if !command.examples.isEmpty {
            out += ["", "examples:"]
            out += command.examples.map { "  " + $0 }
        }
        if !command.subcommands.isEmpty {
            out += ["", "run '\(fullName) <command> --help' for the options of a command."]
        }
        return out.joined(separator: "\n")
    }

    /// Two columns: labels padded to the longest (at most 28), help wrapped under itself.
    package static func table(_ rows: [(String, String)], width: Int) -> [String] {
        let column = min(28, (rows.map(\.0.count).max() ?? 0)) + 4
        var lines: [String] = []
        for (label, help) in rows {
            let wrapped = wrap(help, width: max(20, width - column))
            let first = "  " + label
            if first.count + 2 <= column {
                lines.append(first + String(repeating: " ", count: column - first.count) + (wrapped.first ?? ""))
            } else {
                lines.append(first)
                if let head = wrapped.first { lines.append(String(repeating: " ", count: column) + head) }
            }
            lines += wrapped.dropFirst().map { String(repeating: " ", count: column) + $0 }
        }
        return lines
    }

    /// Splits `text` into lines of at most `width` characters at spaces.
    package static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.isEmpty ? [""] : lines
    }
}
