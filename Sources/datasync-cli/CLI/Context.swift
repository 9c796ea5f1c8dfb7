import ArgumentParsing
import DataSync
import Foundation

/// What a command runs: it gets the invocation and returns the exit status, or throws a
/// ``UsageError`` (status 2) or any other error (status 1).
typealias CommandAction = @Sendable (Invocation) async throws -> Int32

/// One run of a command: what was parsed, and the process around it.
struct Invocation: Sendable {
    let arguments: ParsedArguments
    let context: Context

    var console: Console { context.console }

    /// A positional argument's text; empty for an optional one that was not given (the parser
    /// has already refused a missing required one).
    func positional(_ name: String) -> String { arguments.named[name] ?? "" }

    /// The JSON that `option` gives (text, `@FILE` or `-`, as ``JSONArgument`` reads it), or nil
    /// when the option is absent.
    ///
    /// - Throws: ``UsageError`` naming the option, as ``JSONArgument/read(_:option:context:)``.
    func jsonOption(_ option: String) throws(UsageError) -> JSONValue? {
        guard let text = arguments.value(option) else { return nil }
        return try JSONArgument.read(text, option: option, context: context)
    }

    /// The connection settings of this run.
    ///
    /// - Throws: ``UsageError`` as ``ConnectionSettings/resolve(_:environment:)``.
    func settings() throws(UsageError) -> ConnectionSettings {
        try ConnectionSettings.resolve(arguments, environment: context.environment)
    }

    /// A client for the resolved settings; with `--verbose`, the settings (never the token) and
    /// every HTTP exchange (secret query values redacted) go to standard error.
    ///
    /// - Parameters:
    ///   - needsPublishKey: fail with a usage error when no publish key is set.
    ///   - middlewares: more middlewares for every request, after the logging one.
    /// - Throws: ``UsageError`` when the subscribe key (or a needed publish key) is missing or a
    ///   setting is malformed.
    func client(needsPublishKey: Bool = false, middlewares: [any HTTPMiddleware] = []) throws(UsageError) -> PubNub {
        let settings = try settings()
        if let token = settings.token { console.addSecret(token) }
        guard let subscribeKey = settings.subscribeKey, !subscribeKey.isEmpty else {
            throw UsageError(
                "no subscribe key: pass --subscribe-key KEY, set DATASYNC_SUBSCRIBE_KEY, or put \"subscribeKey\" "
                    + "in the config file", command: arguments.commandName)
        }
        if needsPublishKey, settings.publishKey?.isEmpty ?? true {
            throw UsageError(
                "'\(arguments.commandName)' needs a publish key: pass --publish-key KEY, set DATASYNC_PUBLISH_KEY, "
                    + "or put \"publishKey\" in the config file", command: arguments.commandName)
        }
        let verbose = arguments.flag("--verbose")
        if verbose {
            for line in settings.summary { console.err("datasync: \(line)") }
        }
        var configuration = PubNubConfiguration(
            publishKey: settings.publishKey, subscribeKey: subscribeKey, userId: settings.userId,
            authToken: settings.token, origin: settings.origin, useSecureConnections: settings.secure)
        if verbose {
            let console = self.console
            configuration.middlewares = [
                LoggingMiddleware(
                    sink: ClosureLogSink { record in console.err("datasync: http \(record)") }, includesHeaders: false)
            ]
        }
        configuration.middlewares += middlewares
        try applyRetrySettings(to: &configuration)
        do throws(PubNubError) {
            return try PubNub(validating: configuration)
        } catch {
            throw UsageError("invalid settings: \(error.message)", command: arguments.commandName)
        }
    }

