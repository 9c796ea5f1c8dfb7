import EmulatorHTTP
import JSONCore

/// Message Persistence and message actions over the pub/sub bus's history
/// (Documentation/History.md, Documentation/MessageActions.md):
///
/// - `GET /v3/history/sub-key/{sub}/channel/{channels}`: fetch messages (`max`, `start`, `end`,
///   `include_meta`, `include_message_type`, `include_custom_message_type`, `include_uuid`);
/// - `GET /v3/history-with-actions/sub-key/{sub}/channel/{channel}`: the same for one channel,
///   each message with its actions, and `more` when the range holds more;
/// - `DELETE /v3/history/sub-key/{sub}/channel/{channel}` (`start`, `end`);
/// - `GET /v3/history/sub-key/{sub}/message-counts/{channels}` (`timetoken` or `channelsTimetoken`);
/// - `GET /v2/history/sub-key/{sub}/channel/{channel}`: the older history call (`count`,
///   `reverse`, `include_token`, `include_meta`);
/// - `/v1/message-actions/{sub}/channel/{channel}`: list (GET, `start`, `end`, `limit`), add
///   (POST `…/message/{tt}`), remove (DELETE `…/message/{tt}/action/{actionTt}`).
///
/// Ranges: `start` is exclusive and `end` inclusive; a page holds the newest messages of its
/// range unless only `end` is given, and is always oldest first.
struct HistoryService: EmulatorService {
    let bus: PubSubBus

    /// Most messages per channel a fetch returns for one channel.
    static let singleChannelMaximum = 100
    /// Most messages per channel a fetch returns for several channels, and with actions.
    static let multipleChannelMaximum = 25
    /// Most channels in one fetch.
    static let fetchChannelLimit = 500
    /// Most channels in one message-counts call.
    static let countChannelLimit = 100
    /// The largest count message-counts reports.
    static let countCeiling = 10_000
    /// Most actions in one page, and the default.
    static let actionPageLimit = 100
    /// Longest action type the service accepts.
    static let actionTypeLimit = 15

    private enum Route {
        case fetch(withActions: Bool)
        case delete, counts, historyV2, actions
    }

    func claims(_ request: ServerRequest) -> Bool {
        let path = request.rawPath
        return path.hasPrefix("/v3/history/") || path.hasPrefix("/v3/history-with-actions/")
            || path.hasPrefix("/v2/history/") || path.hasPrefix("/v1/message-actions/")
    }

    func respond(to request: ServerRequest) async -> ServerResponse {
        if let tooLong = PubSubWire.uriTooLong(request) { return tooLong }
        let raw = PubSubWire.rawSegments(request.rawPath)
        let method = request.method.uppercased()
        if raw.first == "v1" { return await actions(request, raw: raw, method: method) }
        // v2|v3 history[-with-actions] sub-key {sub} channel|message-counts {names}
        guard raw.count == 6, raw[2] == "sub-key", let subscribeKey = PercentDecoding.decode(raw[3]) else {
            return Self.historyError(400, "Invalid Arguments")
        }
        guard bus.knows(subscribeKey: subscribeKey) else { return PubSubWire.invalidSubscribeKey() }
        let query = PubSubWire.query(request.rawQuery)
        let names = PubSubWire.names(raw[5])
        guard !names.isEmpty else { return Self.historyError(400, "Invalid Arguments") }
        switch (raw[0], raw[1], raw[4], method) {
        case ("v3", "history", "channel", "GET"):
            return await fetch(subscribeKey: subscribeKey, channels: names, query: query, withActions: false)
        case ("v3", "history-with-actions", "channel", "GET"):
            return await fetch(subscribeKey: subscribeKey, channels: names, query: query, withActions: true)
        case ("v3", "history", "channel", "DELETE"):
            return await delete(subscribeKey: subscribeKey, channels: names, query: query)
        case ("v3", "history", "message-counts", "GET"):
            return await counts(subscribeKey: subscribeKey, channels: names, query: query)
        case ("v2", "history", "channel", "GET"):
            return await historyV2(subscribeKey: subscribeKey, channels: names, query: query)
        case (_, _, _, "GET"), (_, _, _, "DELETE"):
            return Self.historyError(404, "Not Found")
        default:
            return Self.historyError(405, "Method Not Allowed")
        }
    }

    // MARK: Fetch

