import ArgumentParsing
import Foundation
import MessagePersistence

/// `history fetch|delete|counts` and `actions add|remove|list`: the calls of the
/// MessagePersistence module (Documentation/History.md, MessageActions.md). Timetokens are read
/// and printed as strings: 17 digits do not fit a JavaScript number.
enum HistoryCommands {
    static var commands: [Command<CommandAction>] { [history, actions] }

    private static let startOption = OptionSpec.value(
        "--start", "TT", help: "only messages older than this timetoken (exclusive); the next page's start")
    private static let endOption = OptionSpec.value(
        "--end", "TT", help: "only messages at or after this timetoken (inclusive)")

    /// A timetoken option or positional: digits only, so a typo never becomes another range.
    static func timetoken(_ text: String?, _ name: String, command: String) throws(UsageError) -> Timetoken? {
        guard let text else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Timetoken(text) else {
            throw UsageError(
                "\(name) takes a timetoken (17 digits, such as 17500000000000000), not '\(text)'",
                kind: .invalidValue, option: name, command: command)
        }
        return value
    }

    /// The timetoken an option gives, nil when it is absent.
    private static func timetoken(option: String, _ arguments: ParsedArguments) throws(UsageError) -> Timetoken? {
        try timetoken(arguments.value(option), option, command: arguments.commandName)
    }

    private static func requiredTimetoken(_ invocation: Invocation, _ name: String) throws(UsageError) -> Timetoken {
        let command = invocation.arguments.commandName
        guard let value = try timetoken(invocation.arguments.named[name], name, command: command) else {
            throw UsageError("missing argument \(name)", kind: .missingArgument, option: name, command: command)
        }
        return value
    }

    static func json(_ action: PubNubMessageAction) -> JSONValue {
        [
            "type": .string(action.type), "value": .string(action.value), "userId": .string(action.uuid),
            "messageTimetoken": .string(String(action.messageTimetoken)),
            "actionTimetoken": .string(String(action.actionTimetoken)),
        ]
    }

    static func json(_ message: PubNubHistoryMessage) -> JSONValue {
        var object: [String: JSONValue] = [
            "channel": .string(message.channel), "timetoken": .string(String(message.timetoken)),
            "message": message.message,
        ]
        if let publisher = message.publisher { object["publisher"] = .string(publisher) }
        if let meta = message.meta { object["meta"] = meta }
        if let type = message.messageType { object["messageType"] = JSONValue(type) }
        if let type = message.customMessageType { object["customMessageType"] = .string(type) }
        if !message.actions.isEmpty { object["actions"] = .array(message.actions.map(json)) }
        if let error = message.decryptionError { object["decryptionError"] = .string(error.description) }
        return .object(object)
    }

    // MARK: history

    static var history: Command<CommandAction> {
        Command(
            name: "history", summary: "stored messages: fetch, delete, count (Message Persistence)",
            subcommands: [fetch, delete, counts])
    }

    static var fetch: Command<CommandAction> {
        Command(
            name: "fetch", summary: "prints stored messages, one JSON object a line, each channel oldest first",
            discussion:
                "Each line is {\"channel\",\"timetoken\",\"message\",\"publisher\",…}. A page holds the newest "
                + "messages of the range; when older ones remain, a note on stderr gives the --start of the next "
                + "page, and --all (one channel) fetches every page and prints them oldest first. The CLI sets no "
                + "cipher key: encrypted messages are printed as stored.",
            options: [
                startOption, endOption,
                .value("--limit", "N", help: "messages per channel and page: 1 to 100 for one channel, 25 for more"),
                .flag("--actions", help: "include each message's actions (one channel only)"),
                .flag("--meta", help: "include each message's publish metadata"),
                .flag("--custom-type", help: "include each message's custom message type"),
                .flag("--all", help: "every page of one channel, oldest first"),
            ],
            positionals: [PositionalSpec(name: "CHANNEL", help: "the channels (up to 500)", variadic: true)],
            examples: [
                "datasync history fetch room-1 --limit 10 --meta",
                "datasync history fetch room-1 --all --actions", "datasync history fetch room-1 room-2",
            ],
            action: { invocation in try await runFetch(invocation) })
    }

