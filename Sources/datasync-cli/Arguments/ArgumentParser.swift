// A small command-line parser: a tree of commands, each with options and positional arguments,
// plus global options accepted at every level. No external package; nothing here knows about
// DataSync, so the same parser serves every command of the CLI and its unit tests.

/// One option a command accepts: a flag (`--all`), an option with one value (`--limit N`, also
/// `--limit=N`) or a repeatable one (`--sort FIELD`, given several times).
struct OptionSpec: Sendable, Hashable {
    /// How an option takes values.
    enum Kind: Sendable, Hashable {
        /// No value: present or not.
        case flag
        /// One value; given twice, the last wins.
        case value
        /// One value per occurrence, kept in order.
        case repeated
    }

    /// The canonical name, with its dashes: `--class-version`.
    var name: String
    /// Other spellings: `-h`, `--ops`.
    var aliases: [String] = []
    var kind: Kind
    /// What the value is, for help: `N`, `JSON`, `FIELD[:desc]`.
    var valueName: String = ""
    /// One line of help.
    var help: String
    /// The values allowed, compared without case (and given back in this spelling); empty for any.
    var choices: [String] = []
    /// Whether the command cannot run without it.
    var required = false

    static func flag(_ name: String, aliases: [String] = [], help: String) -> OptionSpec {
        OptionSpec(name: name, aliases: aliases, kind: .flag, help: help)
    }

    static func value(
        _ name: String, _ valueName: String, aliases: [String] = [], help: String, choices: [String] = [],
        required: Bool = false
    ) -> OptionSpec {
        OptionSpec(
            name: name, aliases: aliases, kind: .value, valueName: valueName, help: help, choices: choices,
            required: required)
    }

    static func repeated(_ name: String, _ valueName: String, aliases: [String] = [], help: String) -> OptionSpec {
        OptionSpec(name: name, aliases: aliases, kind: .repeated, valueName: valueName, help: help)
    }

    /// Every spelling, canonical first.
    var spellings: [String] { [name] + aliases }

    /// `--limit N`, `--all`, `-h, --help`.
    var label: String {
        let names = (aliases.filter { !$0.hasPrefix("--") } + [name] + aliases.filter { $0.hasPrefix("--") })
            .joined(separator: ", ")
        return kind == .flag ? names : names + " " + valueName
    }
}

/// One positional argument of a command.
struct PositionalSpec: Sendable, Hashable {
    /// Its name in help and errors: `ID`, `CHANNEL`.
    var name: String
    /// One line of help.
    var help: String
    var required = true
    /// Takes every remaining argument (only the last positional may).
    var variadic = false

    /// `ID`, `[USER_ID]`, `TARGET...`.
    var label: String {
        let base = variadic ? name + "..." : name
        return required ? base : "[" + base + "]"
    }
}

/// A command: a group of subcommands (`users`) or a leaf that runs (`users create`).
struct Command<Action: Sendable>: Sendable {
    var name: String
    var aliases: [String] = []
    /// One line, shown in the parent's command list and at the top of the help.
    var summary: String
    /// Paragraphs shown after the usage line.
    var discussion: String = ""
    var options: [OptionSpec] = []
    var positionals: [PositionalSpec] = []
    var subcommands: [Command] = []
    var examples: [String] = []
    /// Hands every argument after the command's name to the action untouched (no global
    /// options, no `--help`): for a command that parses its own flags.
    var passesArgumentsThrough = false
    var action: Action?

    /// Every spelling of the name.
    var spellings: [String] { [name] + aliases }

    func subcommand(named name: String) -> Command? {
        subcommands.first { $0.spellings.contains(name) }
    }
}

/// What the parser read for the command to run.
struct ParsedArguments: Sendable, Hashable {
    /// The command's names from the root: `["datasync", "users", "create"]`.
    var commandPath: [String]
    /// Each option's values by canonical name; a flag holds one empty string per occurrence.
    var options: [String: [String]] = [:]
    /// The positional arguments, in order.
    var positionals: [String] = []
    /// The positionals by their spec name (a variadic one holds its first value; see ``positionals``).
    var named: [String: String] = [:]
    /// For a command that ``Command/passesArgumentsThrough``: its arguments, untouched.
    var passthrough: [String] = []

    /// `datasync users create`.
    var commandName: String { commandPath.joined(separator: " ") }

    func flag(_ name: String) -> Bool { options[name] != nil }

    func value(_ name: String) -> String? { options[name]?.last }

    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// The option's value as a whole number, nil when absent.
    ///
    /// - Throws: ``UsageError`` naming the option when the value is not a whole number in `range`.
    func int(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            let bounds =
                range.upperBound == Int.max
                ? (range.lowerBound == Int.min ? "" : " of at least \(range.lowerBound)")
                : " from \(range.lowerBound) to \(range.upperBound)"
            throw UsageError(
                "option '\(name)' takes a whole number\(bounds), not '\(text)'", command: commandName)
        }
        return number
    }
}