    private func fetch(
        subscribeKey: String, channels: [String], query: PubSubWire.Query, withActions: Bool
    ) async -> ServerResponse {
        if channels.count > Self.fetchChannelLimit {
            return Self.historyError(400, "Too many channels: at most \(Self.fetchChannelLimit) per request")
        }
        if withActions, channels.count > 1 {
            return Self.historyError(400, "history-with-actions takes exactly one channel")
        }
        guard let range = Self.range(query) else { return Self.historyError(400, "Invalid timetoken") }
        let cap = channels.count == 1 && !withActions ? Self.singleChannelMaximum : Self.multipleChannelMaximum
        let requested = PubSubWire.clampedInteger(query["max"], in: Int.min...Int.max)
        let limit = requested.map { $0 < 1 ? cap : min($0, cap) } ?? cap
        let includeUUID = Self.flag(query, "include_uuid", default: true)
        let includeType = Self.flag(query, "include_message_type", default: true)
        let includeCustomType = Self.flag(query, "include_custom_message_type", default: false)
        let includeMeta = Self.flag(query, "include_meta", default: false)
        let store = await bus.historySnapshot(subscribeKey)
        let now = bus.historyNow
        var result: [String: JSONValue] = [:]
        var more: JSONValue?
        for channel in channels {
            let page = store.page(channel: channel, range: range, limit: limit, now: now)
            guard !page.messages.isEmpty else { continue }
            let history = store.history(channel)
            result[channel] = .array(
                page.messages.map { message in
                    var item: [String: JSONValue] = [
                        "message": message.payload, "timetoken": .string(String(message.timetoken)),
                    ]
                    if includeUUID, let publisher = message.publisher { item["uuid"] = .string(publisher) }
                    if includeType { item["message_type"] = message.messageType.map { .int(Int64($0)) } ?? .null }
                    if includeCustomType, let type = message.customMessageType {
                        item["custom_message_type"] = .string(type)
                    }
                    // The service sends an empty string for a message published without meta.
                    if includeMeta { item["meta"] = message.meta ?? "" }
                    if withActions, let history {
                        item["actions"] = Self.groupedActions(history.actions(on: message.timetoken))
                    }
                    return .object(item)
                })
            if withActions, page.more, let oldest = page.messages.first {
                more = [
                    "url": .string(
                        "/v3/history-with-actions/sub-key/\(subscribeKey)/channel/\(channel)?start=\(oldest.timetoken)&max=\(limit)"
                    ),
                    "start": .string(String(oldest.timetoken)), "max": .int(Int64(limit)),
                ]
            }
        }
        var body: [String: JSONValue] = [
            "status": 200, "error": false, "error_message": "", "channels": .object(result),
        ]
        if let more { body["more"] = more }
        return PubSubWire.json(200, .object(body))
    }

    /// `{"<type>":{"<value>":[{"uuid":…,"actionTimetoken":…}]}}`.
    static func groupedActions(_ actions: [StoredAction]) -> JSONValue {
        var grouped: [String: [String: [JSONValue]]] = [:]
        for action in actions {
            grouped[action.type, default: [:]][action.value, default: []].append(
                ["uuid": .string(action.uuid), "actionTimetoken": .string(String(action.actionTimetoken))])
        }
        return .object(grouped.mapValues { values in .object(values.mapValues { .array($0) }) })
    }

    // MARK: Delete, counts, v2

    private func delete(subscribeKey: String, channels: [String], query: PubSubWire.Query) async -> ServerResponse {
        guard channels.count == 1, let channel = channels.first else {
            return Self.historyError(400, "Deleting takes exactly one channel")
        }
        guard let range = Self.range(query) else { return Self.historyError(400, "Invalid timetoken") }
        guard await bus.deleteMessages(subscribeKey: subscribeKey, channel: channel, range: range) else {
            return Self.historyError(500, "Internal Server Error")
        }
        return PubSubWire.json(200, ["status": 200, "error": false, "error_message": ""])
    }