    private static func runFetch(_ invocation: Invocation) async throws -> Int32 {
        let arguments = invocation.arguments
        let command = arguments.commandName
        let channels = arguments.positionals
        var range = PubNubHistoryRange(
            start: try timetoken(option: "--start", arguments),
            end: try timetoken(option: "--end", arguments),
            limit: try arguments.int("--limit", in: 1...100))
        let all = arguments.flag("--all")
        if all, channels.count != 1 {
            throw UsageError("--all pages through one channel; give exactly one CHANNEL", command: command)
        }
        let pubnub = try invocation.client()
        var collected: [PubNubHistoryMessage] = []
        while true {
            let fetched = try await pubnub.fetchMessages(
                from: channels, range: range, includeActions: arguments.flag("--actions"),
                includeMeta: arguments.flag("--meta"), includeCustomMessageType: arguments.flag("--custom-type"))
            if all {
                // Pages come newest first; each is oldest first. Kept until the end, so the output
                // is oldest first throughout.
                collected.insert(contentsOf: fetched.channels[channels[0]] ?? [], at: 0)
            } else {
                for channel in channels {
                    for message in fetched.channels[channel] ?? [] { invocation.emitLine(json(message)) }
                }
            }
            guard let next = nextPage(fetched, channels: channels, range: range, actions: arguments.flag("--actions")),
                let start = next.start
            else { break }
            guard all else {
                invocation.note("older messages remain: pass --start \(start), or --all for every page")
                return ExitStatus.ok
            }
            if start == range.start {
                throw PubNubError(reason: .malformedResponse, message: "the service returned the same page twice")
            }
            range = next
        }
        for message in collected { invocation.emitLine(json(message)) }
        return ExitStatus.ok
    }

    /// The next (older) page of a one-channel fetch: the service's own `more` with actions, else
    /// the range before the oldest message when the page came back full. Nil with only `--end`,
    /// which reads forward from it.
    private static func nextPage(
        _ fetched: PubNubFetchedMessages, channels: [String], range: PubNubHistoryRange, actions: Bool
    ) -> PubNubHistoryRange? {
        if let next = fetched.next { return next }
        guard channels.count == 1, range.start != nil || range.end == nil,
            let page = fetched.channels[channels[0]], let oldest = page.first
        else { return nil }
        guard page.count >= range.limit ?? (actions ? 25 : 100) else { return nil }
        return PubNubHistoryRange(start: oldest.timetoken, end: range.end, limit: range.limit)
    }

    static var delete: Command<CommandAction> {
        Command(
            name: "delete", summary: "deletes a channel's stored messages in a range, one message, or all",
            discussion:
                "--start (exclusive) and --end (inclusive) bound the range; --timetoken TT deletes the one message "
                + "published at TT; --all, given alone, deletes every message of the channel. Prints "
                + "{\"channel\",\"deleted\":true,…}. Needs delete permission when access control is on.",
            options: [
                startOption, endOption,
                .value("--timetoken", "TT", help: "delete the one message published at this timetoken"),
                .flag("--all", help: "delete every stored message of the channel"),
            ],
            positionals: [PositionalSpec(name: "CHANNEL", help: "the channel")],
            examples: [
                "datasync history delete room-1 --timetoken 17500000000000000",
                "datasync history delete room-1 --start 17500000000000000 --end 17600000000000000",
                "datasync history delete room-1 --all",
            ],
            action: { invocation in
                let arguments = invocation.arguments
                let command = arguments.commandName
                let channel = invocation.positional("CHANNEL")
                var start = try timetoken(option: "--start", arguments)
                var end = try timetoken(option: "--end", arguments)
                let one = try timetoken(option: "--timetoken", arguments)
                let all = arguments.flag("--all")
                if let one {
                    guard start == nil, end == nil, !all, one > 0 else {
                        throw UsageError(
                            "--timetoken names one message: give it without --start, --end or --all",
                            option: "--timetoken", command: command)
                    }
                    (start, end) = (one - 1, one)
                } else if all == (start != nil || end != nil) {
                    throw UsageError(
                        all
                            ? "--all deletes every message: give it without --start or --end"
                            : "say what to delete: --start and/or --end, --timetoken TT, or --all for every message",
                        kind: all ? .other : .missingArgument, command: command)
                }
                try await invocation.client().deleteMessages(from: channel, start: start, end: end)
                var result: [String: JSONValue] = ["channel": .string(channel), "deleted": true]
                if let start { result["start"] = .string(String(start)) }
                if let end { result["end"] = .string(String(end)) }
                invocation.emit(.object(result))
                return ExitStatus.ok
            })
    }

    static var counts: Command<CommandAction> {
        Command(
            name: "counts", summary: "how many messages each channel stored after a timetoken",
            discussion:
                "Give each channel as CHANNEL=TT, or CHANNEL with --since TT for all of them. Prints "
                + "{\"channels\":{name:count}} (the service counts at most 10,000 per channel).",
            options: [.value("--since", "TT", help: "the timetoken to count after, for channels given without =TT")],
            positionals: [
                PositionalSpec(name: "CHANNEL", help: "CHANNEL or CHANNEL=TT (up to 100)", variadic: true)
            ],
            examples: [
                "datasync history counts room-1 room-2 --since 17500000000000000",
                "datasync history counts room-1=17500000000000000 room-2=17510000000000000",
            ],
            action: { invocation in
                let arguments = invocation.arguments
                let command = arguments.commandName
                let since = try timetoken(option: "--since", arguments)
                var channels: [String: Timetoken] = [:]
                for item in arguments.positionals {
                    // The last `=`: a channel name may hold one, a timetoken never does.
                    if let equals = item.lastIndex(of: "=") {
                        let name = String(item[..<equals])
                        let text = String(item[item.index(after: equals)...])
                        channels[name] = try timetoken(text, "CHANNEL=TT", command: command)
                    } else if let since {
                        channels[item] = since
                    } else {
                        throw UsageError(
                            "\(item): give CHANNEL=TT, or --since TT for the channels given without one",
                            kind: .missingArgument, option: "--since", command: command)
                    }
                }
                let counts = try await invocation.client().messageCounts(channels: channels)
                invocation.emit(["channels": .object(counts.mapValues { JSONValue($0) })])
                return ExitStatus.ok
            })
    }

