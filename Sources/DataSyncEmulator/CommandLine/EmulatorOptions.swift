import Foundation
import JSONCore

/// The command-line options of a standalone emulator, parsed once for every executable that
/// starts one (`datasync-emulator`, and `datasync emulator` of the `datasync` CLI), so their flags
/// cannot drift apart.
///
/// ```swift
/// switch try EmulatorOptions.parse(["--port", "8090", "--access-control"]) {
/// case .help:
///     print(EmulatorOptions.usage(program: "my-emulator"))
/// case .run(let options):
///     let emulator = try Emulator(configuration: try options.configuration())
///     let url = try await emulator.start(host: options.host, port: options.port)
///     print("origin: \(url)")
/// }
/// ```
///
/// The flags (see Documentation/Emulator.md, "Start it"): `--host ADDRESS`, `--port N`,
/// `--classes FILE`, `--seed FILE`, `--state-file FILE`, `--filter-fast-limit N`,
/// `--publish-key K`, `--subscribe-key K`, `--secret-key K`, `--keyset PUB:SUB:SECRET`
/// (repeatable), `--access-control`, `--catch-up-buffer N`, `--presence-announce-max N`,
/// `--presence-interval SECONDS`, and `--help` (or `-h`). Each flag takes its value as the next
/// argument.
public struct EmulatorOptions: Sendable, Hashable {
    /// `--host`: the address to listen on (default `127.0.0.1`).
    public var host = "127.0.0.1"
    /// `--port`: the port to listen on; 0 (the default) lets the system choose.
    public var port: UInt16 = 0
    /// `--classes`: a class-document file every keyset starts with.
    public var classesFile: String?
    /// `--seed`: a seed-document file of objects to create at start.
    public var seedFile: String?
    /// `--state-file`: where the state is kept across restarts.
    public var stateFile: String?
    /// `--filter-fast-limit`: the most conditions a `filter_fast` expression may hold (default 10).
    public var filterFastLimit = 10
    /// `--publish-key`: the main pub/sub keyset's publish key (default `demo`).
    public var publishKey = PubSubKeyset.demo.publishKey
    /// `--subscribe-key`: the main pub/sub keyset's subscribe key (default `demo`).
    public var subscribeKey = PubSubKeyset.demo.subscribeKey
    /// `--secret-key`: the main pub/sub keyset's secret key (default `demo-secret`).
    public var secretKey = PubSubKeyset.demo.secretKey
    /// Whether `--secret-key` was given: access control is then on for the main keyset.
    public var secretKeyGiven = false
    /// `--access-control`: access control on for every keyset.
    public var accessControl = false
    /// `--keyset PUB:SUB:SECRET`: further pub/sub keysets, in the order given.
    public var extraKeysets: [PubSubKeyset] = []
    /// `--catch-up-buffer`: events kept per keyset for catch-up.
    public var catchUpBuffer = PubSubConfiguration().catchUpBufferSize
    /// `--presence-announce-max`: the occupancy above which a channel sends `interval` events.
    public var announceMax = PubSubConfiguration().presenceAnnounceMax
    /// `--presence-interval`: seconds between `interval` events.
    public var presenceInterval = PubSubConfiguration().presenceInterval
    /// `--max-connections` and `--max-buffered-request-bytes`: the HTTP server's limits
    /// (Documentation/Emulator.md, "Limits").
    public var serverLimits = EmulatorServerLimits()
    /// `--admin-secret`: the bearer secret the admin routes and the console require; `nil` lets
    /// the emulator decide (open on loopback without access control, a random secret otherwise).
    public var adminSecret: String?
    /// Whether to print no line per answered request (`--no-request-lines`); by default one is
    /// printed for each. The in-memory request log (the console's, `GET /_emulator/v1/requests`)
    /// keeps every entry either way.
    public var quietRequests = false
    /// `--allowed-host NAME` (repeatable): host names answered besides loopback ones while the
    /// emulator listens on loopback (``EmulatorConfiguration/allowedHosts``).
    public var allowedHosts: [String] = []

    /// Options with every default: `127.0.0.1`, an ephemeral port, the demo keyset, access
    /// control off.
    public init() {}

    /// What the arguments asked for.
    public enum Parsed: Sendable, Hashable {
        /// Start an emulator with these options.
        case run(EmulatorOptions)
        /// `--help` or `-h`: print ``EmulatorOptions/usage(program:)`` and stop.
        case help
    }

    /// Every flag, in the order the usage lists them (`-h` aside), for suggestions and
    /// completion.
    public static let optionNames = [
        "--host", "--port", "--classes", "--seed", "--state-file", "--filter-fast-limit", "--publish-key",
        "--subscribe-key", "--secret-key", "--keyset", "--access-control", "--catch-up-buffer",
        "--presence-announce-max", "--presence-interval", "--max-connections", "--max-buffered-request-bytes",
        "--admin-secret", "--no-request-lines", "--allowed-host", "--help",
    ]

