import ArgumentParsing
import DataSync
import Foundation
import Transport

/// `faults add|list|clear`: the emulator's fault registry (`/_emulator/v1/faults`), so a script
/// or an app's test can make the emulator fail on purpose without any Swift.
enum FaultsCommand {
    static let secretEnvironment = "DATASYNC_ADMIN_SECRET"

    static let secretOption = OptionSpec.value(
        "--admin-secret", "SECRET",
        help: "the emulator's admin secret, when it needs one; never printed (env \(secretEnvironment), safer)")

    static var command: Command<CommandAction> {
        Command(
            name: "faults", summary: "makes a local emulator fail on purpose: add, list and clear faults",
            discussion:
                "Talks to the emulator's admin API at --origin. A fault matches requests of a route family (and "
                + "optionally a method, a path prefix, a channel) and fires for --count requests or with a "
                + "--probability. Delays and blackholes run on the emulator's clock. See Documentation/Emulator.md, "
                + "\"Faults\".",
            subcommands: [add, list, clear],
            examples: [
                "datasync faults add --kind status --status 500 --family publish --count 2",
                "datasync faults add --kind blackhole --seconds 30 --family subscribe",
                "datasync faults list", "datasync faults clear",
            ])
    }

    static var add: Command<CommandAction> {
        Command(
            name: "add", summary: "adds one fault and prints it with its id",
            discussion:
                "kinds: status (answers --status with --body, or the service's error envelope), delay (waits "
                + "--seconds, then answers), reset (closes without an answer), truncate (sends --bytes of the body, "
                + "half by default, then closes), blackhole (holds --seconds without answering, then closes). "
                + "--json gives the whole fault as JSON instead.",
            options: [
                .value(
                    "--kind", "KIND", help: "what happens",
                    choices: ["status", "delay", "reset", "truncate", "blackhole"]),
                .value(
                    "--family", "FAMILY",
                    help: "datasync, publish, signal, subscribe, presence, channel-groups, access-manager, time, any",
                    choices: [
                        "datasync", "publish", "signal", "subscribe", "presence", "channel-groups", "access-manager",
                        "time", "any",
                    ]),
                .value("--method", "METHOD", help: "only requests with this HTTP method"),
                .value("--path-prefix", "PATH", help: "only requests whose path starts with PATH"),
                .value("--channel", "CHANNEL", help: "only requests that name this channel"),
                .value("--count", "N", help: "fire for N requests (default 1; unlimited with --probability)"),
                .value("--probability", "P", help: "fire on this share of matching requests, above 0 and at most 1"),
                .value("--status", "CODE", help: "the status of a status fault"),
                .value("--body", "JSON", help: "the body of a status fault (text, @FILE or -)"),
                .value("--seconds", "S", help: "how long a delay or blackhole lasts"),
                .value("--bytes", "N", help: "how many body bytes a truncate sends"),
                .value("--json", "JSON", help: "the whole fault as JSON (text, @FILE or -), instead of the options"),
                secretOption,
            ],
            examples: [
                "datasync faults add --kind status --status 503 --family datasync --method PATCH",
                "datasync faults add --kind reset --family publish --channel alerts --probability 0.3",
                #"datasync faults add --json '{"kind":"delay","seconds":5,"family":"time"}'"#,
            ],
            action: { invocation in
                let fault = try describe(invocation)
                let reply = try await send(invocation, method: .post, path: "", body: fault)
                invocation.emit(reply)
                return ExitStatus.ok
            })
    }

    static var list: Command<CommandAction> {
        Command(
            name: "list", summary: "prints the queued faults, with what is left of each (NDJSON, one per line)",
            options: [secretOption],
            action: { invocation in
                let reply = try await send(invocation, method: .get, path: "", body: nil)
                for fault in reply["faults"]?.arrayValue ?? [] { invocation.emitLine(fault) }
                return ExitStatus.ok
            })
    }

    static var clear: Command<CommandAction> {
        Command(
            name: "clear", summary: "removes one fault by id, or all of them",
            options: [secretOption],
            positionals: [PositionalSpec(name: "ID", help: "the fault to remove (default: all)", required: false)],
            examples: ["datasync faults clear", "datasync faults clear f3"],
            action: { invocation in
                let id = invocation.arguments.named["ID"]
                let path = id.map { "/" + (percentEncoded($0)) } ?? ""
                invocation.emit(try await send(invocation, method: .delete, path: path, body: nil))
                return ExitStatus.ok
            })
    }

