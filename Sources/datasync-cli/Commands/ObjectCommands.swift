import ArgumentParsing
import DataSync
import Foundation

/// The `create`, `get`, `list`, `set`, `update` and `remove` subcommands of each ``ObjectKind``,
/// over the DataSync calls; their fields come from flags and `--json` (``ObjectFields``).
enum ObjectCommands {
    static let classLevels = ["global", "subkey", "account"]

    static func command(_ kind: ObjectKind) -> Command<CommandAction> {
        Command(
            name: kind.rawValue, summary: kind.summary,
            discussion: discussion(kind),
            subcommands: [create(kind), get(kind), list(kind), set(kind), update(kind), remove(kind)])
    }

    private static func discussion(_ kind: ObjectKind) -> String {
        "Results are the service's JSON (wire field names, ISO 8601 times); `get` output can be edited and fed "
            + "back to `set --json -`. A list prints one object per line (NDJSON)."
    }

    // MARK: Options

    private static let idOption = OptionSpec.value(
        "--id", "ID", help: "the object's id; omit to let the service generate one (at most 255 characters)")
    private static let statusOption = OptionSpec.value(
        "--status", "TEXT", help: "free-form lifecycle status (at most 100 characters)")
    private static let payloadOption = OptionSpec.value(
        "--payload", "JSON", help: "free-form JSON object of application data (JSON text, @FILE, or - for stdin)")
    private static let etagOption = OptionSpec.value(
        "--if-matches-etag", "ETAG", aliases: ["--if-match"],
        help: "the eTag of an earlier read: the write happens only if it still matches, else 412")
    private static let classLevelOption = OptionSpec.value(
        "--class-level", "LEVEL",
        help: "where the class is defined, to tell apart classes of the same name: global, subkey or account",
        choices: classLevels)

    private static func jsonOption(_ kind: ObjectKind) -> OptionSpec {
        .value(
            "--json", "DOC",
            help: "the fields as one JSON object (as `get` prints them, or the SDK's parameter names); "
                + "flags override it (JSON text, @FILE, or - for stdin)")
    }

    private static func classOption(_ kind: ObjectKind, listing: Bool) -> OptionSpec {
        let help: String
        switch kind {
        case .users:
            help =
                listing
                ? "user class to list; omit for User and all its subclasses"
                : "User or one of its subclasses (default User)"
        case .channels:
            help =
                listing
                ? "channel class to list; omit for Channel and all its subclasses"
                : "Channel or one of its subclasses (default Channel)"
        case .entities: help = listing ? "the entity class to list" : "the entity class (required)"
        case .relationships: help = listing ? "the relationship class to list" : "the relationship class (required)"
        case .memberships: help = ""
        }
        return .value(
            "--class", "NAME", aliases: ["--class-name"], help: help, required: listing && kind.needsClassName)
    }

    private static func classVersionOption(listing: Bool) -> OptionSpec {
        .value(
            "--class-version", "N",
            help: listing
                ? "class version to list; omit for every version"
                : "version of the class schema (required, unless --json gives it)")
    }

    private static func idArgument(_ kind: ObjectKind) -> PositionalSpec {
        PositionalSpec(name: "ID", help: "the \(kind.singular)'s id")
    }

    // MARK: create

