public import JSONCore

/// Why a JSON fault description was refused: the field at fault and what is wrong with it.
public struct FaultRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field named in the message (`kind`, `status`, `seconds`…), or `body` for the whole.
    public var field: String
    /// What is wrong, for a person.
    public var message: String

    /// `field: message`, as the admin routes answer it.
    public var description: String { "\(field): \(message)" }
}

extension FaultRule {
    /// The fields a JSON fault description may hold.
    static let fields: Set<String> = [
        "kind", "family", "method", "pathPrefix", "channel", "count", "probability", "status", "body", "seconds",
        "bytes", "retryAfter",
    ]

    /// The most seconds a delay or blackhole may last (a day): longer is a typo, not a test.
    static let maximumSeconds = 86_400.0

    /// Reads a rule from its JSON description (Documentation/Emulator.md, "Faults"):
    /// `{"kind":"status","status":500,"family":"publish","count":2}`.
    ///
    /// - Throws: ``FaultRuleError`` naming the first field that is missing, unknown, of the wrong
    ///   type or out of range.
    public init(json: JSONValue) throws(FaultRuleError) {
        guard let object = json.objectValue else {
            throw FaultRuleError(field: "body", message: "a fault is a JSON object, such as {\"kind\":\"reset\"}")
        }
        for key in object.sortedKeys where !Self.fields.contains(key) {
            throw FaultRuleError(
                field: key, message: "unknown field; use \(Self.fields.sorted().joined(separator: ", "))")
        }
        func string(_ name: String) throws(FaultRuleError) -> String? {
            guard let value = object[name], !value.isNull else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw FaultRuleError(field: name, message: "must be a non-empty string")
            }
            return text
        }
        func seconds() throws(FaultRuleError) -> Duration {
            guard let number = object["seconds"]?.doubleValue else {
                throw FaultRuleError(field: "seconds", message: "is required for this kind: a number of seconds")
            }
            guard number.isFinite, number >= 0, number <= Self.maximumSeconds else {
                throw FaultRuleError(field: "seconds", message: "must be between 0 and \(Int(Self.maximumSeconds))")
            }
            return .microseconds(Int64((number * 1_000_000).rounded()))
        }
        func forbid(_ names: String..., kind: String) throws(FaultRuleError) {
            for name in names where object[name] != nil {
                throw FaultRuleError(field: name, message: "does not apply to kind \"\(kind)\"")
            }
        }

        guard let kind = try string("kind") else {
            throw FaultRuleError(
                field: "kind", message: "is required: status, malformed, delay, reset, truncate or blackhole")
        }
        let action: FaultAction
        switch kind {
        case "status":
            try forbid("seconds", "bytes", kind: kind)
            guard let status = object["status"]?.intValue else {
                throw FaultRuleError(field: "status", message: "is required for kind \"status\": an HTTP status code")
            }
            guard (200...599).contains(status) else {
                throw FaultRuleError(field: "status", message: "must be between 200 and 599")
            }
            var retryAfter: Int?
            if let value = object["retryAfter"], !value.isNull {
                guard let seconds = value.intValue, seconds >= 0, seconds <= Int(Self.maximumSeconds) else {
                    throw FaultRuleError(
                        field: "retryAfter",
                        message: "must be a whole number of seconds, 0 to \(Int(Self.maximumSeconds))")
                }
                retryAfter = seconds
            }
            action = .status(status, body: object["body"], retryAfter: retryAfter)
        case "malformed":
            try forbid("status", "seconds", "bytes", "retryAfter", kind: kind)
            var text: String?
            if let value = object["body"], !value.isNull {
                guard let given = value.stringValue else {
                    throw FaultRuleError(field: "body", message: "for kind \"malformed\" is the text to send, a string")
                }
                text = given
            }
            action = .malformed(text)
        case "delay":
            try forbid("status", "body", "bytes", "retryAfter", kind: kind)
            action = .delay(try seconds())
        case "reset":
            try forbid("status", "body", "bytes", "seconds", "retryAfter", kind: kind)
            action = .reset
        case "truncate":
            try forbid("status", "body", "seconds", "retryAfter", kind: kind)
            var bytes: Int?
            if let value = object["bytes"], !value.isNull {
                guard let count = value.intValue, count >= 0 else {
                    throw FaultRuleError(field: "bytes", message: "must be a whole number of bytes, 0 or more")
                }
                bytes = count
            }
            action = .truncate(bytes: bytes)
        case "blackhole":
            try forbid("status", "body", "bytes", "retryAfter", kind: kind)
            action = .blackhole(try seconds())
        default:
            throw FaultRuleError(
                field: "kind", message: "must be status, malformed, delay, reset, truncate or blackhole")
        }

