import ArgumentParsing
import Foundation
import Messaging

/// `publish`, `signal`, `fire`, `here-now`, `where-now`, `time` and `channel-groups`: the calls of
/// the Messaging module.
enum MessagingCommands {
    static var commands: [Command<CommandAction>] {
        [publish, signal, fire, hereNow, whereNow, time, channelGroups]
    }

    private static let channelArgument = PositionalSpec(name: "CHANNEL", help: "the channel to send to")
    private static let messageArgument = PositionalSpec(
        name: "MESSAGE", help: "the message as JSON (text, @FILE, or - for stdin); see --text")
    private static let textOption = OptionSpec.flag(
        "--text", help: "send MESSAGE as a JSON string as it is, without parsing it")
    private static let metaOption = OptionSpec.value(
        "--meta", "JSON", help: "metadata subscribers' filter expressions can test (a JSON object)")
    private static let customTypeOption = OptionSpec.value(
        "--custom-message-type", "TYPE", aliases: ["--type"],
        help: "a label subscribers receive: 3 to 50 of A-Z a-z 0-9 _ -, not starting with -, _, pn- or pn_")
    private static let compressOption = OptionSpec.flag(
        "--compress", help: "send the message gzip-compressed in a POST body")

    /// The message: JSON, or with `--text` the argument as a string.
    private static func message(_ invocation: Invocation) throws(UsageError) -> JSONValue {
        let text = invocation.positional("MESSAGE")
        if invocation.arguments.flag("--text") { return .string(text) }
        do {
            return try JSONArgument.read(text, option: "MESSAGE", context: invocation.context)
        } catch {
            var error = error
            error.message += "\n(to send text as it is, add --text, or quote it as JSON: '\"hello\"')"
            throw error
        }
    }

    private static func timetokenResult(_ timetoken: Timetoken, channel: String? = nil) -> JSONValue {
        var result: [String: JSONValue] = ["timetoken": .string(String(timetoken))]
        if let channel { result["channel"] = .string(channel) }
        return .object(result)
    }

    // MARK: publish, signal, fire

    static var publish: Command<CommandAction> {
        Command(
            name: "publish", summary: "publishes a message to a channel and prints its timetoken",
            discussion:
                "The timetoken is printed as a string ({\"channel\":…,\"timetoken\":\"17…\"}): 17 digits do not fit a JavaScript number.",
            options: [
                textOption, metaOption, customTypeOption,
                .flag("--store", help: "keep the message in Message Persistence (default: the keyset's setting)"),
                .flag("--no-store", help: "do not keep the message"),
                .value("--ttl", "HOURS", help: "how many hours a stored message is kept; 0 for the keyset's retention"),
                compressOption,
            ],
            positionals: [channelArgument, messageArgument],
            examples: [
                #"datasync publish room-1 '{"text":"hello"}'"#, "datasync publish room-1 hello --text --no-store",
                #"echo '{"n":1}' | datasync publish room-1 - --meta '{"lang":"en"}'"#,
            ],
            action: { invocation in
                let arguments = invocation.arguments
                let channel = invocation.positional("CHANNEL")
                let body = try message(invocation)
                let meta = try invocation.jsonOption("--meta")
                if arguments.flag("--store"), arguments.flag("--no-store") {
                    throw UsageError("--store and --no-store cannot be given together", command: arguments.commandName)
                }
                let store: Bool? = arguments.flag("--store") ? true : (arguments.flag("--no-store") ? false : nil)
                let ttl = try arguments.int("--ttl", in: 0...Int.max)
                let pubnub = try invocation.client(needsPublishKey: true)
                let timetoken = try await pubnub.publish(
                    channel: channel, message: body, customMessageType: arguments.value("--custom-message-type"),
                    shouldStore: store, storeTTL: ttl, meta: meta, shouldCompress: arguments.flag("--compress"))
                invocation.emit(timetokenResult(timetoken, channel: channel))
                return ExitStatus.ok
            })
    }