    private static func create(_ kind: ObjectKind) -> Command<CommandAction> {
        var options: [OptionSpec] = []
        var example: String
        switch kind {
        case .users, .channels, .entities:
            options = [classOption(kind, listing: false), classVersionOption(listing: false), classLevelOption]
        case .memberships:
            options = [
                .value("--channel", "CHANNEL_ID", aliases: ["--channel-id"], help: "the channel (required)"),
                .value("--user", "USER_ID", help: "the user (required)"),
                classVersionOption(listing: false),
            ]
        case .relationships:
            options = [
                classOption(kind, listing: false), classVersionOption(listing: false),
                .value("--entity-a", "ID", aliases: ["--entity-a-id"], help: "the entity on side A (required)"),
                .value("--entity-b", "ID", aliases: ["--entity-b-id"], help: "the entity on side B (required)"),
            ]
        }
        options += [idOption, statusOption, payloadOption, jsonOption(kind)]
        switch kind {
        case .users:
            example =
                #"datasync users create --id alice --class-version 1 --status active --payload '{"fullName":"Alice"}'"#
        case .channels:
            example = #"datasync channels create --id room-1 --class-version 1 --payload '{"topic":"news"}'"#
        case .memberships: example = "datasync memberships create --channel room-1 --user alice --class-version 1"
        case .entities:
            example =
                #"datasync entities create --class course --class-version 1 --id swift-101 --payload @course.json"#
        case .relationships:
            example =
                "datasync relationships create --class enrollment --class-version 1 --entity-a alice --entity-b swift-101"
        }
        return Command(
            name: "create", summary: "creates a \(kind.singular) and prints it", options: options, examples: [example],
            action: { invocation in try await runCreate(kind, invocation) })
    }

    private static func runCreate(_ kind: ObjectKind, _ invocation: Invocation) async throws -> Int32 {
        let fields = try ObjectFields.read(kind, invocation, allowsLinks: true)
        let version = try fields.required(fields.classVersion, "--class-version", invocation)
        let dataSync = try invocation.client().dataSync
        let created: JSONValue
        switch kind {
        case .users:
            created = try JSONValue(
                from: await dataSync.createUser(
                    className: fields.className, classVersion: version, classLevel: fields.classLevel, id: fields.id,
                    status: fields.status, payload: fields.payload))
        case .channels:
            created = try JSONValue(
                from: await dataSync.createChannel(
                    className: fields.className, classVersion: version, classLevel: fields.classLevel, id: fields.id,
                    status: fields.status, payload: fields.payload))
        case .entities:
            created = try JSONValue(
                from: await dataSync.createEntity(
                    className: try fields.required(fields.className, "--class", invocation), classVersion: version,
                    classLevel: fields.classLevel, id: fields.id, status: fields.status, payload: fields.payload))
        case .memberships:
            created = try JSONValue(
                from: await dataSync.createMembership(
                    channelId: try fields.required(fields.channelId, "--channel", invocation),
                    userId: try fields.required(fields.userId, "--user", invocation), classVersion: version,
                    id: fields.id, status: fields.status, payload: fields.payload))
        case .relationships:
            created = try JSONValue(
                from: await dataSync.createRelationship(
                    className: try fields.required(fields.className, "--class", invocation), classVersion: version,
                    entityAId: try fields.required(fields.entityAId, "--entity-a", invocation),
                    entityBId: try fields.required(fields.entityBId, "--entity-b", invocation), id: fields.id,
                    status: fields.status, payload: fields.payload))
        }
        invocation.emit(created)
        return ExitStatus.ok
    }

    // MARK: get

    private static func get(_ kind: ObjectKind) -> Command<CommandAction> {
        Command(
            name: "get", summary: "prints one \(kind.singular)", positionals: [idArgument(kind)],
            examples: ["datasync \(kind.rawValue) get \(exampleId(kind))"],
            action: { invocation in
                let id = invocation.positional("ID")
                let object = try await kind.calls(invocation.client().dataSync).get(id)
                invocation.emit(object)
                return ExitStatus.ok
            })
    }

    private static func exampleId(_ kind: ObjectKind) -> String {
        switch kind {
        case .users: return "alice"
        case .channels: return "room-1"
        case .memberships: return "room-1-alice"
        case .entities: return "swift-101"
        case .relationships: return "alice-swift-101"
        }
    }

    // MARK: list