    private func counts(subscribeKey: String, channels: [String], query: PubSubWire.Query) async -> ServerResponse {
        if channels.count > Self.countChannelLimit {
            return Self.historyError(400, "Too many channels: at most \(Self.countChannelLimit) per request")
        }
        let single = query["timetoken"]
        let list = query["channelsTimetoken"]
        let texts: [String]
        switch (single, list) {
        case (let single?, nil): texts = Array(repeating: single, count: channels.count)
        case (nil, let list?): texts = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        case (nil, nil): return Self.historyError(400, "timetoken or channelsTimetoken is required")
        default: return Self.historyError(400, "timetoken and channelsTimetoken cannot both be given")
        }
        let timetokens = texts.compactMap { UInt64($0) }
        guard timetokens.count == texts.count else { return Self.historyError(400, "Invalid timetoken") }
        if timetokens.count != channels.count {
            // One timetoken in the list stands for every channel, as `timetoken` does.
            guard timetokens.count == 1 else {
                return Self.historyError(400, "The number of channels and the number of timetokens do not match")
            }
        }
        let store = await bus.historySnapshot(subscribeKey)
        let now = bus.historyNow
        var result: [String: JSONValue] = [:]
        for (index, channel) in channels.enumerated() {
            let after = timetokens.count == 1 ? timetokens[0] : timetokens[index]
            let count = min(store.count(channel: channel, after: after, now: now), Self.countCeiling)
            result[channel] = .int(Int64(count))
        }
        return PubSubWire.json(
            200, ["status": 200, "error": false, "error_message": "", "channels": .object(result), "more": [:]])
    }

    /// `[[messages…], first, last]`: each message bare, or `{"message","timetoken","meta"}` with
    /// `include_token` or `include_meta`.
    private func historyV2(subscribeKey: String, channels: [String], query: PubSubWire.Query) async -> ServerResponse {
        guard channels.count == 1, let channel = channels.first else {
            return Self.historyError(400, "History takes exactly one channel")
        }
        guard let range = Self.range(query) else { return Self.historyError(400, "Invalid timetoken") }
        let requested = PubSubWire.clampedInteger(query["count"], in: Int.min...Int.max)
        let limit =
            requested.map { $0 < 1 ? Self.singleChannelMaximum : min($0, Self.singleChannelMaximum) }
            ?? Self.singleChannelMaximum
        let includeToken = query.flag("include_token")
        let includeMeta = query.flag("include_meta")
        let store = await bus.historySnapshot(subscribeKey)
        let now = bus.historyNow
        var messages: [StoredMessage]
        if query.flag("reverse") {
            // Oldest first through the range.
            let all = store.page(channel: channel, range: range, limit: Int.max, now: now).messages
            messages = Array(all.prefix(limit))
        } else {
            messages = store.page(channel: channel, range: range, limit: limit, now: now).messages
        }
        let items: [JSONValue] = messages.map { message in
            guard includeToken || includeMeta else { return message.payload }
            var item: [String: JSONValue] = ["message": message.payload]
            if includeToken { item["timetoken"] = .int(Int64(clamping: message.timetoken)) }
            if includeMeta { item["meta"] = message.meta ?? "" }
            return .object(item)
        }
        let first = Int64(clamping: messages.first?.timetoken ?? 0)
        let last = Int64(clamping: messages.last?.timetoken ?? 0)
        return PubSubWire.json(200, [.array(items), .int(first), .int(last)])
    }

    // MARK: Message actions

    private func actions(_ request: ServerRequest, raw: [Substring], method: String) async -> ServerResponse {
        // v1 message-actions {sub} channel {channel} [message {tt} [action {actionTt}]]
        guard raw.count >= 5, raw[3] == "channel", let subscribeKey = PercentDecoding.decode(raw[2]),
            let channel = PercentDecoding.decode(raw[4]), !channel.isEmpty
        else {
            return Self.actionError(400, "Invalid request")
        }
        guard bus.knows(subscribeKey: subscribeKey) else { return PubSubWire.invalidSubscribeKey() }
        let query = PubSubWire.query(request.rawQuery)
        switch (raw.count, method) {
        case (5, "GET"):
            return await listActions(subscribeKey: subscribeKey, channel: channel, query: query)
        case (7, "POST") where raw[5] == "message":
            guard let messageTimetoken = UInt64(raw[6]) else { return Self.actionError(400, "Invalid timetoken") }
            return await addAction(
                subscribeKey: subscribeKey, channel: channel, messageTimetoken: messageTimetoken, request: request,
                uuid: query["uuid"] ?? "")
        case (9, "DELETE") where raw[5] == "message" && raw[7] == "action":
            guard let messageTimetoken = UInt64(raw[6]), let actionTimetoken = UInt64(raw[8]) else {
                return Self.actionError(400, "Invalid timetoken")
            }
            switch await bus.removeAction(
                subscribeKey: subscribeKey, channel: channel, messageTimetoken: messageTimetoken,
                actionTimetoken: actionTimetoken)
            {
            case .success: return PubSubWire.json(200, ["status": 200, "data": [:]])
            case .failure(.notSaved): return Self.actionError(500, "Internal Server Error")
            case .failure: return Self.actionError(404, "Requested object was not found.")
            }
        case (5, _), (7, _), (9, _):
            return Self.actionError(405, "Method Not Allowed")
        default:
            return Self.actionError(404, "Not Found")
        }
    }

