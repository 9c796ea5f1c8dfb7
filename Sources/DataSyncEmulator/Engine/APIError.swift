import Foundation
import JSONCore

/// An error answered to a client in the DataSync envelope
/// `{"errors":[{"errorCode","message","path"}]}`: a list of items, each with a `DS-` code, a
/// message and, for a validation error, the JSON pointer or query parameter it is about.
struct APIError: Error {
    /// The `DS-` error code strings the service answers. Where the protocol names no code for a
    /// case, the code is the emulator's own choice, listed in `Documentation/Emulator.md`
    /// ("Choices where the spec is silent").
    struct Code: RawRepresentable, Hashable, Sendable {
        let rawValue: String

        static let internalError = Code(rawValue: "DS-0000")
        static let methodNotAllowed = Code(rawValue: "DS-0001")
        static let malformedBody = Code(rawValue: "DS-0002")
        static let invalidValue = Code(rawValue: "DS-0004")
        static let unknownField = Code(rawValue: "DS-0005")
        static let notSubclass = Code(rawValue: "DS-0006")
        static let unsupported = Code(rawValue: "DS-0009")
        static let notFound = Code(rawValue: "DS-0100")
        static let preconditionFailed = Code(rawValue: "DS-0300")
        static let conflict = Code(rawValue: "DS-0301")
        static let testFailed = Code(rawValue: "DS-0302")
        static let cardinality = Code(rawValue: "DS-0801")
        static let classInUse = Code(rawValue: "DS-0802")
    }

    var status: Int
    var code: Code
    var message: String
    var path: String?
    /// For a 405: the methods the resource supports, sent in `Allow`.
    var allow: [String]?

    init(status: Int, code: Code, message: String, path: String? = nil, allow: [String]? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.path = path
        self.allow = allow
    }

    static func invalid(_ message: String, path: String? = nil) -> APIError {
        APIError(status: 400, code: .invalidValue, message: message, path: path)
    }

    /// A required field or parameter that is absent (or null): "'entityClassVersion' is
    /// required", with its path.
    static func missing(_ path: String) -> APIError {
        let name = path.split(separator: "/").last.map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        return APIError(status: 400, code: .invalidValue, message: "'\(name ?? path)' is required", path: path)
    }

    /// A 405 for `method` on a resource that supports `allow`.
    static func methodNotAllowed(_ method: String, on resource: String, allow: [String]) -> APIError {
        APIError(
            status: 405, code: .methodNotAllowed,
            message: "\(method) is not allowed on \(resource); use \(allow.joined(separator: ", "))", allow: allow)
    }

    /// Added to a filter or sort error whose text fails at a `+`: a bare `+` in a query stays a
    /// plus sign (the service does not read it as a space).
    static let plusHint = " (a '+' in the query is a literal plus sign, not a space: send spaces as %20)"

    static func unknownField(_ message: String, path: String?) -> APIError {
        APIError(status: 400, code: .unknownField, message: message, path: path)
    }

    static func notFound(_ message: String, path: String? = nil) -> APIError {
        APIError(status: 404, code: .notFound, message: message, path: path)
    }

    static func conflict(_ message: String, path: String? = nil) -> APIError {
        APIError(status: 409, code: .conflict, message: message, path: path)
    }

    var envelope: JSONValue {
        var item: [String: JSONValue] = ["errorCode": .string(code.rawValue), "message": .string(message)]
        if let path { item["path"] = .string(path) }
        return ["errors": [.object(item)]]
    }
}
