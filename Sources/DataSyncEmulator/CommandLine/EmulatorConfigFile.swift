import ArgumentParsing
import Foundation
import JSONCore

/// The standalone emulator's config file (Documentation/Emulator.md, "Config file"): one JSON
/// object whose keys are the flags in camel case (`--state-file` is `stateFile`), read before the
/// flags so that any flag given overrides it.
///
/// It is turned into flags placed before the command line's own: a single-value flag given on
/// the command line wins (the last one wins), repeatable ones (`keysets`, `allowedHosts`) add to
/// the file's. Relative paths in it (`classes`, `seed`, `stateFile`) are relative to the file.
package enum EmulatorConfigFile {
    /// The file read from the current directory when `--config` is not given: `datasync.json`.
    package static let defaultName = "datasync.json"

    /// The keys holding paths, resolved against the file's directory.
    static let pathKeys: Set<String> = ["classes", "seed", "stateFile"]

    /// `--state-file` → `stateFile`.
    static func key(for flag: String) -> String {
        var key = ""
        var upper = false
        for character in flag.drop(while: { $0 == "-" }) {
            if character == "-" {
                upper = true
            } else {
                key += upper ? character.uppercased() : String(character)
                upper = false
            }
        }
        // Repeatable flags read as plural keys: `keysets`, `allowedHosts`.
        if EmulatorOptions.optionSpecs.contains(where: { $0.name == flag && $0.kind == .repeated }) { key += "s" }
        return key
    }

    /// The arguments with the config file's flags put first and `--config FILE` taken out, and
    /// the file read. Without `--config`, `defaultName` in `currentDirectory` is read when it
    /// exists (pass `nil` to read no file unless one is named).
    ///
    /// - Throws: ``EmulatorOptionsError`` for a named file that is missing (`unreadableFile`), a
    ///   file that is not a JSON object (`invalidFile`), or an unknown key or a value of the wrong
    ///   type (`invalidValue`, naming the nearest key).
    package static func expand(_ arguments: [String], currentDirectory: String?) throws(EmulatorOptionsError) -> (
        arguments: [String], file: String?
    ) {
        var rest: [String] = []
        var named: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            if argument == "--config" {
                guard index + 1 < arguments.count else {
                    throw EmulatorOptionsError(
                        code: .missingValue, option: "--config", message: "--config needs a value")
                }
                named = arguments[index + 1]
                index += 2
                continue
            }
            if argument.hasPrefix("--config=") {
                named = String(argument.dropFirst("--config=".count))
                index += 1
                continue
            }
            rest.append(argument)
            index += 1
        }
        let path: String
        if let named {
            path = named
        } else if let currentDirectory {
            let candidate = (currentDirectory as NSString).appendingPathComponent(defaultName)
            guard FileManager.default.fileExists(atPath: candidate) else { return (rest, nil) }
            path = candidate
        } else {
            return (rest, nil)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EmulatorOptionsError(
                code: .unreadableFile, option: "--config", message: "cannot read the config file \(path)")
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: [UInt8](data))
        } catch {
            throw EmulatorOptionsError(
                code: .invalidFile, option: "--config", message: "the config file \(path) is not valid JSON: \(error)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        return (try flags(from: document, path: path, directory: directory) + rest, path)
    }

    /// The flags a config document stands for.
    static func flags(from document: JSONValue, path: String, directory: String) throws(EmulatorOptionsError)
        -> [String]
    {
        guard case .object(let object) = document else {
            throw EmulatorOptionsError(
                code: .invalidFile, option: "--config", message: "the config file \(path) must hold a JSON object")
        }
        let specs = Dictionary(uniqueKeysWithValues: EmulatorOptions.optionSpecs.map { (key(for: $0.name), $0) })
        var flags: [String] = []
        for name in object.keys.sorted() {
            guard let spec = specs[name] else {
                let known = specs.keys.sorted()
                var message = "unknown key \"\(name)\" in the config file \(path)"
                if let nearest = EditDistance.suggestion(for: name, among: known) {
                    message += " (did you mean \"\(nearest)\"?)"
                }
                throw EmulatorOptionsError(code: .invalidValue, option: "--config", message: message)
            }
            func wrong(_ expected: String) -> EmulatorOptionsError {
                EmulatorOptionsError(
                    code: .invalidValue, option: spec.name,
                    message: "\"\(name)\" in the config file \(path) must be \(expected)")
            }
            func text(_ value: JSONValue) throws(EmulatorOptionsError) -> String {
                switch value {
                case .string(let string):
                    if pathKeys.contains(name), !string.hasPrefix("/") {
                        return (directory as NSString).appendingPathComponent(string)
                    }
                    return string
                case .int(let number): return String(number)
                default: throw wrong(spec.kind == .repeated ? "an array of strings" : "a string or a whole number")
                }
            }
            let value = object[name] ?? .null
            if case .null = value { continue }
            switch spec.kind {
            case .flag:
                guard case .bool(let on) = value else { throw wrong("true or false") }
                if on { flags.append(spec.name) }
            case .value:
                flags += [spec.name, try text(value)]
            case .repeated:
                guard case .array(let items) = value else { throw wrong("an array of strings") }
                for item in items { flags += [spec.name, try text(item)] }
            }
        }
        return flags
    }

    /// What `datasync init` writes: every common key with its default, `null` for those unset.
    package static func template(subscribeKey: String = "demo", publishKey: String = "demo") -> String {
        """
        {
          "host": "127.0.0.1",
          "port": \(EmulatorOptions.defaultPort),
          "publishKey": "\(publishKey)",
          "subscribeKey": "\(subscribeKey)",
          "secretKey": null,
          "accessControl": false,
          "keysets": [],
          "classes": null,
          "seed": null,
          "stateFile": "datasync-state.json",
          "adminSecret": null
        }

        """
    }
}
