import ArgumentParsing
import Auth
import DataSync
import DataSyncTestSupport
import Foundation
import Transport

/// `grant` and `token parse`: Access Manager from a shell, for an emulator (or a keyset of your
/// own) with access control on. `grant` holds the secret key, so it is a server-side tool, as
/// `AccessManagerTestServer` (which it sends through) is.
enum TokenCommands {
    static let secretEnvironment = "DATASYNC_SECRET_KEY"

    /// Permission letters, in the order of the bits.
    static let letters: [(Character, TokenPermission)] = [
        ("r", .read), ("w", .write), ("m", .manage), ("d", .delete), ("c", .create), ("g", .get), ("u", .update),
        ("j", .join),
    ]

    static var grant: Command<CommandAction> {
        Command(
            name: "grant", summary: "mints a token with the keyset's secret key (server-side; prints the token)",
            discussion:
                "Sends a signed POST /v3/pam/{sub}/grant to --origin for the subscribe and publish keys of the "
                + "settings. Each --resource or --pattern is BUCKET=NAME=PERMS: BUCKET as the grant request names it "
                + "(channels, groups, uuids, datasync:entities, datasync:relationships, datasync:memberships), NAME a "
                + "name (a regular expression for --pattern), PERMS letters r w m d c g u j (read, write, manage, "
                + "delete, create, get, update, join) or a number. The secret key is never printed.",
            options: [
                .value("--secret-key", "KEY", help: "the keyset's secret key (env \(secretEnvironment), safer)"),
                .value("--ttl", "MINUTES", help: "the token's lifetime in minutes (default 60)"),
                .value("--authorized-user-id", "ID", help: "the only user id that may use the token"),
                .repeated("--resource", "BUCKET=NAME=PERMS", help: "permissions on one name (repeatable)"),
                .repeated("--pattern", "BUCKET=REGEX=PERMS", help: "permissions on matching names (repeatable)"),
                .value("--meta", "JSON", help: "the token's meta object (text, @FILE or -)"),
            ],
            examples: [
                "export DATASYNC_SECRET_KEY=demo-secret",
                "datasync grant --authorized-user-id alice --resource channels=room-1=rw --pattern "
                    + "'datasync:entities=^order-.*=gu' --ttl 15",
                "export DATASYNC_TOKEN=$(datasync grant --resource channels=lobby=r | jq -r .token)",
            ],
            action: { invocation in try await runGrant(invocation) })
    }

    static var token: Command<CommandAction> {
        Command(
            name: "token", summary: "reads Access Manager tokens",
            subcommands: [
                Command(
                    name: "parse",
                    summary: "prints what a token grants: its user id, lifetime, resources, patterns and meta",
                    positionals: [
                        PositionalSpec(
                            name: "TOKEN", help: "the token, or - for standard input (default: the --token setting)",
                            required: false)
                    ],
                    examples: [
                        "datasync token parse \"$DATASYNC_TOKEN\"",
                        "datasync grant … | jq -r .token | datasync token parse -",
                    ],
                    action: { invocation in try parse(invocation) })
            ])
    }

    static func runGrant(_ invocation: Invocation) async throws -> Int32 {
        let arguments = invocation.arguments
        let command = arguments.commandName
        let settings = try invocation.settings()
        guard let secret = arguments.value("--secret-key") ?? invocation.context.environment[secretEnvironment],
            !secret.isEmpty
        else {
            throw UsageError(
                "grant needs the keyset's secret key: pass --secret-key KEY or set \(secretEnvironment)",
                kind: .missingArgument, option: "--secret-key", command: command)
        }
        invocation.console.addSecret(secret)
        guard let subscribeKey = settings.subscribeKey, let publishKey = settings.publishKey else {
            throw UsageError(
                "grant needs the subscribe and publish keys (--subscribe-key, --publish-key or their variables)",
                kind: .missingArgument, command: command)
        }
        let ttl = try arguments.int("--ttl", in: 1...43_200) ?? 60
        let resources = try table(arguments.values("--resource"), option: "--resource", command: command)
        let patterns = try table(arguments.values("--pattern"), option: "--pattern", command: command)
        guard !resources.isEmpty || !patterns.isEmpty else {
            throw UsageError(
                "grant needs at least one --resource or --pattern", kind: .missingArgument, command: command)
        }
        let meta = try invocation.jsonOption("--meta")
        let (host, port) = try FaultsCommand.hostAndPort(settings.origin, command: command)
        let server = AccessManagerTestServer(
            client: try PlatformHTTPClient.make(), scheme: settings.secure ? "https" : "http", host: host, port: port,
            publishKey: publishKey, subscribeKey: subscribeKey, secretKey: secret)
        let token: String
        do {
            token = try await server.grantToken(
                ttlMinutes: ttl, resources: resources, patterns: patterns,
                authorizedUUID: arguments.value("--authorized-user-id"), meta: meta ?? [:])
        } catch let failure as AccessManagerTestServer.Failure {
            throw AdminFailure(message: "the grant was refused: HTTP \(failure.status): \(failure.body)")
        } catch let error as TransportError {
            throw AdminFailure(message: "cannot reach \(settings.origin): \(error.message)")
        }
        invocation.emit(["token": .string(token), "ttlMinutes": .int(Int64(ttl))])
        return ExitStatus.ok
    }