    /// `--timeout` (the whole call, retries included, and each attempt within it) and
    /// `--retries`, and the line on standard error before each retry (unless `--quiet`).
    ///
    /// - Throws: ``UsageError`` for a timeout that is not a positive number of seconds or a retry
    ///   count outside 0...10.
    func applyRetrySettings(to configuration: inout PubNubConfiguration) throws(UsageError) {
        if let text = arguments.value("--timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                throw UsageError(
                    "option '--timeout' takes a number of seconds above 0, such as 5 or 0.5, not '\(text)'",
                    kind: .invalidValue, option: "--timeout", command: arguments.commandName)
            }
            let timeout = Duration.milliseconds(Int64((seconds * 1000).rounded(.up)))
            configuration.deadline = timeout
            configuration.requestTimeout = min(configuration.requestTimeout ?? timeout, timeout)
        }
        let retries = try arguments.int("--retries", in: 0...10) ?? Self.defaultRetries
        configuration.retryPolicy =
            retries == 0
            ? .none
            : .exponential(
                minimumDelay: .seconds(1), maximumDelay: .seconds(32), maximumRetries: retries,
                maximumJitter: .milliseconds(500))
        guard retries > 0, !arguments.flag("--quiet") else { return }
        let console = self.console
        let reporter = RetryReporter(retries: retries) { line in console.err("datasync: " + line) }
        configuration.clock = reporter.clock
        configuration.middlewares.append(reporter.middleware)
    }

    /// The SDK's default number of retries, which `--retries` replaces.
    static let defaultRetries = 3

    /// Prints one result: indented on a terminal or with `--pretty`, one line when piped or
    /// with `--compact`.
    func emit(_ value: JSONValue) {
        let pretty =
            arguments.flag("--pretty") || (!arguments.flag("--compact") && console.stdoutIsTerminal)
        console.out(pretty ? JSONText.pretty(value) : JSONText.compact(value))
    }

    /// Prints one item of a stream: always one line (NDJSON).
    func emitLine(_ value: JSONValue) {
        console.out(JSONText.compact(value))
    }

    /// A diagnostic line unless `--quiet`.
    func note(_ line: String) {
        guard !arguments.flag("--quiet") else { return }
        console.err("datasync: " + line)
    }
}

/// The process around a run: output, environment, standard input, the command tree.
final class Context: Sendable {
    let console: Console
    let environment: [String: String]
    let parser: ArgumentParser<CommandAction>
    private let input = StandardInput()

    init(console: Console, environment: [String: String], parser: ArgumentParser<CommandAction>) {
        self.console = console
        self.environment = environment
        self.parser = parser
    }

    /// All of standard input, once per run.
    ///
    /// - Throws: ``UsageError`` naming `option` when another argument already read it.
    func standardInput(for option: String) throws(UsageError) -> [UInt8] {
        try input.read(for: option)
    }
}

/// Standard input, readable once.
private final class StandardInput: @unchecked Sendable {
    // @unchecked Sendable: `reader` is only read or written under `lock`, in a synchronous
    // closure. NSLock rather than the SDK's `Locked`: this executable uses public API only.
    private let lock = NSLock()
    private var reader: String?

    func read(for option: String) throws(UsageError) -> [UInt8] {
        let previous: String? = lock.withLock {
            defer { if reader == nil { reader = option } }
            return reader
        }
        if let previous {
            throw UsageError("\(option) cannot read standard input: \(previous) already did")
        }
        return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
    }
}

/// JSON arguments: the text itself, `@FILE` for a file's contents, `-` for standard input.
enum JSONArgument {
    /// Parses the value of `option` as JSON.
    ///
    /// - Throws: ``UsageError`` naming the option for a file that cannot be read or text that is
    ///   not JSON.
    static func read(_ text: String, option: String, context: Context) throws(UsageError) -> JSONValue {
        let bytes: [UInt8]
        let origin: String
        if text == "-" {
            bytes = try context.standardInput(for: option)
            origin = "standard input"
        } else if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("\(option): cannot read the file \(path)")
            }
            bytes = [UInt8](data)
            origin = "the file \(path)"
        } else {
            bytes = Array(text.utf8)
            origin = "'\(text.count > 60 ? String(text.prefix(57)) + "..." : text)'"
        }
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw UsageError(
                "\(option) takes JSON (text, @FILE or - for standard input); \(origin) is not valid JSON: \(error)")
        }
    }
}
