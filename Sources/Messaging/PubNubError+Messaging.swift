package import JSONCore
package import PubNubBase
import PubNubCore
package import Transport

extension PubNubError.Reason {
    /// A publish or fire was larger than the message size limit: found locally before sending
    /// (see `PubNub/MessagingConfiguration/messageSizeLimit`), or answered by the service as
    /// `"Message Too Large"`.
    public static let messageTooLarge = PubNubError.Reason(rawValue: "messageTooLarge")
    /// A signal was larger than the signal size limit: found locally before sending (see
    /// `PubNub/MessagingConfiguration/signalSizeLimit`), or answered by the service as
    /// `"Signal size too large"`.
    public static let signalTooLarge = PubNubError.Reason(rawValue: "signalTooLarge")
    /// The service does not know the publish or subscribe key (`"Invalid Key"`,
    /// `"Invalid Subscribe Key"`).
    public static let invalidKey = PubNubError.Reason(rawValue: "invalidKey")
    /// The service could not parse the published message as JSON (`"Invalid JSON"`).
    public static let invalidJSON = PubNubError.Reason(rawValue: "invalidJSON")
    /// HTTP 414: the request line was too long for the service (`"Request URI Too Long"`).
    public static let requestURITooLong = PubNubError.Reason(rawValue: "requestURITooLong")
    /// A channel group limit was exceeded (`"Maximum channel group count exceeded."`), or more
    /// channels were given to one call than it accepts (checked locally; nothing was sent).
    public static let channelGroupLimitExceeded = PubNubError.Reason(rawValue: "channelGroupLimitExceeded")
    /// A name holds a character the service reserves (`"Reserved character in input parameters."`).
    public static let reservedCharacter = PubNubError.Reason(rawValue: "reservedCharacter")
}

/// Turns pub/sub, presence and channel-registry answers into values or `PubNubError`s: the
/// the four error body forms the service uses (Documentation/Messaging.md, "Errors") and the exact
/// service texts the reasons above stand for.
package enum MessagingResponse {
    /// Service texts with a reason of their own; matched exactly, case-insensitively.
    private static let reasonsByText: [String: PubNubError.Reason] = [
        "message too large": .messageTooLarge,
        "signal size too large": .signalTooLarge,
        "invalid key": .invalidKey,
        "invalid subscribe key": .invalidKey,
        "invalid subkey": .invalidKey,
        "invalid json": .invalidJSON,
        "request uri too long": .requestURITooLong,
        "maximum channel group count exceeded.": .channelGroupLimitExceeded,
        "reserved character in input parameters.": .reservedCharacter,
    ]

    /// The reason a service text stands for, if it has one of its own.
    package static func reason(forServiceText text: String) -> PubNubError.Reason? {
        reasonsByText[text.lowercased()]
    }

    /// The error for an answer that is not a success: any status outside 200...299, or a
    /// publish-style array whose first element is not `1`.
    ///
    /// Understands `[0,"<text>","<tt>"]` (publish and signal), the classic service object
    /// `{"status","message","error","service","payload"}` (with the channels and groups a 403
    /// names in `payload` kept as details, leading `:` of group names removed), the newer
    /// `{"status","error":{"message","details"}}`, `{"error":"<text>"}` and
    /// `{"error_message":"<text>"}`, and non-JSON bodies.
    package static func error(statusCode: Int, body: [UInt8]) -> PubNubError {
        let json = try? JSONValue(parsing: body)
        if let elements = json?.arrayValue {
            return arrayError(statusCode: statusCode, elements: elements)
        }
        var error = PubNubError(statusCode: statusCode, body: body)
        guard let object = json?.objectValue else { return error }
        if error.details.isEmpty, let text = object["error_message"]?.stringValue {
            error.message = text
            error.details = [PubNubError.Detail(message: text)]
        }
        if let payload = object["payload"]?.objectValue {
            for name in payload["channels"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                error.details.append(PubNubError.Detail(message: "channel \(name)", path: "channels"))
            }
            for name in payload["channel-groups"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                let group = name.hasPrefix(":") ? String(name.dropFirst()) : name
                error.details.append(PubNubError.Detail(message: "channel group \(group)", path: "channel-groups"))
            }
        }
        if let reason = reason(forServiceText: error.message) {
            error.reason = reason
        } else if statusCode == 414 {
            error.reason = .requestURITooLong
        }
        return error
    }

    private static func arrayError(statusCode: Int, elements: [JSONValue]) -> PubNubError {
        let text = elements.count > 1 ? elements[1].stringValue : nil
        let fallbackReason =
            (200..<300).contains(statusCode) ? PubNubError.Reason.badRequest : .forStatusCode(statusCode)
        let reason = text.flatMap(reason(forServiceText:)) ?? fallbackReason
        let message = text ?? "the service answered HTTP \(statusCode)"
        return PubNubError(
            reason: reason, message: message, statusCode: statusCode,
            details: [PubNubError.Detail(message: message)])
    }

    /// The timetoken of a publish or signal answer `[1,"Sent","<tt>"]` (the timetoken as a string,
    /// or as a number, which some services send).
    ///
    /// - Throws: `PubNubError`: built by ``error(statusCode:body:)`` for `[0,…]` or a status
    ///   outside 200...299 (a 413, the HTTP layer's refusal of a body too large, is
    ///   `.messageTooLarge` like the service's own answer); `.malformedResponse` for any other shape.
    package static func publishTimetoken(_ response: HTTPResponse) throws(PubNubError) -> Timetoken {
        guard response.isSuccess else {
            var failure = error(statusCode: response.status, body: response.body)
            if response.status == 413 { failure.reason = .messageTooLarge }
            throw failure
        }
        guard let elements = try? JSONValue(parsing: response.body).arrayValue else {
            throw PubNubError.malformedResponse("a publish answer is not a JSON array", statusCode: response.status)
        }
        guard elements.first?.int64Value == 1 else {
            throw error(statusCode: response.status, body: response.body)
        }
        guard elements.count >= 3, let timetoken = timetoken(elements[2]) else {
            throw PubNubError.malformedResponse(
                "a publish answer carries no timetoken in its third element", statusCode: response.status)
        }
        return timetoken
    }

    /// A timetoken from a JSON string of digits or a non-negative integer.
    package static func timetoken(_ value: JSONValue) -> Timetoken? {
        if let text = value.stringValue { return Timetoken(text) }
        if let number = value.int64Value, number >= 0 { return Timetoken(number) }
        return nil
    }

    /// The JSON object of a successful presence or channel-registry answer.
    ///
    /// - Throws: `PubNubError`: built by ``error(statusCode:body:)`` for a status outside
    ///   200...299 or a body saying `"error": true`; `.malformedResponse` when the body is not a
    ///   JSON object.
    package static func object(_ response: HTTPResponse) throws(PubNubError) -> JSONObject {
        guard response.isSuccess else { throw error(statusCode: response.status, body: response.body) }
        guard let object = try? JSONValue(parsing: response.body).objectValue else {
            throw PubNubError.malformedResponse("the answer is not a JSON object", statusCode: response.status)
        }
        if object["error"]?.boolValue == true || object["error"]?.int64Value == 1 {
            let status = object["status"]?.intValue ?? response.status
            throw error(statusCode: status, body: response.body)
        }
        return object
    }
}