    private func listActions(subscribeKey: String, channel: String, query: PubSubWire.Query) async -> ServerResponse {
        var range = HistoryRange()
        for (name, keyPath) in [("start", \HistoryRange.start), ("end", \HistoryRange.end)] {
            guard let text = query[name] else { continue }
            guard let value = UInt64(text) else { return Self.actionError(400, "Invalid timetoken") }
            range[keyPath: keyPath] = value
        }
        let requested = PubSubWire.clampedInteger(query["limit"], in: Int.min...Int.max)
        let limit =
            requested.map { $0 < 1 ? Self.actionPageLimit : min($0, Self.actionPageLimit) }
            ?? Self.actionPageLimit
        let store = await bus.historySnapshot(subscribeKey)
        let page = store.actions(channel: channel, range: range, limit: limit)
        var body: [String: JSONValue] = ["status": 200, "data": .array(page.actions.map(\.wire))]
        if page.more, let oldest = page.actions.first {
            var more: [String: JSONValue] = [
                "url": .string(
                    "/v1/message-actions/\(subscribeKey)/channel/\(channel)?start=\(oldest.actionTimetoken)&limit=\(limit)"
                ),
                "start": .string(String(oldest.actionTimetoken)), "limit": .int(Int64(limit)),
            ]
            if let end = range.end { more["end"] = .string(String(end)) }
            body["more"] = .object(more)
        }
        return PubSubWire.json(200, .object(body))
    }

    private func addAction(
        subscribeKey: String, channel: String, messageTimetoken: UInt64, request: ServerRequest, uuid: String
    ) async -> ServerResponse {
        guard let body = try? JSONValue(parsing: request.body), body.objectValue != nil else {
            return Self.actionError(400, "Request payload must be in JSON format.")
        }
        guard let type = body["type"]?.stringValue, !type.isEmpty, type.count <= Self.actionTypeLimit,
            let value = body["value"]?.stringValue, !value.isEmpty
        else {
            return Self.actionError(
                400, "Request payload contained invalid input.",
                details: "type must be 1 to \(Self.actionTypeLimit) characters and value a non-empty string")
        }
        guard !uuid.isEmpty else { return Self.actionError(400, "Missing uuid") }
        switch await bus.addAction(
            subscribeKey: subscribeKey, channel: channel, messageTimetoken: messageTimetoken, type: type, value: value,
            uuid: uuid)
        {
        case .success(let action): return PubSubWire.json(200, ["status": 200, "data": action.wire])
        case .failure(.alreadyAdded): return Self.actionError(409, "Action Already Added")
        case .failure: return Self.actionError(500, "Internal Server Error")
        }
    }

    // MARK: Wire helpers

    /// `start` and `end` as timetokens; nil when either is present and not one.
    private static func range(_ query: PubSubWire.Query) -> HistoryRange? {
        var range = HistoryRange()
        if let text = query["start"] {
            guard let value = UInt64(text) else { return nil }
            range.start = value
        }
        if let text = query["end"] {
            guard let value = UInt64(text) else { return nil }
            range.end = value
        }
        return range
    }

    private static func flag(_ query: PubSubWire.Query, _ name: String, default value: Bool) -> Bool {
        guard query.has(name) else { return value }
        return query.flag(name)
    }

    /// History's error body: `{"status":…,"error":true,"error_message":…}`.
    static func historyError(_ status: Int, _ message: String) -> ServerResponse {
        PubSubWire.json(status, ["status": .int(Int64(status)), "error": true, "error_message": .string(message)])
    }

    /// The newer services' error body: `{"status":…,"error":{"message":…,"source":"actions"}}`.
    static func actionError(_ status: Int, _ message: String, details: String? = nil) -> ServerResponse {
        var error: [String: JSONValue] = ["message": .string(message), "source": "actions"]
        if let details {
            error["details"] = [["message": .string(details), "location": "body", "locationType": "body"]]
        }
        return PubSubWire.json(status, ["status": .int(Int64(status)), "error": .object(error)])
    }
}