        var family = FaultFamily.any
        if let name = try string("family") {
            guard let known = FaultFamily(rawValue: name) else {
                throw FaultRuleError(
                    field: "family",
                    message: "must be one of \(FaultFamily.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            family = known
        }
        let method = try string("method")
        if let method, !method.allSatisfy({ $0.isASCII && $0.isLetter }) {
            throw FaultRuleError(field: "method", message: "must be an HTTP method such as GET or POST")
        }
        let pathPrefix = try string("pathPrefix")
        if let pathPrefix {
            guard pathPrefix.hasPrefix("/") else {
                throw FaultRuleError(field: "pathPrefix", message: "must start with /")
            }
            guard !pathPrefix.hasPrefix("/_emulator") else {
                throw FaultRuleError(field: "pathPrefix", message: "faults never apply to the admin routes")
            }
        }
        var count: Int?
        if let value = object["count"], !value.isNull {
            guard let number = value.intValue, number >= 1 else {
                throw FaultRuleError(field: "count", message: "must be a whole number, 1 or more")
            }
            count = number
        }
        var probability: Double?
        if let value = object["probability"], !value.isNull {
            guard let number = value.doubleValue, number > 0, number <= 1 else {
                throw FaultRuleError(field: "probability", message: "must be a number above 0 and at most 1")
            }
            probability = number
        }
        self.init(
            action, family: family, method: method, pathPrefix: pathPrefix, channel: try string("channel"),
            count: count, probability: probability)
    }

    /// The rule's JSON description, every default spelled out (`family`), unset filters left out.
    public var json: JSONObject {
        var object = JSONObject()
        object["family"] = .string(family.rawValue)
        if let method { object["method"] = .string(method) }
        if let pathPrefix { object["pathPrefix"] = .string(pathPrefix) }
        if let channel { object["channel"] = .string(channel) }
        if let count { object["count"] = .int(Int64(count)) }
        if let probability { object["probability"] = .double(probability) }
        switch action {
        case .status(let status, let body, let retryAfter):
            object["kind"] = "status"
            object["status"] = .int(Int64(status))
            if let body { object["body"] = body }
            if let retryAfter { object["retryAfter"] = .int(Int64(retryAfter)) }
        case .malformed(let text):
            object["kind"] = "malformed"
            if let text { object["body"] = .string(text) }
        case .delay(let duration):
            object["kind"] = "delay"
            object["seconds"] = .double(Self.seconds(duration))
        case .reset:
            object["kind"] = "reset"
        case .truncate(let bytes):
            object["kind"] = "truncate"
            if let bytes { object["bytes"] = .int(Int64(bytes)) }
        case .blackhole(let duration):
            object["kind"] = "blackhole"
            object["seconds"] = .double(Self.seconds(duration))
        }
        return object
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension FaultEntry {
    /// The entry as the admin routes show it: the rule's JSON with `id`, `remaining` (null when it
    /// has no end) and `fired`.
    public var json: JSONValue {
        var object = rule.json
        object["id"] = .string(id)
        object["remaining"] = remaining.map { .int(Int64($0)) } ?? .null
        object["fired"] = .int(Int64(fired))
        return .object(object)
    }
}
