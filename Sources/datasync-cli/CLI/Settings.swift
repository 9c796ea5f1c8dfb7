import ArgumentParsing
import Foundation
import Messaging

/// Where a connection setting came from, for `--verbose` and error messages.
enum SettingSource: Sendable, Hashable, CustomStringConvertible {
    case flag(String)
    case environment(String)
    case configFile(path: String, key: String)
    case defaultValue

    var description: String {
        switch self {
        case .flag(let name): return "flag \(name)"
        case .environment(let name): return "environment \(name)"
        case .configFile(let path, let key): return "config file \(path) (\(key))"
        case .defaultValue: return "default"
        }
    }
}

/// One connection setting: its flag, environment variable and config-file key.
struct SettingName: Sendable, Hashable {
    var flag: String
    var environment: String
    var configKey: String

    static let origin = SettingName(flag: "--origin", environment: "DATASYNC_ORIGIN", configKey: "origin")
    static let subscribeKey = SettingName(
        flag: "--subscribe-key", environment: "DATASYNC_SUBSCRIBE_KEY", configKey: "subscribeKey")
    static let publishKey = SettingName(
        flag: "--publish-key", environment: "DATASYNC_PUBLISH_KEY", configKey: "publishKey")
    static let token = SettingName(flag: "--token", environment: "DATASYNC_TOKEN", configKey: "token")
    static let userId = SettingName(flag: "--user-id", environment: "DATASYNC_USER_ID", configKey: "userId")
    static let insecureHTTP = SettingName(
        flag: "--insecure-http", environment: "DATASYNC_INSECURE_HTTP", configKey: "insecureHTTP")
    /// The config file itself: a flag and a variable, no key.
    static let config = SettingName(flag: "--config", environment: "DATASYNC_CONFIG", configKey: "")

    /// Every key a config file may hold.
    static let configKeys = [origin, subscribeKey, publishKey, token, userId, insecureHTTP].map(\.configKey)
}

/// The connection settings of one run, each from the first place that has it: flags, then
/// environment variables, then the config file, then the default (Documentation/CLI.md,
/// "Connection settings").
struct ConnectionSettings: Sendable {
    /// The default origin: PubNub's.
    static let defaultOrigin = "ps.pndsn.com"
    /// The user id sent when none is set.
    static let defaultUserId = "datasync-cli"

    /// `host[:port]`, without scheme.
    var origin: String
    /// Whether to use HTTPS.
    var secure: Bool
    var subscribeKey: String?
    var publishKey: String?
    /// Never printed.
    var token: String?
    var userId: String
    /// The config file read, if any.
    var configFile: String?
    /// Where each setting came from, in display order.
    var sources: [(name: String, source: SettingSource)] = []

    /// Resolves the settings from the parsed global options, the environment and the config file.
    ///
    /// - Throws: ``UsageError`` for a config file named but missing, a config file that is not a
    ///   JSON object of known keys, a malformed origin, a boolean that is not one.
    static func resolve(
        _ arguments: ParsedArguments, environment: [String: String]
    ) throws(UsageError) -> ConnectionSettings {
        let file = try ConfigFile.load(arguments: arguments, environment: environment)
        var sources: [(String, SettingSource)] = []

        func lookup(_ name: SettingName) throws(UsageError) -> (String, SettingSource)? {
            if let value = arguments.value(name.flag) { return (value, .flag(name.flag)) }
            if let value = environment[name.environment], !value.isEmpty {
                return (value, .environment(name.environment))
            }
            if let file, let value = file.values[name.configKey] {
                guard let text = value.stringValue else {
                    throw UsageError("config file \(file.path): \"\(name.configKey)\" must be a string")
                }
                return (text, .configFile(path: file.path, key: name.configKey))
            }
            return nil
        }

        // Plain HTTP: the flag, a boolean variable, a boolean key.
        var insecure = false
        var insecureSource = SettingSource.defaultValue
        if arguments.flag(SettingName.insecureHTTP.flag) {
            insecure = true
            insecureSource = .flag(SettingName.insecureHTTP.flag)
        } else if let text = environment[SettingName.insecureHTTP.environment], !text.isEmpty {
            guard let flag = Self.boolean(text) else {
                throw UsageError(
                    "\(SettingName.insecureHTTP.environment) must be 1, true, yes, 0, false or no, not '\(text)'")
            }
            insecure = flag
            insecureSource = .environment(SettingName.insecureHTTP.environment)
        } else if let file, let value = file.values[SettingName.insecureHTTP.configKey] {
            guard let flag = value.boolValue else {
                throw UsageError("config file \(file.path): \"insecureHTTP\" must be true or false")
            }
            insecure = flag
            insecureSource = .configFile(path: file.path, key: SettingName.insecureHTTP.configKey)
        }

        var origin = defaultOrigin
        var secure = !insecure
        var originSource = SettingSource.defaultValue
        if let (text, source) = try lookup(.origin) {
            originSource = source
            var host = Substring(text)
            // `http://…` (as the emulator prints its origin) decides the scheme itself.
            if host.lowercased().hasPrefix("http://") {
                host = host.dropFirst("http://".count)
                secure = false
                insecureSource = source
            } else if host.lowercased().hasPrefix("https://") {
                host = host.dropFirst("https://".count)
                secure = true
                insecureSource = source
            }
            while host.hasSuffix("/") { host = host.dropLast() }
            origin = String(host)
        }
        do throws(PubNubError) {
            _ = try PubNubOrigin(origin, secure: secure)
        } catch {
            throw UsageError("invalid origin '\(origin)' (\(originSource)): \(error.message)")
        }
        sources.append(("origin", originSource))
        sources.append(("plain HTTP", insecureSource))

        let subscribeKey = try lookup(.subscribeKey)
        sources.append(("subscribe key", subscribeKey?.1 ?? .defaultValue))
        let publishKey = try lookup(.publishKey)
        sources.append(("publish key", publishKey?.1 ?? .defaultValue))
        let token = try lookup(.token)
        sources.append(("token", token?.1 ?? .defaultValue))
        let userId = try lookup(.userId)
        sources.append(("user id", userId?.1 ?? .defaultValue))

        return ConnectionSettings(
            origin: origin, secure: secure, subscribeKey: subscribeKey?.0, publishKey: publishKey?.0,
            token: token?.0, userId: userId?.0 ?? defaultUserId, configFile: file?.path, sources: sources)
    }

