package import ArgumentParsing
import Foundation
import JSONCore
public import PubNubBase

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
    /// `--port`: the port to listen on; ``defaultPort`` (8090) unless given, 0 lets the system
    /// choose a free one.
    public var port: UInt16 = EmulatorOptions.defaultPort
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
    /// `--max-connections`, `--max-buffered-request-bytes` and `--event-loops`: the HTTP server's
    /// limits (Documentation/Emulator.md, "Limits").
    public var serverLimits = EmulatorServerLimits()
    /// `--admin-secret`: the bearer secret the admin routes and the console require; `nil` lets
    /// the emulator decide (open on loopback without access control, a random secret otherwise).
    public var adminSecret: String?
    /// Whether to print no line per answered request (`--no-request-lines`); by default one is
    /// printed for each. The in-memory request log (the console's, `GET /_emulator/v1/requests`)
    /// keeps every entry either way.
    public var quietRequests = false
    /// `--log-level`: the least important records the executables print (`info` by default,
    /// which prints what they always did: one line per request, warnings on standard error).
    public var logLevel = PubNubLogLevel.info
    /// `--allowed-host NAME` (repeatable): host names answered besides loopback ones while the
    /// emulator listens on loopback (``EmulatorConfiguration/allowedHosts``).
    public var allowedHosts: [String] = []

    /// The port a standalone emulator listens on when `--port` is not given: 8090, the port the
    /// documentation's examples use, so `DATASYNC_ORIGIN=http://127.0.0.1:8090` works without
    /// reading the banner. Tests and scripts that run several pass `--port 0`.
    public static let defaultPort: UInt16 = 8090

    /// Options with every default: `127.0.0.1`, port ``defaultPort``, the demo keyset, access
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
    public static let optionNames = optionSpecs.map(\.name) + ["--help"]

    /// The flags as the package's shared argument parser reads them: the one table behind
    /// parsing, help, suggestions and shell completion of both executables.
    package static let optionSpecs: [OptionSpec] = [
        .value("--host", "ADDRESS", help: "the address to listen on (default 127.0.0.1)"),
        .value("--port", "N", help: "the port to listen on; 0 lets the system choose a free one (default 8090)"),
        .value("--classes", "FILE", help: "a class document every keyset starts with"),
        .value("--seed", "FILE", help: "a seed document of objects to create at start"),
        .value("--state-file", "FILE", help: "keep the state in FILE across restarts"),
        .value("--filter-fast-limit", "N", help: "the most conditions a filter_fast expression may hold (default 10)"),
        .value("--publish-key", "K", help: "the main keyset's publish key (default demo)"),
        .value("--subscribe-key", "K", help: "the main keyset's subscribe key (default demo)"),
        .value("--secret-key", "K", help: "the main keyset's secret key; turns access control on for it"),
        .repeated("--keyset", "PUB:SUB:SECRET", help: "one more pub/sub keyset (repeatable)"),
        .flag("--access-control", help: "access control on for every keyset (default secret key demo-secret)"),
        .value("--catch-up-buffer", "N", help: "events kept per keyset for catch-up"),
        .value("--presence-announce-max", "N", help: "the occupancy above which a channel sends interval events"),
        .value("--presence-interval", "SECONDS", help: "seconds between presence interval events"),
        .value("--max-connections", "N", help: "the most connections the server holds at once"),
        .value("--max-buffered-request-bytes", "N", help: "the most request bytes buffered across connections"),
        .value("--event-loops", "N", help: "the server's event-loop threads, 1 to 8 (default 2, or 1 on one core)"),
        .value("--admin-secret", "S", help: "the bearer secret the admin routes and the console require"),
        .flag("--no-request-lines", help: "print no line per answered request"),
        .value(
            "--log-level", "LEVEL",
            help: "the least important records printed: debug, info, warning or error (default info)"),
        .repeated("--allowed-host", "NAME", help: "a host name answered besides loopback ones (repeatable)"),
        .value(
            "--config", "FILE",
            help: "read these flags from a JSON file first (default ./datasync.json when present); flags override it"),
    ]

    /// The command the shared parser reads: the options of ``optionSpecs`` and no arguments.
    package static func command<Action: Sendable>(program: String, action: Action? = nil) -> Command<Action> {
        Command(
            name: program, summary: "the local DataSync and pub/sub emulator",
            discussion:
                "Access control is off unless --secret-key is given (it then covers the main keyset) or "
                + "--access-control is passed (every keyset; the default secret key is demo-secret).",
            options: optionSpecs,
            examples: ["\(program) --port 8090", "\(program) --port 0 --access-control --seed seed.json"],
            action: action)
    }

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
            \(indent)[--max-connections N] [--max-buffered-request-bytes N] [--event-loops N]
            \(indent)[--admin-secret S] [--no-request-lines] [--log-level LEVEL]
            \(indent)[--allowed-host NAME]... [--config FILE]

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
        let parser = ArgumentParser<Never>(root: command(program: "datasync-emulator"))
        // Only a config file named with --config: a library call reads nothing it was not given.
        let expanded = try EmulatorConfigFile.expand(arguments, currentDirectory: nil).arguments
        let outcome: ParseOutcome<Never>
        do throws(UsageError) {
            outcome = try parser.parse(expanded)
        } catch {
            throw EmulatorOptionsError(error)
        }
        switch outcome {
        case .help, .version: return .help
        case .run(_, let parsed): return .run(try EmulatorOptions(parsed: parsed))
        }
    }

    /// The options the shared parser read (with ``command(program:action:)``), checked.
    ///
    /// - Throws: ``EmulatorOptionsError`` for the first value out of range or malformed.
    package init(parsed: ParsedArguments) throws(EmulatorOptionsError) {
        func invalid(_ name: String, _ message: String) -> EmulatorOptionsError {
            EmulatorOptionsError(code: .invalidValue, option: name, message: message)
        }
        func number(_ name: String, atLeast minimum: Int, _ message: String) throws(EmulatorOptionsError) -> Int? {
            guard let text = parsed.value(name) else { return nil }
            guard let value = Int(text), value >= minimum else { throw invalid(name, message) }
            return value
        }
        if let host = parsed.value("--host") { self.host = host }
        if let text = parsed.value("--port") {
            guard let port = UInt16(text) else { throw invalid("--port", "--port takes 0 to 65535") }
            self.port = port
        }
        classesFile = parsed.value("--classes")
        seedFile = parsed.value("--seed")
        stateFile = parsed.value("--state-file")
        if let limit = try number("--filter-fast-limit", atLeast: 1, "--filter-fast-limit takes a positive number") {
            filterFastLimit = limit
        }
        if let key = parsed.value("--publish-key") { publishKey = key }
        if let key = parsed.value("--subscribe-key") {
            if let refusal = KeysetName.refusal(key) { throw invalid("--subscribe-key", "--subscribe-key: \(refusal)") }
            subscribeKey = key
        }
        if let secret = parsed.value("--secret-key") {
            // An empty secret signs grants and requests that anyone can forge.
            guard !secret.isEmpty else { throw invalid("--secret-key", "--secret-key takes a non-empty secret key") }
            secretKey = secret
            secretKeyGiven = true
        }
        accessControl = parsed.flag("--access-control")
        for text in parsed.values("--keyset") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw invalid("--keyset", "--keyset takes PUBLISH:SUBSCRIBE:SECRET")
            }
            if let refusal = KeysetName.refusal(parts[1]) { throw invalid("--keyset", "--keyset: \(refusal)") }
            guard !parts[2].isEmpty else {
                throw invalid(
                    "--keyset",
                    "--keyset \(parts[0]):\(parts[1]): has an empty secret key: give PUBLISH:SUBSCRIBE:SECRET with a "
                        + "non-empty SECRET (an empty one signs grants anyone can forge)")
            }
            extraKeysets.append(PubSubKeyset(publishKey: parts[0], subscribeKey: parts[1], secretKey: parts[2]))
        }
        if let size = try number("--catch-up-buffer", atLeast: 1, "--catch-up-buffer takes a positive number") {
            catchUpBuffer = size
        }
        if let limit = try number("--presence-announce-max", atLeast: 0, "--presence-announce-max takes a number") {
            announceMax = limit
        }
        if let seconds = try number(
            "--presence-interval", atLeast: 1, "--presence-interval takes a positive number of seconds")
        {
            presenceInterval = seconds
        }
        if let limit = try number("--max-connections", atLeast: 1, "--max-connections takes a positive number") {
            serverLimits.maximumConnections = limit
        }
        if let limit = try number(
            "--max-buffered-request-bytes", atLeast: 1, "--max-buffered-request-bytes takes a positive number")
        {
            serverLimits.maximumBufferedRequestBytes = limit
        }
        if let loops = try number("--event-loops", atLeast: 1, "--event-loops takes 1 to 8") {
            guard loops <= 8 else { throw invalid("--event-loops", "--event-loops takes 1 to 8") }
            serverLimits.eventLoops = loops
        }
        if let secret = parsed.value("--admin-secret") {
            guard !secret.isEmpty else { throw invalid("--admin-secret", "--admin-secret takes a non-empty secret") }
            adminSecret = secret
        }
        quietRequests = parsed.flag("--no-request-lines")
        if let text = parsed.value("--log-level") {
            guard let level = PubNubLogLevel.allCases.first(where: { $0.description == text }) else {
                throw invalid("--log-level", "--log-level takes debug, info, warning or error, not '\(text)'")
            }
            logLevel = level
        }
        for name in parsed.values("--allowed-host") {
            guard HostPolicy.normalizedName(name) != nil else {
                throw invalid("--allowed-host", "--allowed-host takes a host name, such as myapp.test")
            }
            allowedHosts.append(name)
        }
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
        configuration.logsRequests = !quietRequests
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

    /// The shared parser's refusal, with the code that says what it is about and its
    /// did-you-mean in the message.
    package init(_ error: UsageError) {
        let code: Code
        switch error.kind {
        case .missingValue: code = .missingValue
        case .invalidValue: code = .invalidValue
        default: code = .unknownOption
        }
        var message = error.message
        if let suggestion = error.suggestion { message += " (did you mean '\(suggestion)'?)" }
        self.init(code: code, option: error.option ?? "", message: message)
    }

    /// Whether the usage text should follow the message: for an unknown option or a missing
    /// value, where the reader needs the list of flags.
    public var showsUsage: Bool { code == .unknownOption || code == .missingValue }

    /// The message.
    public var description: String { message }
}
