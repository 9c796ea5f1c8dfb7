import ArgumentParsing
import DataSync
import Foundation

/// How errors are written: the default lines for people, or with `--output json` (or
/// `DATASYNC_OUTPUT=json`) one JSON object per error, still on standard error so standard output
/// holds results only (Documentation/CLI.md, "Errors as JSON").
enum ErrorFormat: String, Sendable {
    case text, json

    /// The environment variable that sets the format when `--output` is not given.
    static let environment = "DATASYNC_OUTPUT"

    /// The format asked for. Read from the raw arguments, because an error in the arguments
    /// themselves must already be written in it; a value that is neither leaves text (the
    /// parser then reports the value).
    static func requested(_ arguments: [String], environment: [String: String]) -> ErrorFormat {
        var chosen: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument == "--output" || argument == "-o", index + 1 < arguments.count {
                chosen = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("--output=") {
                chosen = String(argument.dropFirst("--output=".count))
            }
            index += 1
        }
        let text = chosen ?? environment[Self.environment] ?? ""
        return ErrorFormat(rawValue: text.lowercased()) ?? .text
    }
}

/// One error as the CLI reports it before exiting.
struct ErrorReport: Sendable {
    /// `usage` (exit 2: the command line is wrong) or `service` (exit 1: the service or the
    /// network failed the request), or `local` (exit 2: the SDK refused an argument before
    /// sending anything).
    var kind: String
    var exitStatus: Int32
    /// The command that failed, without the program name (`users get`); empty before one is known.
    var command: String
    var message: String
    var suggestion: String?
    var usage: String?
    var help: String?
    /// The SDK's reason (`resourceNotFound`), HTTP status, service code and details, for service errors.
    var reason: String?
    var httpStatus: Int?
    var errorCode: String?
    var details: [String] = []
    /// The text the default format prints.
    var text: String

    init(_ error: UsageError) {
        kind = "usage"
        exitStatus = ExitStatus.usage
        command = error.command.map { String($0.split(separator: " ").dropFirst().joined(separator: " ")) } ?? ""
        message = error.message
        suggestion = error.suggestion
        usage = error.usage
        help = error.command.map { "\($0) --help" }
        text = "datasync: " + error.description
    }

    init(_ error: any Error, command: String) {
        // `pubNubError` also finds the PubNubError inside a publish's PubNubPublishError.
        guard let failure = error.pubNubError else {
            kind = "service"
            exitStatus = ExitStatus.serviceError
            self.command = command
            message = "\(error)"
            text = "datasync: \(command): \(error)"
            return
        }
        let local = DataSyncCLI.isLocal(failure)
        kind = local ? "local" : "service"
        exitStatus = local ? ExitStatus.usage : ExitStatus.serviceError
        self.command = command
        message = failure.message.isEmpty ? failure.underlying.map { "\($0)" } ?? "" : failure.message
        reason = failure.reason.rawValue
        httpStatus = failure.statusCode
        errorCode = failure.errorCode
        details = failure.details.map(\.description)
        text = "datasync: \(command): " + DataSyncCLI.describe(failure)
    }

    /// `{"error": {...}}`, keys absent when they have no value.
    var json: JSONValue {
        var object: JSONObject = [
            "kind": .string(kind), "exitStatus": .int(Int64(exitStatus)), "message": .string(message),
        ]
        if !command.isEmpty { object["command"] = .string(command) }
        if let suggestion { object["suggestion"] = .string(suggestion) }
        if let usage { object["usage"] = .string(usage) }
        if let help { object["help"] = .string(help) }
        if let reason { object["reason"] = .string(reason) }
        if let httpStatus { object["httpStatus"] = .int(Int64(httpStatus)) }
        if let errorCode { object["errorCode"] = .string(errorCode) }
        if !details.isEmpty { object["details"] = .array(details.map { .string($0) }) }
        return .object(["error": .object(object)])
    }

    /// Writes the report on standard error (redacted) and returns its exit status.
    func write(to console: Console, as format: ErrorFormat) -> Int32 {
        switch format {
        case .text: console.err(text)
        case .json: console.err(JSONText.compact(json))
        }
        return exitStatus
    }
}