    // MARK: actions

    private static let channelArgument = PositionalSpec(name: "CHANNEL", help: "the message's channel")
    private static let messageArgument = PositionalSpec(
        name: "MESSAGE_TT", help: "the timetoken of the message the action belongs to")

    static var actions: Command<CommandAction> {
        Command(
            name: "actions", aliases: ["message-actions"],
            summary: "message actions (reactions, receipts): add, remove, list",
            subcommands: [addAction, removeAction, listActions])
    }

    static var addAction: Command<CommandAction> {
        Command(
            name: "add", summary: "adds an action to a stored message and prints it with its own timetoken",
            discussion:
                "Prints {\"type\",\"value\",\"userId\",\"messageTimetoken\",\"actionTimetoken\"}; keep "
                + "actionTimetoken to remove it. Subscribers of the channel receive it as a message action event.",
            positionals: [
                channelArgument, messageArgument,
                PositionalSpec(
                    name: "TYPE", help: "the kind of action, such as reaction or receipt (1 to 15 characters)"),
                PositionalSpec(name: "VALUE", help: "its value, such as smiley_face"),
            ],
            examples: ["datasync actions add room-1 17500000000000000 reaction smiley_face"],
            action: { invocation in
                let action = try await invocation.client().addMessageAction(
                    channel: invocation.positional("CHANNEL"), type: invocation.positional("TYPE"),
                    value: invocation.positional("VALUE"),
                    messageTimetoken: try requiredTimetoken(invocation, "MESSAGE_TT"))
                invocation.emit(json(action))
                return ExitStatus.ok
            })
    }

    static var removeAction: Command<CommandAction> {
        Command(
            name: "remove", summary: "removes an action from a message",
            discussion: "Prints {\"channel\",\"messageTimetoken\",\"actionTimetoken\",\"removed\":true}.",
            positionals: [
                channelArgument, messageArgument,
                PositionalSpec(name: "ACTION_TT", help: "the action's own timetoken, as add or list printed it"),
            ],
            examples: ["datasync actions remove room-1 17500000000000000 17500000000012345"],
            action: { invocation in
                let channel = invocation.positional("CHANNEL")
                let message = try requiredTimetoken(invocation, "MESSAGE_TT")
                let action = try requiredTimetoken(invocation, "ACTION_TT")
                try await invocation.client().removeMessageAction(
                    channel: channel, messageTimetoken: message, actionTimetoken: action)
                invocation.emit([
                    "channel": .string(channel), "messageTimetoken": .string(String(message)),
                    "actionTimetoken": .string(String(action)), "removed": true,
                ])
                return ExitStatus.ok
            })
    }

    static var listActions: Command<CommandAction> {
        Command(
            name: "list", summary: "prints a channel's message actions, one JSON object a line, oldest first",
            discussion:
                "A page holds the newest --limit actions before --start; when older ones remain, a note on stderr "
                + "gives the next --start, and --all fetches every page (printed oldest first).",
            options: [
                .value("--start", "TT", help: "only actions older than this action timetoken (exclusive)"),
                .value("--end", "TT", help: "only actions at or after this action timetoken"),
                .value("--limit", "N", help: "actions per page, 1 to 100 (default 100)"),
                .flag("--all", help: "every page, oldest first"),
            ],
            positionals: [PositionalSpec(name: "CHANNEL", help: "the channel")],
            examples: ["datasync actions list room-1", "datasync actions list room-1 --all"],
            action: { invocation in
                let arguments = invocation.arguments
                let channel = invocation.positional("CHANNEL")
                var start = try timetoken(option: "--start", arguments)
                let end = try timetoken(option: "--end", arguments)
                let limit = try arguments.int("--limit", in: 1...100)
                let all = arguments.flag("--all")
                let pubnub = try invocation.client()
                var collected: [PubNubMessageAction] = []
                while true {
                    let page = try await pubnub.fetchMessageActions(
                        channel: channel, start: start, end: end, limit: limit)
                    guard all else {
                        for action in page.actions { invocation.emitLine(json(action)) }
                        if let next = page.nextStart {
                            invocation.note("older actions remain: pass --start \(next), or --all for every page")
                        }
                        return ExitStatus.ok
                    }
                    collected.insert(contentsOf: page.actions, at: 0)
                    guard let next = page.nextStart else { break }
                    if next == start {
                        throw PubNubError(
                            reason: .malformedResponse, message: "the service returned the same page twice")
                    }
                    start = next
                }
                for action in collected { invocation.emitLine(json(action)) }
                return ExitStatus.ok
            })
    }
}