    static var signal: Command<CommandAction> {
        Command(
            name: "signal", summary: "sends a signal (small, never stored) and prints its timetoken",
            discussion: "The message's JSON text may be at most 64 bytes by default.",
            options: [textOption, customTypeOption], positionals: [channelArgument, messageArgument],
            examples: [#"datasync signal room-1 '{"typing":true}'"#],
            action: { invocation in
                let channel = invocation.positional("CHANNEL")
                let body = try message(invocation)
                let pubnub = try invocation.client(needsPublishKey: true)
                let timetoken = try await pubnub.signal(
                    channel: channel, message: body,
                    customMessageType: invocation.arguments.value("--custom-message-type"))
                invocation.emit(timetokenResult(timetoken, channel: channel))
                return ExitStatus.ok
            })
    }

    static var fire: Command<CommandAction> {
        Command(
            name: "fire", summary: "fires a message to the channel's Functions only (not stored, not delivered)",
            options: [textOption, metaOption, compressOption], positionals: [channelArgument, messageArgument],
            examples: [#"datasync fire room-1 '{"audit":"login"}'"#],
            action: { invocation in
                let channel = invocation.positional("CHANNEL")
                let body = try message(invocation)
                let meta = try invocation.jsonOption("--meta")
                let pubnub = try invocation.client(needsPublishKey: true)
                let timetoken = try await pubnub.fire(
                    channel: channel, message: body, meta: meta,
                    shouldCompress: invocation.arguments.flag("--compress"))
                invocation.emit(timetokenResult(timetoken, channel: channel))
                return ExitStatus.ok
            })
    }

    // MARK: presence

    static var hereNow: Command<CommandAction> {
        Command(
            name: "here-now", summary: "who is present on channels and channel groups (or the whole keyset)",
            discussion:
                "Prints {\"totalChannels\",\"totalOccupancy\",\"channels\":{name:{\"occupancy\",\"occupants\":[…]}}}.",
            options: [
                .repeated(
                    "--group", "GROUP", aliases: ["--channel-group"],
                    help: "include a channel group's channels (repeatable)"),
                .flag("--state", help: "include each user's presence state"),
                .flag("--no-users", aliases: ["--no-uuids"], help: "only count the users, do not list them"),
                .value("--limit", "N", help: "most users listed per channel, 0 to 1000 (default 1000)"),
                .value("--offset", "N", help: "where to start listing users, to page past --limit"),
            ],
            positionals: [
                PositionalSpec(
                    name: "CHANNEL", help: "channels to ask about; none (and no --group) for all", required: false,
                    variadic: true)
            ],
            examples: ["datasync here-now room-1 room-2 --state", "datasync here-now"],
            action: { invocation in
                let arguments = invocation.arguments
                let limit = try arguments.int("--limit", in: 0...1000) ?? 1000
                let offset = try arguments.int("--offset", in: 0...Int.max)
                let pubnub = try invocation.client()
                let presence = try await pubnub.hereNow(
                    on: arguments.positionals, and: arguments.values("--group"),
                    includeUUIDs: !arguments.flag("--no-users"), includeState: arguments.flag("--state"), limit: limit,
                    offset: offset)
                var channels: [String: JSONValue] = [:]
                for (name, channel) in presence.channels {
                    let occupants: [JSONValue] = channel.occupants.map { occupant in
                        var entry: [String: JSONValue] = ["userId": .string(occupant.userId)]
                        if let state = occupant.state { entry["state"] = state }
                        return .object(entry)
                    }
                    channels[name] = ["occupancy": JSONValue(channel.occupancy), "occupants": .array(occupants)]
                }
                invocation.emit([
                    "totalChannels": JSONValue(presence.totalChannels),
                    "totalOccupancy": JSONValue(presence.totalOccupancy), "channels": .object(channels),
                ])
                return ExitStatus.ok
            })
    }

    static var whereNow: Command<CommandAction> {
        Command(
            name: "where-now", summary: "the channels a user is present on",
            discussion: "Prints {\"userId\":…,\"channels\":[…]}.",
            positionals: [
                PositionalSpec(name: "USER_ID", help: "the user; the configured user id when omitted", required: false)
            ],
            examples: ["datasync where-now alice"],
            action: { invocation in
                let pubnub = try invocation.client()
                let user = invocation.arguments.named["USER_ID"] ?? pubnub.configuration.userId
                let channels = try await pubnub.whereNow(for: user)
                invocation.emit(["userId": .string(user), "channels": .array(channels.map { JSONValue.string($0) })])
                return ExitStatus.ok
            })
    }

    static var time: Command<CommandAction> {
        Command(
            name: "time", summary: "prints the service's current timetoken (and checks it is reachable)",
            discussion:
                "Prints {\"timetoken\":\"17…\",\"date\":\"…\"}: 100 ns units since 1970, and the same as ISO 8601.",
            examples: ["datasync time"],
            action: { invocation in
                let pubnub = try invocation.client()
                let timetoken = try await pubnub.time()
                var result = timetokenResult(timetoken).objectValue ?? [:]
                result["date"] = .string(Timestamps.iso(timetoken))
                invocation.emit(.object(result))
                return ExitStatus.ok
            })
    }

    // MARK: channel groups

    static var channelGroups: Command<CommandAction> {
        let group = PositionalSpec(name: "GROUP", help: "the channel group")
        let channels = PositionalSpec(name: "CHANNEL", help: "channel names (1 to 200)", variadic: true)
        @Sendable func strings(_ list: [String]) -> JSONValue { .array(list.map { JSONValue.string($0) }) }
        return Command(
            name: "channel-groups", aliases: ["groups"],
            summary: "channel groups: list, show, add to, remove from, delete",
            subcommands: [
                groupCommand(
                    "list", summary: "lists the keyset's channel groups", discussion: "Prints {\"groups\":[…]}.",
                    positionals: [], example: "datasync channel-groups list"
                ) { pubnub, _, _ in
                    ["groups": strings(try await pubnub.listChannelGroups())]
                },
                groupCommand(
                    "channels", aliases: ["show"], summary: "lists a group's channels",
                    discussion: "Prints {\"group\":…,\"channels\":[…]}; an unknown group has none.",
                    positionals: [group], example: "datasync channel-groups channels feeds"
                ) { pubnub, name, _ in
                    ["group": .string(name), "channels": strings(try await pubnub.listChannels(for: name))]
                },
                groupCommand(
                    "add", summary: "adds channels to a group (creating it)", positionals: [group, channels],
                    example: "datasync channel-groups add feeds news sport"
                ) { pubnub, name, list in
                    try await pubnub.add(channels: list, to: name)
                    return ["group": .string(name), "added": strings(list)]
                },
                groupCommand(
                    "remove", summary: "removes channels from a group", positionals: [group, channels],
                    example: "datasync channel-groups remove feeds sport"
                ) { pubnub, name, list in
                    try await pubnub.remove(channels: list, from: name)
                    return ["group": .string(name), "removed": strings(list)]
                },
                groupCommand(
                    "delete", summary: "deletes a channel group", positionals: [group],
                    example: "datasync channel-groups delete feeds"
                ) { pubnub, name, _ in
                    try await pubnub.remove(channelGroup: name)
                    return ["group": .string(name), "deleted": true]
                },
            ])
    }

    /// One `channel-groups` subcommand: GROUP (empty when it takes none) and the CHANNELs after
    /// it go to `call`, whose answer is printed.
    private static func groupCommand(
        _ name: String, aliases: [String] = [], summary: String, discussion: String = "",
        positionals: [PositionalSpec], example: String,
        _ call: @escaping @Sendable (PubNub, _ group: String, _ channels: [String]) async throws -> JSONValue
    ) -> Command<CommandAction> {
        Command(
            name: name, aliases: aliases, summary: summary, discussion: discussion, positionals: positionals,
            examples: [example],
            action: { invocation in
                let channels = Array(invocation.arguments.positionals.dropFirst())
                invocation.emit(try await call(invocation.client(), invocation.positional("GROUP"), channels))
                return ExitStatus.ok
            })
    }
}

/// Timetokens as dates.
enum Timestamps {
    /// `2026-07-13T09:00:00.123Z` for a timetoken (100 ns units since 1970).
    static func iso(_ timetoken: Timetoken) -> String {
        var seconds = time_t(timetoken / 10_000_000)
        let millis = Int((timetoken / 10_000) % 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let fraction = millis < 10 ? "00\(millis)" : (millis < 100 ? "0\(millis)" : "\(millis)")
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }

    /// `09:00:00.123` (UTC) for a timetoken.
    static func clock(_ timetoken: Timetoken) -> String {
        let text = iso(timetoken)
        guard let t = text.firstIndex(of: "T") else { return text }
        return String(text[text.index(after: t)...].dropLast())
    }
}
