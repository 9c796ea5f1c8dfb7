package import JSONCore
package import PubNubCore
import PubNubCrypto
package import Transport

/// The requests of Message Persistence and message actions, and the parsing of their answers:
/// paths, queries and bodies as the service (and PubNub's Python SDK 10.8.0) uses them.
package enum HistoryCall {
    /// Most messages one fetch returns for a single channel.
    package static let singleChannelLimit = 100
    /// Most messages per channel for several channels, and with actions.
    package static let multipleChannelLimit = 25
    /// Most channels one fetch may name.
    package static let fetchChannelLimit = 500
    /// Most channels one message-counts call may name.
    package static let countChannelLimit = 100
    /// Most actions in one page.
    package static let actionPageLimit = 100
    /// Longest action type the service takes.
    package static let actionTypeLimit = 15

    private static func checkChannels(_ channels: [String], limit: Int) throws(PubNubError) {
        if channels.isEmpty { throw PubNubError.missingRequiredParameter("channels") }
        for channel in channels where channel.isEmpty || channel.contains(",") {
            throw PubNubError(
                reason: .invalidArguments, message: "a channel name is empty or holds a comma; nothing was sent",
                details: [PubNubError.Detail(message: "empty or holds ','", path: "channels")])
        }
        guard channels.count <= limit else {
            throw PubNubError(
                reason: .invalidArguments,
                message: "one call takes at most \(limit) channels, not \(channels.count); nothing was sent",
                details: [PubNubError.Detail(message: "too many", path: "channels")])
        }
    }

    private static func list(_ names: [String]) -> String {
        names.map(HTTPRequest.encodePathSegment).joined(separator: ",")
    }

    private static func flag(_ name: String, _ value: Bool) -> HTTPQueryItem {
        HTTPQueryItem(name: name, value: value ? "true" : "false")
    }

    // MARK: Fetch

    /// `GET /v3/history/sub-key/{sub}/channel/{channels}` or, with actions,
    /// `/v3/history-with-actions/sub-key/{sub}/channel/{channel}`.
    ///
    /// - Throws: `PubNubError`: `.missingRequiredParameter` without channels; `.invalidArguments`
    ///   for an empty name or one with a comma, more than 500 channels, several channels with
    ///   actions, or a limit below 1.
    package static func fetch(
        subscribeKey: String, channels: [String], range: PubNubHistoryRange, includeActions: Bool,
        includeMeta: Bool, includeMessageType: Bool, includeCustomMessageType: Bool, includeUUID: Bool
    ) throws(PubNubError) -> ServicePipeline.Call {
        try checkChannels(channels, limit: fetchChannelLimit)
        if includeActions, channels.count > 1 {
            throw PubNubError(
                reason: .invalidArguments,
                message: "messages with their actions can be fetched for one channel only; nothing was sent",
                details: [PubNubError.Detail(message: "one channel with actions", path: "channels")])
        }
        let cap = channels.count == 1 && !includeActions ? singleChannelLimit : multipleChannelLimit
        if let limit = range.limit, limit < 1 {
            throw PubNubError(
                reason: .invalidArguments, message: "limit must be at least 1; nothing was sent",
                details: [PubNubError.Detail(message: "below 1", path: "limit")])
        }
        var query = [HTTPQueryItem(name: "max", value: String(min(range.limit ?? cap, cap)))]
        if let start = range.start { query.append(HTTPQueryItem(name: "start", value: String(start))) }
        if let end = range.end { query.append(HTTPQueryItem(name: "end", value: String(end))) }
        query.append(flag("include_meta", includeMeta))
        query.append(flag("include_message_type", includeMessageType))
        query.append(flag("include_custom_message_type", includeCustomMessageType))
        query.append(flag("include_uuid", includeUUID))
        let base = includeActions ? "/v3/history-with-actions/sub-key/" : "/v3/history/sub-key/"
        return ServicePipeline.Call(
            method: .get,
            path: base + HTTPRequest.encodePathSegment(subscribeKey) + "/channel/" + list(channels), query: query)
    }

    /// Reads a fetch answer, decrypting each ordinary message with `module`.
    ///
    /// - Throws: `PubNubError`: the service's error for a status outside 200...299 or
    ///   `"error": true`; `.malformedResponse` when `channels` is missing.
    package static func fetched(
        _ response: HTTPResponse, module: CryptoModule?, range: PubNubHistoryRange
    ) throws(PubNubError) -> PubNubFetchedMessages {
        let object = try answerObject(response)
        guard let channels = object["channels"]?.objectValue else {
            throw PubNubError.malformedResponse(
                "a history answer has no `channels` object", statusCode: response.status)
        }
        var result: [String: [PubNubHistoryMessage]] = [:]
        for (channel, items) in channels.dictionary {
            var messages: [PubNubHistoryMessage] = []
            for item in items.arrayValue ?? [] {
                guard let payload = item["message"], let timetoken = item["timetoken"].flatMap(timetoken) else {
                    throw PubNubError.malformedResponse(
                        "a history item on \(channel) has no message or timetoken", statusCode: response.status)
                }
                let messageType = item["message_type"]?.int64Value.flatMap { Int(exactly: $0) }
                var message = PubNubHistoryMessage(
                    channel: channel, message: payload, timetoken: timetoken, publisher: item["uuid"]?.stringValue,
                    meta: meta(item["meta"]), messageType: messageType,
                    customMessageType: item["custom_message_type"]?.stringValue,
                    actions: actions(item["actions"], messageTimetoken: timetoken))
                // As the subscribe loop does: messages, and file messages encrypted as a whole.
                let encryptable =
                    messageType == nil || messageType == 0 || (messageType == 4 && payload.stringValue != nil)
                if let module, encryptable {
                    switch HistoryDecryption.decrypt(payload, with: module) {
                    case .success(let plain): message.message = plain
                    case .failure(let reason):
                        message.decryptionError = PubNubError(
                            reason: .decryptionFailed,
                            message: "the message at \(timetoken) on \(channel) is returned undecrypted: \(reason)")
                    }
                }
                messages.append(message)
            }
            result[channel] = messages
        }
        var next: PubNubHistoryRange?
        if let more = object["more"], let start = more["start"].flatMap(timetoken) {
            next = PubNubHistoryRange(start: start, end: range.end, limit: more["max"]?.intValue ?? range.limit)
        }
        return PubNubFetchedMessages(channels: result, next: next)
    }

    /// The service answers `""` (or nothing) for a message published without meta.
    private static func meta(_ value: JSONValue?) -> JSONValue? {
        guard let value, value != "", !value.isNull else { return Optional.none }
        return value
    }

    /// `{"<type>":{"<value>":[{"uuid","actionTimetoken"}]}}`, flattened in action-timetoken order.
    private static func actions(_ value: JSONValue?, messageTimetoken: Timetoken) -> [PubNubMessageAction] {
        guard let types = value?.objectValue else { return [] }
        var actions: [PubNubMessageAction] = []
        for (type, values) in types.dictionary {
            for (value, entries) in values.objectValue?.dictionary ?? [:] {
                for entry in entries.arrayValue ?? [] {
                    guard let uuid = entry["uuid"]?.stringValue,
                        let actionTimetoken = entry["actionTimetoken"].flatMap(timetoken)
                    else { continue }
                    actions.append(
                        PubNubMessageAction(
                            type: type, value: value, uuid: uuid, messageTimetoken: messageTimetoken,
                            actionTimetoken: actionTimetoken))
                }
            }
        }
        return actions.sorted { $0.actionTimetoken < $1.actionTimetoken }
    }

    // MARK: Delete and counts

    /// `DELETE /v3/history/sub-key/{sub}/channel/{channel}` with `start` and `end`.
    package static func delete(
        subscribeKey: String, channel: String, start: Timetoken?, end: Timetoken?
    ) throws(PubNubError) -> ServicePipeline.Call {
        try checkChannels([channel], limit: 1)
        var query: [HTTPQueryItem] = []
        if let start { query.append(HTTPQueryItem(name: "start", value: String(start))) }
        if let end { query.append(HTTPQueryItem(name: "end", value: String(end))) }
        return ServicePipeline.Call(
            method: .delete,
            path: "/v3/history/sub-key/" + HTTPRequest.encodePathSegment(subscribeKey) + "/channel/"
                + HTTPRequest.encodePathSegment(channel), query: query)
    }

    /// `GET /v3/history/sub-key/{sub}/message-counts/{channels}` with `timetoken` (one for all) or
    /// `channelsTimetoken` (one per channel, in order).
    package static func counts(
        subscribeKey: String, channels: [(String, Timetoken)]
    ) throws(PubNubError) -> ServicePipeline.Call {
        let names = channels.map(\.0)
        try checkChannels(names, limit: countChannelLimit)
        let timetokens = channels.map(\.1)
        let query =
            Set(timetokens).count == 1
            ? HTTPQueryItem(name: "timetoken", value: String(timetokens[0]))
            : HTTPQueryItem(name: "channelsTimetoken", value: timetokens.map(String.init).joined(separator: ","))
        return ServicePipeline.Call(
            method: .get,
            path: "/v3/history/sub-key/" + HTTPRequest.encodePathSegment(subscribeKey) + "/message-counts/"
                + list(names), query: [query])
    }

    // MARK: Message actions

    private static func actionsPath(subscribeKey: String, channel: String) -> String {
        "/v1/message-actions/" + HTTPRequest.encodePathSegment(subscribeKey) + "/channel/"
            + HTTPRequest.encodePathSegment(channel)
    }

    /// `POST /v1/message-actions/{sub}/channel/{channel}/message/{tt}` with `{"type","value"}`.
    ///
    /// - Throws: `PubNubError` `.invalidArguments` for an empty channel or value, or a type that
    ///   is empty or longer than 15 characters (nothing sent).
    package static func addAction(
        subscribeKey: String, channel: String, type: String, value: String, messageTimetoken: Timetoken
    ) throws(PubNubError) -> ServicePipeline.Call {
        try checkChannels([channel], limit: 1)
        guard !type.isEmpty, type.count <= actionTypeLimit, !value.isEmpty else {
            throw PubNubError(
                reason: .invalidArguments,
                message:
                    "an action needs a type of 1 to \(actionTypeLimit) characters and a non-empty value; nothing was sent",
                details: [PubNubError.Detail(message: "invalid type or value", path: "type")])
        }
        let body: JSONValue = ["type": .string(type), "value": .string(value)]
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        return ServicePipeline.Call(
            method: .post,
            path: actionsPath(subscribeKey: subscribeKey, channel: channel) + "/message/" + String(messageTimetoken),
            headers: headers, body: (try? body.jsonBytes(sortedKeys: true)) ?? [])
    }

    /// `DELETE …/message/{tt}/action/{actionTt}`.
    package static func removeAction(
        subscribeKey: String, channel: String, messageTimetoken: Timetoken, actionTimetoken: Timetoken
    ) throws(PubNubError) -> ServicePipeline.Call {
        try checkChannels([channel], limit: 1)
        return ServicePipeline.Call(
            method: .delete,
            path: actionsPath(subscribeKey: subscribeKey, channel: channel) + "/message/" + String(messageTimetoken)
                + "/action/" + String(actionTimetoken))
    }

    /// `GET /v1/message-actions/{sub}/channel/{channel}` with `start`, `end`, `limit`.
    package static func listActions(
        subscribeKey: String, channel: String, start: Timetoken?, end: Timetoken?, limit: Int?
    ) throws(PubNubError) -> ServicePipeline.Call {
        try checkChannels([channel], limit: 1)
        if let limit, !(1...actionPageLimit).contains(limit) {
            throw PubNubError(
                reason: .invalidArguments, message: "limit must be within 1...\(actionPageLimit); nothing was sent",
                details: [PubNubError.Detail(message: "out of range", path: "limit")])
        }
        var query: [HTTPQueryItem] = []
        if let start { query.append(HTTPQueryItem(name: "start", value: String(start))) }
        if let end { query.append(HTTPQueryItem(name: "end", value: String(end))) }
        if let limit { query.append(HTTPQueryItem(name: "limit", value: String(limit))) }
        return ServicePipeline.Call(
            method: .get, path: actionsPath(subscribeKey: subscribeKey, channel: channel), query: query)
    }

    /// One action object of the action routes.
    package static func action(_ value: JSONValue) -> PubNubMessageAction? {
        guard let type = value["type"]?.stringValue, let actionValue = value["value"]?.stringValue,
            let uuid = value["uuid"]?.stringValue, let message = value["messageTimetoken"].flatMap(timetoken),
            let action = value["actionTimetoken"].flatMap(timetoken)
        else { return nil }
        return PubNubMessageAction(
            type: type, value: actionValue, uuid: uuid, messageTimetoken: message, actionTimetoken: action)
    }

    // MARK: Answers

    /// The JSON object of a successful answer.
    ///
    /// - Throws: `PubNubError`: built from the status and body for a status outside 200...299 or
    ///   a body saying `"error": true` (the history form `error_message` becomes the message);
    ///   `.malformedResponse` when the body is not a JSON object.
    package static func answerObject(_ response: HTTPResponse) throws(PubNubError) -> JSONObject {
        let object = try? JSONValue(parsing: response.body).objectValue
        let flagged = object?["error"]?.boolValue == true
        guard response.isSuccess, !flagged else {
            let status = response.isSuccess ? (object?["status"]?.intValue ?? 400) : response.status
            var error = PubNubError(statusCode: status, body: response.body)
            if let text = object?["error_message"]?.stringValue, !text.isEmpty {
                error.message = text
                if error.details.isEmpty { error.details = [PubNubError.Detail(message: text)] }
            }
            throw error
        }
        guard let object else {
            throw PubNubError.malformedResponse("the answer is not a JSON object", statusCode: response.status)
        }
        return object
    }

    /// A timetoken from a JSON string of digits or a non-negative integer.
    package static func timetoken(_ value: JSONValue) -> Timetoken? {
        if let text = value.stringValue { return Timetoken(text) }
        if let number = value.int64Value, number >= 0 { return Timetoken(number) }
        return nil
    }
}