    private static func list(_ kind: ObjectKind) -> Command<CommandAction> {
        var options: [OptionSpec]
        switch kind {
        case .users, .channels, .entities:
            options = [classOption(kind, listing: true), classVersionOption(listing: true), classLevelOption]
        case .memberships:
            options = [
                .value(
                    "--channel", "CHANNEL_ID", aliases: ["--channel-id"], help: "only the memberships of this channel"),
                .value("--user", "USER_ID", help: "only the memberships of this user"),
                classVersionOption(listing: true),
            ]
        case .relationships:
            options = [
                classOption(kind, listing: true), classVersionOption(listing: true),
                .value(
                    "--entity-a", "ID", aliases: ["--entity-a-id"],
                    help: "only relationships with this entity on side A"),
                .value(
                    "--entity-b", "ID", aliases: ["--entity-b-id"],
                    help: "only relationships with this entity on side B"),
            ]
        }
        options += [
            .value(
                "--filter-fast", "EXPR",
                help: "strongly consistent filter over simple or full properties (not with --filter)"),
            .value(
                "--filter", "EXPR",
                help: "eventually consistent filter, full expression language (not with --filter-fast)"),
            .repeated(
                "--sort", "FIELD[:desc]",
                help: "order by FIELD, ascending unless :desc; repeat or separate with commas for more fields"),
            .value("--limit", "N", help: "objects per page (service default 20, at most 100)"),
            .value("--cursor", "CURSOR", help: "start from this page cursor (printed on stderr after a page)"),
            .flag("--all", help: "follow the cursor to the last page, streaming every object"),
        ]
        let classFlag = kind.needsClassName ? " --class \(kind == .entities ? "course" : "enrollment")" : ""
        return Command(
            name: "list", summary: "lists \(kind.rawValue), one JSON object per line",
            discussion:
                "Without --all one page is printed and, when there are more, the next cursor goes to stderr. With "
                + "--all every page is fetched in turn and printed as it arrives; progress goes to stderr "
                + "(--quiet hides it).",
            options: options,
            examples: [
                "datasync \(kind.rawValue) list\(classFlag) --limit 10",
                "datasync \(kind.rawValue) list\(classFlag) --all --sort updatedAt:desc > \(kind.rawValue).ndjson",
                #"datasync \#(kind.rawValue) list\#(classFlag) --filter-fast 'status == "active"'"#,
            ],
            action: { invocation in try await runList(kind, invocation) })
    }