    /// Whether access control is on for the main keyset: `--secret-key` or `--access-control`
    /// was given.
    public var mainKeysetProtected: Bool { secretKeyGiven || accessControl }

    /// The usage text, with `program` as the command name (continuation lines are aligned
    /// under it).
    ///
    /// - Parameter program: the name shown after `usage:`, such as `datasync-emulator`.
    /// - Returns: the text, without a trailing newline.
    public static func usage(program: String = "datasync-emulator") -> String {
        let indent = String(repeating: " ", count: "usage: ".count + program.count + 1)
        return """
            usage: \(program) [--host ADDRESS] [--port N] [--classes FILE] [--seed FILE]
            \(indent)[--state-file FILE] [--filter-fast-limit N]
            \(indent)[--publish-key K] [--subscribe-key K] [--secret-key K]
            \(indent)[--keyset PUB:SUB:SECRET]... [--access-control] [--catch-up-buffer N]
            \(indent)[--presence-announce-max N] [--presence-interval SECONDS]
            \(indent)[--max-connections N] [--max-buffered-request-bytes N] [--admin-secret S]
            \(indent)[--no-request-lines] [--allowed-host NAME]...

            Access control is off unless --secret-key is given (it then covers the main keyset) or
            --access-control is passed (every keyset; the default secret key is demo-secret).
            """
    }