/// A mistake in the arguments: exit status 2, a message naming the argument, and the nearest
/// valid spelling when there is one.
struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    var message: String
    /// The valid spelling nearest to what was typed.
    var suggestion: String?
    /// The command whose help to point at.
    var command: String?
    /// The command's usage line.
    var usage: String?

    init(_ message: String, suggestion: String? = nil, command: String? = nil, usage: String? = nil) {
        self.message = message
        self.suggestion = suggestion
        self.command = command
        self.usage = usage
    }

    /// The message, then `did you mean '…'?`, the usage line and where the help is.
    var description: String {
        var lines = [message]
        if let suggestion { lines.append("did you mean '\(suggestion)'?") }
        if let usage { lines.append(usage) }
        if let command { lines.append("see '\(command) --help'") }
        return lines.joined(separator: "\n")
    }
}

/// What to do after parsing.
enum ParseOutcome<Action: Sendable>: Sendable {
    /// Run `command` with `arguments`.
    case run(Command<Action>, ParsedArguments)
    /// Print the help of the last command of `path` (from the root) and exit 0.
    case help([Command<Action>])
}

/// Parses arguments against a command tree.
struct ArgumentParser<Action: Sendable>: Sendable {
    var root: Command<Action>
    /// Options every command accepts, wherever they appear (connection settings, `--verbose`).
    var globalOptions: [OptionSpec] = []
    /// The heading of the global options in every help.
    var globalOptionsTitle = "global options:"

    static var helpSpellings: [String] { ["--help", "-h"] }

    /// Parses `arguments` (without the program name).
    ///
    /// - Throws: ``UsageError`` for an unknown command or option (with the nearest valid one), a
    ///   missing or invalid value, a missing or unexpected positional argument.
    func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome<Action> {
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
            if !onlyPositionals, Self.looksLikeOption(argument) {
                var name = argument
                var inline: String?
                if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    inline = String(argument[argument.index(after: equals)...])
                }
                let known = command.options + globalOptions
                guard let spec = known.first(where: { $0.spellings.contains(name) }) else {
                    throw UsageError(
                        "unknown option '\(name)' for '\(parsed.commandName)'",
                        suggestion: EditDistance.suggestion(for: name, among: known.flatMap(\.spellings)),
                        command: parsed.commandName, usage: usageLine(path))
                }
                switch spec.kind {
                case .flag:
                    if inline != nil {
                        throw UsageError(
                            "option '\(spec.name)' takes no value", command: parsed.commandName,
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
                                "option '\(spec.name)' needs a value (\(spec.valueName))", command: parsed.commandName,
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
                        "unknown command '\(argument)' for '\(parsed.commandName)'",
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
    func path(named names: [String]) throws(UsageError) -> [Command<Action>] {
        var path = [root]
        for name in names {
            let current = path[path.count - 1]
            guard let next = current.subcommand(named: name) else {
                let shown = path.map(\.name).joined(separator: " ")
                throw UsageError(
                    "unknown command '\(name)' for '\(shown)'",
                    suggestion: EditDistance.suggestion(for: name, among: current.subcommands.map(\.name)),
                    command: shown)
            }
            path.append(next)
        }
        return path
    }

    /// When `--help` or `-h` appears before `--` and before a pass-through command: the commands
    /// named before it, as far as they resolve.
    private func helpRequest(_ arguments: [String]) -> [Command<Action>]? {
        var path = [root]
        var asksHelp = false
        for argument in arguments {
            let current = path[path.count - 1]
            if current.passesArgumentsThrough || argument == "--" { break }
            if Self.helpSpellings.contains(argument) {
                asksHelp = true
            } else if let next = current.subcommand(named: argument) {
                path.append(next)
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
                    "missing argument \(spec.name) for '\(parsed.commandName)'", command: parsed.commandName,
                    usage: usageLine(path))
            }
        }
        if let extra = remaining.first {
            let takes =
                command.positionals.isEmpty ? "no arguments" : command.positionals.map(\.label).joined(separator: " ")
            throw UsageError(
                "unexpected argument '\(extra)' for '\(parsed.commandName)' (it takes \(takes))",
                suggestion: Self.looksLikeOption(extra)
                    ? nil : EditDistance.suggestion(for: extra, among: command.subcommands.map(\.name)),
                command: parsed.commandName, usage: usageLine(path))
        }
        for spec in command.options + globalOptions where spec.required && parsed.options[spec.name] == nil {
            throw UsageError(
                "missing option '\(spec.label)' for '\(parsed.commandName)'", command: parsed.commandName,
                usage: usageLine(path))
        }
    }

    /// `-x`, `--name`, `--name=value`; not `-` (standard input) nor a negative number.
    static func looksLikeOption(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), argument.count > 1 else { return false }
        let second = argument[argument.index(after: argument.startIndex)]
        return !(second.isNumber || second == ".")
    }

    // MARK: Help

    /// `usage: datasync users get ID [options]`.
    func usageLine(_ path: [Command<Action>]) -> String {
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
    func help(_ path: [Command<Action>], width: Int = 100) -> String {
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
    static func table(_ rows: [(String, String)], width: Int) -> [String] {
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
    static func wrap(_ text: String, width: Int) -> [String] {
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
