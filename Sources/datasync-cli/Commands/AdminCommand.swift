import ArgumentParsing
import DataSync
import Foundation
import Transport

/// `admin export|import|reset|clock|classes`: the emulator's admin routes (`/_emulator/v1/…`,
/// Documentation/Emulator.md, "Admin routes") from a shell, with the same origin, secret and exit
/// statuses as `faults`.
enum AdminCommand {
    static let base = "/_emulator/v1"

    static var command: Command<CommandAction> {
        Command(
            name: "admin", summary: "a local emulator's state and clock: export, import, reset, clock, classes",
            discussion:
                "Talks to the emulator's admin API at --origin; pass --admin-secret (or DATASYNC_ADMIN_SECRET) when "
                + "the emulator needs its secret. See Documentation/Emulator.md, \"Admin routes\".",
            subcommands: [export, importCommand, reset, clock, classes],
            examples: [
                "datasync admin export > fixtures.json", "datasync admin import @fixtures.json",
                "datasync admin reset --keyset demo", "datasync admin clock advance --days 31",
                "datasync admin classes",
            ])
    }

    static var export: Command<CommandAction> {
        Command(
            name: "export", summary: "prints the state as a seed document (what import and --seed read)",
            options: [
                .repeated("--keyset", "SUB", help: "only this keyset (repeatable; default all)"),
                FaultsCommand.secretOption,
            ],
            action: { invocation in
                let query = invocation.arguments.values("--keyset").map { HTTPQueryItem(name: "keyset", value: $0) }
                invocation.emit(try await send(invocation, .get, "/export", query: query))
                return ExitStatus.ok
            })
    }

    static var importCommand: Command<CommandAction> {
        Command(
            name: "import", summary: "replaces the keysets a seed document names with its objects",
            options: [FaultsCommand.secretOption],
            positionals: [PositionalSpec(name: "SEED", help: "the seed document: JSON text, @FILE or - for stdin")],
            examples: ["datasync admin import @fixtures.json", "datasync admin export | datasync admin import -"],
            action: { invocation in
                let seed = try JSONArgument.read(
                    invocation.positional("SEED"), option: "SEED", context: invocation.context)
                invocation.emit(try await send(invocation, .post, "/import", body: seed))
                return ExitStatus.ok
            })
    }

    static var reset: Command<CommandAction> {
        Command(
            name: "reset", summary: "empties one keyset (--keyset) or every keyset (--all)",
            options: [
                .value("--keyset", "SUB", help: "the keyset to empty"),
                .flag("--all", help: "empty every keyset"),
                FaultsCommand.secretOption,
            ],
            action: { invocation in
                let arguments = invocation.arguments
                switch (arguments.value("--keyset"), arguments.flag("--all")) {
                case (let keyset?, false):
                    let path = "/keysets/" + (keyset.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                    invocation.emit(try await send(invocation, .post, path + "/reset"))
                case (nil, true):
                    invocation.emit(try await send(invocation, .post, "/reset"))
                default:
                    throw UsageError(
                        "give exactly one of --keyset SUB and --all", kind: .missingArgument,
                        command: arguments.commandName)
                }
                return ExitStatus.ok
            })
    }

    static var clock: Command<CommandAction> {
        let units = ["seconds", "minutes", "hours", "days"]
        return Command(
            name: "clock", summary: "reads, advances or sets the emulator's clock (TTLs, expiry, presence)",
            subcommands: [
                Command(
                    name: "show", summary: "prints the clock: now, unixMicros, timetoken, stopped",
                    options: [FaultsCommand.secretOption],
                    action: { invocation in
                        invocation.emit(try await send(invocation, .get, "/clock"))
                        return ExitStatus.ok
                    }),
                Command(
                    name: "advance", summary: "moves the clock forward and sweeps what expired",
                    options: units.map { .value("--" + $0, "N", help: "this many \($0)") } + [
                        FaultsCommand.secretOption
                    ],
                    examples: ["datasync admin clock advance --days 31", "datasync admin clock advance --seconds 90"],
                    action: { invocation in
                        var query: [HTTPQueryItem] = []
                        for unit in units {
                            guard let text = invocation.arguments.value("--" + unit) else { continue }
                            guard let number = Double(text), number.isFinite, number >= 0 else {
                                throw UsageError(
                                    "option '--\(unit)' takes a number of at least 0, not '\(text)'",
                                    kind: .invalidValue, option: "--" + unit,
                                    command: invocation.arguments.commandName)
                            }
                            query.append(HTTPQueryItem(name: unit, value: text))
                        }
                        guard !query.isEmpty else {
                            throw UsageError(
                                "give how far: --seconds, --minutes, --hours or --days", kind: .missingArgument,
                                command: invocation.arguments.commandName)
                        }
                        invocation.emit(try await send(invocation, .post, "/clock/advance", query: query))
                        return ExitStatus.ok
                    }),
                Command(
                    name: "set", summary: "stops the clock at a time (ISO 8601) and sweeps what expired",
                    options: [FaultsCommand.secretOption],
                    positionals: [PositionalSpec(name: "TIME", help: "such as 2030-01-01T00:00:00Z")],
                    action: { invocation in
                        let time = invocation.positional("TIME")
                        invocation.emit(
                            try await send(
                                invocation, .post, "/clock/set", query: [HTTPQueryItem(name: "time", value: time)]))
                        return ExitStatus.ok
                    }),
            ])
    }

    static var classes: Command<CommandAction> {
        Command(
            name: "classes", summary: "lists each keyset's entity and relationship classes (NDJSON, one keyset a line)",
            options: [
                .value("--keyset", "SUB", help: "only this keyset"),
                FaultsCommand.secretOption,
            ],
            action: { invocation in
                let reply = try await send(invocation, .get, "/keysets")
                let wanted = invocation.arguments.value("--keyset")
                for keyset in reply["keysets"]?.arrayValue ?? [] {
                    guard let key = keyset["subscribeKey"]?.stringValue, wanted == nil || wanted == key else {
                        continue
                    }
                    invocation.emitLine([
                        "subscribeKey": .string(key),
                        "entityClasses": keyset["entityClasses"] ?? [],
                        "relationshipClasses": keyset["relationshipClasses"] ?? [],
                    ])
                }
                return ExitStatus.ok
            })
    }

    static func send(
        _ invocation: Invocation, _ method: HTTPMethod, _ path: String, body: JSONValue? = nil,
        query: [HTTPQueryItem] = []
    ) async throws -> JSONValue {
        try await FaultsCommand.send(
            invocation, method: method, path: path, body: body, base: base, query: query, what: "the request")
    }
}