    /// Parses command-line arguments (without the program name), left to right.
    ///
    /// - Parameter arguments: the arguments, such as `["--port", "8090"]`.
    /// - Returns: ``Parsed/help`` as soon as `--help` or `-h` is met, otherwise the options.
    /// - Throws: ``EmulatorOptionsError`` for the first unknown option, missing value or
    ///   value out of range.
    public static func parse(_ arguments: [String]) throws(EmulatorOptionsError) -> Parsed {
        var options = EmulatorOptions()
        var index = 0
        func value(_ name: String) throws(EmulatorOptionsError) -> String {
            index += 1
            guard index < arguments.count else {
                throw EmulatorOptionsError(code: .missingValue, option: name, message: "\(name) needs a value")
            }
            return arguments[index]
        }
        func invalid(_ name: String, _ message: String) -> EmulatorOptionsError {
            EmulatorOptionsError(code: .invalidValue, option: name, message: message)
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--host": options.host = try value(argument)
            case "--port":
                guard let port = UInt16(try value(argument)) else { throw invalid(argument, "--port takes 0 to 65535") }
                options.port = port
            case "--classes": options.classesFile = try value(argument)
            case "--seed": options.seedFile = try value(argument)
            case "--state-file": options.stateFile = try value(argument)
            case "--filter-fast-limit":
                guard let limit = Int(try value(argument)), limit >= 1 else {
                    throw invalid(argument, "--filter-fast-limit takes a positive number")
                }
                options.filterFastLimit = limit
            case "--publish-key": options.publishKey = try value(argument)
            case "--subscribe-key":
                let key = try value(argument)
                if let refusal = KeysetName.refusal(key) { throw invalid(argument, "--subscribe-key: \(refusal)") }
                options.subscribeKey = key
            case "--secret-key":
                let secret = try value(argument)
                // An empty secret signs grants and requests that anyone can forge.
                guard !secret.isEmpty else { throw invalid(argument, "--secret-key takes a non-empty secret key") }
                options.secretKey = secret
                options.secretKeyGiven = true
            case "--access-control": options.accessControl = true
            case "--keyset":
                let parts = try value(argument).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw invalid(argument, "--keyset takes PUBLISH:SUBSCRIBE:SECRET")
                }
                if let refusal = KeysetName.refusal(parts[1]) { throw invalid(argument, "--keyset: \(refusal)") }
                guard !parts[2].isEmpty else {
                    throw invalid(
                        argument,
                        "--keyset \(parts[0]):\(parts[1]): has an empty secret key: give PUBLISH:SUBSCRIBE:SECRET with a "
                            + "non-empty SECRET (an empty one signs grants anyone can forge)")
                }
                options.extraKeysets.append(
                    PubSubKeyset(publishKey: parts[0], subscribeKey: parts[1], secretKey: parts[2]))
            case "--catch-up-buffer":
                guard let size = Int(try value(argument)), size >= 1 else {
                    throw invalid(argument, "--catch-up-buffer takes a positive number")
                }
                options.catchUpBuffer = size
            case "--presence-announce-max":
                guard let limit = Int(try value(argument)), limit >= 0 else {
                    throw invalid(argument, "--presence-announce-max takes a number")
                }
                options.announceMax = limit
            case "--presence-interval":
                guard let seconds = Int(try value(argument)), seconds >= 1 else {
                    throw invalid(argument, "--presence-interval takes a positive number of seconds")
                }
                options.presenceInterval = seconds
            case "--max-connections":
                guard let limit = Int(try value(argument)), limit >= 1 else {
                    throw invalid(argument, "--max-connections takes a positive number")
                }
                options.serverLimits.maximumConnections = limit
            case "--max-buffered-request-bytes":
                guard let limit = Int(try value(argument)), limit >= 1 else {
                    throw invalid(argument, "--max-buffered-request-bytes takes a positive number")
                }
                options.serverLimits.maximumBufferedRequestBytes = limit
            case "--admin-secret":
                let secret = try value(argument)
                guard !secret.isEmpty else { throw invalid(argument, "--admin-secret takes a non-empty secret") }
                options.adminSecret = secret
            case "--no-request-lines": options.quietRequests = true
            case "--allowed-host":
                let name = try value(argument)
                guard HostPolicy.normalizedName(name) != nil else {
                    throw invalid(argument, "--allowed-host takes a host name, such as myapp.test")
                }
                options.allowedHosts.append(name)
            case "--help", "-h":
                return .help
            default:
                throw EmulatorOptionsError(
                    code: .unknownOption, option: argument, message: "unknown option \(argument)")
            }
            index += 1
        }
        return .run(options)
    }

    /// The emulator configuration these options describe: the class and seed documents read
    /// from their files, the main keyset (protected when ``mainKeysetProtected``) followed by the
    /// ``extraKeysets`` (protected with `--access-control`).
    ///
    /// - Returns: the configuration to pass to ``Emulator/init(configuration:)``.
    /// - Throws: ``EmulatorOptionsError`` with ``EmulatorOptionsError/Code-swift.struct/unreadableFile``
    ///   or ``EmulatorOptionsError/Code-swift.struct/invalidFile`` when the classes or seed file
    ///   cannot be read or is not JSON.
    public func configuration() throws(EmulatorOptionsError) -> EmulatorConfiguration {
        let classes = try classesFile.map { path throws(EmulatorOptionsError) in
            try Self.readJSON(path, what: "classes", option: "--classes")
        }
        let seed = try seedFile.map { path throws(EmulatorOptionsError) in
            try Self.readJSON(path, what: "seed", option: "--seed")
        }
        let main = PubSubKeyset(
            publishKey: publishKey, subscribeKey: subscribeKey, secretKey: secretKey,
            accessControl: mainKeysetProtected)
        let extras = extraKeysets.map { keyset in
            var keyset = keyset
            keyset.accessControl = accessControl
            return keyset
        }
        var configuration = EmulatorConfiguration(
            filterFastConditionLimit: filterFastLimit, classes: classes, seed: seed, stateFile: stateFile,
            pubSub: PubSubConfiguration(
                keysets: [main] + extras, catchUpBufferSize: catchUpBuffer, presenceAnnounceMax: announceMax,
                presenceInterval: presenceInterval))
        configuration.serverLimits = serverLimits
        if let adminSecret { configuration.admin.secret = adminSecret }
        configuration.allowedHosts = allowedHosts
        return configuration
    }

    private static func readJSON(_ path: String, what: String, option: String) throws(EmulatorOptionsError)
        -> JSONValue
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EmulatorOptionsError(
                code: .unreadableFile, option: option, message: "cannot read the \(what) file \(path)")
        }
        do {
            return try JSONValue(parsing: [UInt8](data))
        } catch {
            throw EmulatorOptionsError(
                code: .invalidFile, option: option, message: "the \(what) file \(path) is not valid JSON: \(error)")
        }
    }
}

/// Why ``EmulatorOptions/parse(_:)`` or ``EmulatorOptions/configuration()`` refused the
/// arguments.
public struct EmulatorOptionsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. Open set: new codes may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code name.
        public var description: String { rawValue }

        /// An argument that is no known option.
        public static let unknownOption = Code(rawValue: "unknownOption")
        /// An option that takes a value came last.
        public static let missingValue = Code(rawValue: "missingValue")
        /// An option's value is out of range or malformed.
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// The classes or seed file cannot be read.
        public static let unreadableFile = Code(rawValue: "unreadableFile")
        /// The classes or seed file is not valid JSON.
        public static let invalidFile = Code(rawValue: "invalidFile")
    }

    /// The kind of failure.
    public var code: Code
    /// The argument the failure is about (`--port`, or the unknown argument itself).
    public var option: String
    /// A one-line explanation, such as `--port takes 0 to 65535`.
    public var message: String

    /// Creates an error.
    public init(code: Code, option: String, message: String) {
        self.code = code
        self.option = option
        self.message = message
    }

    /// Whether the usage text should follow the message: for an unknown option or a missing
    /// value, where the reader needs the list of flags.
    public var showsUsage: Bool { code == .unknownOption || code == .missingValue }

    /// The message.
    public var description: String { message }
}