    /// `BUCKET=NAME=PERMS` items as the grant body's table.
    static func table(_ items: [String], option: String, command: String) throws(UsageError) -> [String: [String: Int]]
    {
        var result: [String: [String: Int]] = [:]
        for item in items {
            guard let first = item.firstIndex(of: "="), let last = item.lastIndex(of: "="), first < last else {
                throw UsageError(
                    "\(option) takes BUCKET=NAME=PERMS, such as channels=room-1=rw, not '\(item)'",
                    kind: .invalidValue, option: option, command: command)
            }
            let bucket = String(item[..<first])
            let name = String(item[item.index(after: first)..<last])
            let text = String(item[item.index(after: last)...])
            guard !bucket.isEmpty, !name.isEmpty, let bits = permissions(text) else {
                throw UsageError(
                    "\(option) '\(item)': PERMS are letters of rwmdcguj or a number from 1 to 255",
                    kind: .invalidValue, option: option, command: command)
            }
            result[bucket, default: [:]][name] = bits
        }
        return result
    }

    static func permissions(_ text: String) -> Int? {
        if let number = Int(text) { return (1...255).contains(number) ? number : nil }
        var bits = 0
        for character in text.lowercased() {
            guard let permission = letters.first(where: { $0.0 == character })?.1 else { return nil }
            bits |= Int(permission.rawValue)
        }
        return bits == 0 ? nil : bits
    }

    static func parse(_ invocation: Invocation) throws -> Int32 {
        let command = invocation.arguments.commandName
        var text = invocation.arguments.named["TOKEN"]
        if text == "-" {
            text = String(decoding: try invocation.context.standardInput(for: "TOKEN"), as: UTF8.self)
        } else if text == nil {
            text = try invocation.settings().token
        }
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw UsageError(
                "no token: give TOKEN, - for standard input, or set --token / DATASYNC_TOKEN",
                kind: .missingArgument, command: command)
        }
        let token: AccessToken
        do throws(AuthError) {
            token = try AccessToken(parsing: text)
        } catch {
            throw UsageError("not a token: \(error)", kind: .invalidValue, option: "TOKEN", command: command)
        }
        func grants(_ grants: TokenGrants) -> JSONValue {
            var object: JSONObject = [:]
            for (bucket, names) in grants.buckets where !names.isEmpty {
                var entries: JSONObject = [:]
                for (name, permission) in names { entries[name] = .string(permission.description) }
                object[bucket.rawValue] = .object(entries)
            }
            return .object(object)
        }
        let formatter = ISO8601DateFormatter()
        var result: JSONObject = [
            "version": .int(Int64(token.version)), "issuedAt": .string(formatter.string(from: token.issuedAt)),
            "ttlMinutes": .int(Int64(token.ttlMinutes)), "expiresAt": .string(formatter.string(from: token.expiresAt)),
            "expired": .bool(token.isExpired(at: Date())), "resources": grants(token.resources),
            "patterns": grants(token.patterns), "meta": token.meta,
        ]
        if let user = token.authorizedUserID { result["authorizedUserId"] = .string(user) }
        invocation.emit(.object(result))
        return ExitStatus.ok
    }
}