/// Decrypts a stored message the way the subscribe loop decrypts a live one: a string is a
/// ciphertext; an object with a string `pn_other` is a message whose push sections were merged
/// after encryption, put back as the publisher sent it; anything else is a failure.
package enum HistoryDecryption {
    package static func decrypt(_ payload: JSONValue, with module: CryptoModule) -> Result<JSONValue, Failure> {
        switch payload {
        case .string(let text):
            return decryptText(text, with: module)
        case .object(var object):
            guard case .string(let text)? = object["pn_other"] else {
                return .failure(Failure(reason: "the crypto module is set but the message is not encrypted"))
            }
            switch decryptText(text, with: module) {
            case .failure(let failure): return .failure(failure)
            case .success(.object(let fields)):
                object["pn_other"] = nil
                object.merge(fields) { push, _ in push }
            case .success(let inner):
                object["pn_other"] = inner
            }
            return .success(.object(object))
        default:
            return .failure(Failure(reason: "the crypto module is set but the message is not encrypted"))
        }
    }

    package struct Failure: Error, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    private static func decryptText(_ text: String, with module: CryptoModule) -> Result<JSONValue, Failure> {
        do {
            return .success(try module.decryptMessage(text))
        } catch {
            return .failure(Failure(reason: "\(error.code)"))
        }
    }
}