    /// The fault the options (or `--json`) describe; the emulator checks it and names a bad field.
    static func describe(_ invocation: Invocation) throws(UsageError) -> JSONValue {
        let arguments = invocation.arguments
        let command = arguments.commandName
        let optionNames = [
            "--kind", "--family", "--method", "--path-prefix", "--channel", "--count", "--probability", "--status",
            "--body", "--seconds", "--bytes",
        ]
        if let text = arguments.value("--json") {
            if let other = optionNames.first(where: { arguments.value($0) != nil }) {
                throw UsageError("--json and \(other) cannot be given together", command: command)
            }
            return try JSONArgument.read(text, option: "--json", context: invocation.context)
        }
        guard let kind = arguments.value("--kind") else {
            throw UsageError("--kind is required (or give the whole fault with --json)", command: command)
        }
        var fault: [String: JSONValue] = ["kind": .string(kind)]
        for (option, key) in [
            ("--family", "family"), ("--method", "method"), ("--path-prefix", "pathPrefix"), ("--channel", "channel"),
        ] {
            if let value = arguments.value(option) { fault[key] = .string(value) }
        }
        if let count = try arguments.int("--count", in: 1...Int.max) { fault["count"] = .int(Int64(count)) }
        if let status = try arguments.int("--status", in: 100...999) { fault["status"] = .int(Int64(status)) }
        if let bytes = try arguments.int("--bytes", in: 0...Int.max) { fault["bytes"] = .int(Int64(bytes)) }
        for (option, key) in [("--probability", "probability"), ("--seconds", "seconds")] {
            guard let text = arguments.value(option) else { continue }
            guard let number = Double(text), number.isFinite else {
                throw UsageError("option '\(option)' takes a number, not '\(text)'", command: command)
            }
            fault[key] = .double(number)
        }
        if let body = arguments.value("--body") {
            fault["body"] = try JSONArgument.read(body, option: "--body", context: invocation.context)
        }
        return .object(JSONObject(fault))
    }

    /// Sends one admin request under `base` (the fault registry unless told) and returns its JSON
    /// answer. `datasync admin` sends through it too.
    ///
    /// - Throws: ``UsageError`` for a request the emulator refused (`400`, naming `what`) or
    ///   settings it cannot use; ``AdminFailure`` when the emulator cannot be reached or answers
    ///   another error.
    static func send(
        _ invocation: Invocation, method: HTTPMethod, path: String, body: JSONValue?,
        base: String = "/_emulator/v1/faults", query: [HTTPQueryItem] = [], what: String = "the fault"
    ) async throws -> JSONValue {
        let settings = try invocation.settings()
        let command = invocation.arguments.commandName
        let secret = invocation.arguments.value("--admin-secret") ?? invocation.context.environment[secretEnvironment]
        if let secret { invocation.console.addSecret(secret) }
        let (host, port) = try hostAndPort(settings.origin, command: command)
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "application/json")
        if let secret, !secret.isEmpty { headers.add(name: "Authorization", value: "Bearer \(secret)") }
        var bytes: [UInt8]?
        if let body {
            bytes = try body.jsonBytes()
            headers.add(name: "Content-Type", value: "application/json")
        }
        let request = HTTPRequest(
            method: method, scheme: settings.secure ? "https" : "http", host: host, port: port,
            path: base + path, queryItems: query, headers: headers, body: bytes, timeout: .seconds(30))
        if invocation.arguments.flag("--verbose") {
            invocation.console.err(
                "datasync: http \(method.rawValue) \(request.scheme)://\(settings.origin)\(request.path)")
        }
        let response: HTTPResponse
        do {
            response = try await PlatformHTTPClient.make().send(request)
        } catch {
            throw AdminFailure(message: "cannot reach the emulator at \(settings.origin): \(error)")
        }
        let json = try? JSONValue(parsing: response.body)
        guard response.isSuccess, let json else {
            let message =
                json?["error"]?["message"]?.stringValue ?? String(decoding: response.body.prefix(300), as: UTF8.self)
            if response.status == 400 {
                throw UsageError("the emulator refused \(what): \(message)", command: command)
            }
            var text = "the emulator answered HTTP \(response.status): \(message)"
            if response.status == 401 {
                text += " (pass --admin-secret or set \(secretEnvironment); the emulator prints its secret at start)"
            } else if response.status == 404, path.isEmpty {
                text += " (is --origin a DataSync emulator with its admin API on?)"
            }
            throw AdminFailure(message: text)
        }
        return json
    }

    /// `host[:port]` split, brackets of an IPv6 literal removed.
    static func hostAndPort(_ origin: String, command: String) throws(UsageError) -> (String, Int?) {
        var host = Substring(origin)
        var port: Int?
        if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]") {
            guard let number = Int(host[host.index(after: colon)...]), (1...65_535).contains(number) else {
                throw UsageError("the origin '\(origin)' has no valid port", command: command)
            }
            port = number
            host = host[..<colon]
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return (String(host), port)
    }

    private static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

/// The emulator's admin API failed or could not be reached: exit status 1, like a service error.
struct AdminFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