    /// `1`, `true`, `yes`, `on` and their opposites, without case.
    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: return nil
        }
    }

    /// The settings for `--verbose`: every value but the token, which only says whether it is set.
    var summary: [String] {
        sources.map { name, source in
            let value: String
            switch name {
            case "origin": value = (secure ? "https://" : "http://") + origin
            case "plain HTTP": value = secure ? "no" : "yes"
            case "subscribe key": value = subscribeKey ?? "(none)"
            case "publish key": value = publishKey ?? "(none)"
            case "token": value = token == nil ? "(none)" : "(set, not shown)"
            case "user id": value = userId
            default: value = ""
            }
            return "\(name): \(value)  [\(source)]"
        } + (configFile.map { ["config file: \($0)"] } ?? [])
    }
}

/// The optional config file: a JSON object with the keys of ``SettingName/configKeys``.
struct ConfigFile: Sendable {
    var path: String
    var values: JSONObject

    /// The file named by `--config`, else by `DATASYNC_CONFIG`, else the default path when it
    /// exists: `$XDG_CONFIG_HOME/datasync/config.json`, or `~/.config/datasync/config.json`.
    ///
    /// - Throws: ``UsageError`` when a named file is missing, or any file is not a JSON object of
    ///   known keys (the nearest key is suggested).
    static func load(arguments: ParsedArguments, environment: [String: String]) throws(UsageError) -> ConfigFile? {
        let named: (path: String, source: SettingSource)?
        if let path = arguments.value(SettingName.config.flag) {
            named = (path, .flag(SettingName.config.flag))
        } else if let path = environment[SettingName.config.environment], !path.isEmpty {
            named = (path, .environment(SettingName.config.environment))
        } else {
            named = nil
        }
        let path: String
        if let named {
            path = named.path
            guard FileManager.default.fileExists(atPath: path) else {
                throw UsageError("config file \(path) (\(named.source)) does not exist")
            }
        } else {
            guard let fallback = defaultPath(environment), FileManager.default.fileExists(atPath: fallback) else {
                return nil
            }
            path = fallback
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read the config file \(path)")
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: [UInt8](data))
        } catch {
            throw UsageError("config file \(path) is not valid JSON: \(error)")
        }
        guard let values = document.objectValue else {
            throw UsageError("config file \(path) must hold a JSON object, not \(document.typeName)")
        }
        for key in values.keys.sorted() where !SettingName.configKeys.contains(key) {
            throw UsageError(
                "unknown key \"\(key)\" in config file \(path) (known: "
                    + SettingName.configKeys.joined(separator: ", ") + ")",
                suggestion: EditDistance.suggestion(for: key, among: SettingName.configKeys))
        }
        return ConfigFile(path: path, values: values)
    }

    static func defaultPath(_ environment: [String: String]) -> String? {
        if let base = environment["XDG_CONFIG_HOME"], !base.isEmpty { return base + "/datasync/config.json" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/datasync/config.json" }
        return nil
    }
}