    private static func runList(_ kind: ObjectKind, _ invocation: Invocation) async throws -> Int32 {
        let arguments = invocation.arguments
        let classVersion = try arguments.int("--class-version")
        let limit = try arguments.int("--limit")
        let classLevel = arguments.value("--class-level").map(classLevel(_:))
        let sort = try sortFields(arguments)
        let filterFast = arguments.value("--filter-fast")
        let filter = arguments.value("--filter")
        let className = arguments.value("--class")
        let all = arguments.flag("--all")
        let dataSync = try invocation.client().dataSync

        var cursor = arguments.value("--cursor")
        var total = 0
        var pages = 0
        while true {
            let items: [JSONValue]
            let next: PubNubDataSyncPage?
            switch kind {
            case .users:
                let page = try await dataSync.getUsers(
                    className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor,
                    limit: limit, filterFast: filterFast, filter: filter, sort: sort)
                (items, next) = (try page.users.map { try JSONValue(from: $0) }, page.next)
            case .channels:
                let page = try await dataSync.getChannels(
                    className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor,
                    limit: limit, filterFast: filterFast, filter: filter, sort: sort)
                (items, next) = (try page.channels.map { try JSONValue(from: $0) }, page.next)
            case .memberships:
                let page = try await dataSync.getMemberships(
                    channelId: arguments.value("--channel"), userId: arguments.value("--user"),
                    classVersion: classVersion, cursor: cursor, limit: limit, filterFast: filterFast, filter: filter,
                    sort: sort)
                (items, next) = (try page.memberships.map { try JSONValue(from: $0) }, page.next)
            case .entities:
                let page = try await dataSync.getEntities(
                    className: className ?? "", classVersion: classVersion, classLevel: classLevel, cursor: cursor,
                    limit: limit, filterFast: filterFast, filter: filter, sort: sort)
                (items, next) = (try page.entities.map { try JSONValue(from: $0) }, page.next)
            case .relationships:
                let page = try await dataSync.getRelationships(
                    className: className ?? "", classVersion: classVersion, entityAId: arguments.value("--entity-a"),
                    entityBId: arguments.value("--entity-b"), cursor: cursor, limit: limit, filterFast: filterFast,
                    filter: filter, sort: sort)
                (items, next) = (try page.relationships.map { try JSONValue(from: $0) }, page.next)
            }
            pages += 1
            total += items.count
            for item in items { invocation.emitLine(item) }
            guard let next, next.hasNext, let nextCursor = next.cursor, !nextCursor.isEmpty else { break }
            guard all else {
                invocation.note("more \(kind.rawValue) follow: pass --cursor \(nextCursor), or --all for every page")
                return ExitStatus.ok
            }
            if nextCursor == cursor {
                throw PubNubError(
                    reason: .malformedResponse, message: "the service returned the same cursor twice")
            }
            cursor = nextCursor
            if !arguments.flag("--quiet") {
                invocation.console.progress(
                    "datasync: \(kind.rawValue) list: \(total) so far (\(pages) page\(pages == 1 ? "" : "s")), "
                        + "fetching page \(pages + 1)…")
            }
        }
        if all, pages > 1, !arguments.flag("--quiet") {
            invocation.console.endProgress()
            invocation.note(
                "\(kind.rawValue) list: \(total) \(total == 1 ? kind.singular : kind.rawValue) in \(pages) pages")
        }
        return ExitStatus.ok
    }

    static func classLevel(_ text: String) -> PubNubDataSyncClassLevel {
        switch text.lowercased() {
        case "global": return .global
        case "subkey": return .subKey
        case "account": return .account
        default: return PubNubDataSyncClassLevel(rawValue: text)
        }
    }

    /// `--sort a --sort b:desc` or `--sort a,b:desc`.
    static func sortFields(_ arguments: ParsedArguments) throws(UsageError) -> [PubNubDataSyncSortField] {
        var fields: [PubNubDataSyncSortField] = []
        for value in arguments.values("--sort") {
            for part in value.split(separator: ",", omittingEmptySubsequences: true) {
                let piece = part.trimmingCharacters(in: .whitespaces)
                if piece.hasSuffix(":desc") {
                    fields.append(.init(property: String(piece.dropLast(5)), ascending: false))
                } else if piece.hasSuffix(":asc") {
                    fields.append(.init(property: String(piece.dropLast(4)), ascending: true))
                } else if let colon = piece.lastIndex(of: ":") {
                    let direction = String(piece[piece.index(after: colon)...])
                    throw UsageError(
                        "--sort \(value): the direction after ':' must be asc or desc, not '\(direction)'",
                        suggestion: EditDistance.suggestion(for: direction, among: ["asc", "desc"]),
                        command: arguments.commandName)
                } else {
                    fields.append(.init(property: piece))
                }
            }
        }
        return fields
    }

    // MARK: set

    private static func set(_ kind: ObjectKind) -> Command<CommandAction> {
        Command(
            name: "set", summary: "replaces a \(kind.singular) in full (fields left out are cleared) and prints it",
            discussion:
                "The class, its level\(kind.isEntity ? "" : " and the linked ids") are fixed at creation and cannot be set.",
            options: [classVersionOption(listing: false), statusOption, payloadOption, jsonOption(kind), etagOption],
            positionals: [idArgument(kind)],
            examples: [
                #"datasync \#(kind.rawValue) set \#(exampleId(kind)) --class-version 1 --status active --payload '{"a":1}'"#,
                "datasync \(kind.rawValue) get \(exampleId(kind)) | jq '.payload.a = 2' | datasync \(kind.rawValue) set \(exampleId(kind)) --json -",
            ],
            action: { invocation in
                let id = invocation.positional("ID")
                let fields = try ObjectFields.read(kind, invocation, allowsLinks: false)
                let version = try fields.required(fields.classVersion, "--class-version", invocation)
                let etag = invocation.arguments.value("--if-matches-etag")
                let object = try await kind.calls(invocation.client().dataSync).set(
                    id, version, fields.status, fields.payload, etag)
                invocation.emit(object)
                return ExitStatus.ok
            })
    }

    // MARK: update

    private static func update(_ kind: ObjectKind) -> Command<CommandAction> {
        Command(
            name: "update", summary: "applies JSON Patch (RFC 6902) operations to a \(kind.singular) and prints it",
            discussion:
                "Paths are full JSON Pointers: /payload/price, not /price; /status for the status. The operations "
                + "apply together or not at all; a failed test operation answers 409.",
            options: [
                .value(
                    "--operations", "JSON", aliases: ["--ops"],
                    help: "a JSON array of operations, or one operation object (JSON text, @FILE, or - for stdin)",
                    required: true),
                etagOption,
            ],
            positionals: [idArgument(kind)],
            examples: [
                #"datasync \#(kind.rawValue) update \#(exampleId(kind)) --ops '[{"op":"replace","path":"/payload/a","value":2}]'"#,
                #"datasync \#(kind.rawValue) update \#(exampleId(kind)) --ops '{"op":"remove","path":"/status"}' --if-match AbQd"#,
            ],
            action: { invocation in
                let id = invocation.positional("ID")
                let operations = try patchOperations(invocation)
                let etag = invocation.arguments.value("--if-matches-etag")
                let object = try await kind.calls(invocation.client().dataSync).update(id, operations, etag)
                invocation.emit(object)
                return ExitStatus.ok
            })
    }

    /// `--operations`: an array of RFC 6902 operations, or a single one.
    static func patchOperations(_ invocation: Invocation) throws(UsageError) -> [PubNubDataSyncPatchOperation] {
        let text = invocation.arguments.value("--operations") ?? "[]"
        let document = try JSONArgument.read(text, option: "--operations", context: invocation.context)
        let list: [JSONValue] = document.arrayValue ?? [document]
        var operations: [PubNubDataSyncPatchOperation] = []
        for (index, item) in list.enumerated() {
            do {
                operations.append(try item.decode(PubNubDataSyncPatchOperation.self))
            } catch {
                let ops = ["add", "remove", "replace", "move", "copy", "test"]
                let name = item["op"]?.stringValue
                throw UsageError(
                    "--operations: operation \(index) is not a JSON Patch operation ({\"op\",\"path\",…}): \(error)",
                    suggestion: name.flatMap { ops.contains($0) ? nil : EditDistance.suggestion(for: $0, among: ops) },
                    command: invocation.arguments.commandName)
            }
        }
        if operations.isEmpty {
            throw UsageError("--operations needs at least one operation", command: invocation.arguments.commandName)
        }
        return operations
    }

    // MARK: remove

    private static func remove(_ kind: ObjectKind) -> Command<CommandAction> {
        Command(
            name: "remove", aliases: ["delete"], summary: "deletes a \(kind.singular)",
            discussion: "Prints {\"id\":…,\"removed\":true} once the service confirms.",
            options: [etagOption], positionals: [idArgument(kind)],
            examples: ["datasync \(kind.rawValue) remove \(exampleId(kind))"],
            action: { invocation in
                let id = invocation.positional("ID")
                let etag = invocation.arguments.value("--if-matches-etag")
                try await kind.calls(invocation.client().dataSync).remove(id, etag)
                invocation.emit(["id": .string(id), "removed": true])
                return ExitStatus.ok
            })
    }
}
