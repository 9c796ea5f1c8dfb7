package import JSONCore
package import PubNubBase
package import PubNubCore
import PubNubCrypto
import Transport

/// What a publish, fire or signal sends, before keys and wire form are applied.
package struct PublishOptions: Sendable {
    /// Which of the three calls this is.
    package enum Kind: Sendable, Hashable {
        case publish
        case fire
        case signal
    }

    package var kind: Kind
    package var channel: String
    package var message: (any JSONCodable)?
    package var payloads: PubNubPushPayload?
    package var customMessageType: String?
    package var shouldStore: Bool?
    package var storeTTL: Int?
    package var meta: (any JSONCodable)?
    package var shouldCompress: Bool

    package init(
        kind: Kind, channel: String, message: (any JSONCodable)?, payloads: PubNubPushPayload? = nil,
        customMessageType: String? = nil, shouldStore: Bool? = nil, storeTTL: Int? = nil,
        meta: (any JSONCodable)? = nil, shouldCompress: Bool = false
    ) {
        self.kind = kind
        self.channel = channel
        self.message = message
        self.payloads = payloads
        self.customMessageType = customMessageType
        self.shouldStore = shouldStore
        self.storeTTL = storeTTL
        self.meta = meta
        self.shouldCompress = shouldCompress
    }
}

/// The requests of the publish family, channel groups, presence and time (Documentation/Messaging.md):
/// paths, operation queries, headers, bodies and the checks made before sending.
package enum MessagingCall {
    /// The longest GET request target (path and query, before the `auth` parameter is added) a
    /// publish sends; a longer one goes as POST. The service reads request lines up to 32 KiB;
    /// the margin leaves room for `auth`, the method and the protocol version.
    package static let getTargetLimit = 32_000
    /// The most channels one add or remove call to a channel group may carry.
    package static let channelGroupBatchLimit = 200
    /// The largest here-now page.
    package static let hereNowLimit = 1000

    /// `Content-Type` of a POST publish body.
    static let jsonContentType = "application/json; charset=UTF-8"

    // MARK: publish, fire, signal

    /// The request for `options`: GET with the message in the path, or POST with the message (gzip
    /// compressed when asked) in the body when compression is on or the GET target would be longer
    /// than ``getTargetLimit`` (measured by `targetLength`, which sees the finished request).
    ///
    /// - Throws: `PubNubError`: `.invalidConfiguration` without a publish key;
    ///   `.missingRequiredParameter` for an empty channel or no message; `.invalidArguments` for a
    ///   message or metadata that cannot be written as JSON, a bad custom message type or a negative
    ///   TTL, or an encryption failure; `.messageTooLarge` or `.signalTooLarge` over the limits.
    package static func publish(
        _ options: PublishOptions, publishKey: String?, subscribeKey: String,
        settings: PubNub.MessagingConfiguration,
        targetLength: (ServicePipeline.Call) throws(PubNubError) -> Int
    ) throws(PubNubError) -> ServicePipeline.Call {
        guard let publishKey, !publishKey.isEmpty else {
            throw PubNubError(
                reason: .invalidConfiguration,
                message: "publishing needs a publish key (PubNubConfiguration.publishKey); nothing was sent")
        }
        if options.channel.isEmpty { throw PubNubError.missingRequiredParameter("channel") }
        var message = try json(options.message, what: "message")
        if options.kind != .signal, let crypto = settings.cryptoModule, let plain = message {
            message = try crypto.encryptedForRequest(plain, what: "the message")
        }
        // Push sections are merged after encryption: the push services must read them, so an
        // encrypted message travels under `pn_other` beside them.
        let value = try messageValue(message, options)
        let text = try jsonBytes(value, what: "message")
        let query = try publishQuery(options)
        let endpoint = options.kind == .signal ? "signal" : "publish"
        let base =
            "/\(endpoint)/" + HTTPRequest.encodePathSegment(publishKey) + "/"
            + HTTPRequest.encodePathSegment(subscribeKey) + "/0/" + HTTPRequest.encodePathSegment(options.channel)
            + "/0"
        let channelBytes = options.channel.utf8.count

        if options.kind == .signal {
            guard text.count <= settings.signalSizeLimit else {
                throw PubNubError(
                    reason: .signalTooLarge,
                    message:
                        "the signal is \(text.count) bytes of JSON, over the limit of \(settings.signalSizeLimit); nothing was sent"
                )
            }
            let segment = HTTPRequest.encodePathSegment(String(decoding: text, as: UTF8.self))
            return ServicePipeline.Call(method: .get, path: base + "/" + segment, query: query)
        }

        if !options.shouldCompress {
            let segment = HTTPRequest.encodePathSegment(String(decoding: text, as: UTF8.self))
            let get = ServicePipeline.Call(method: .get, path: base + "/" + segment, query: query)
            if try targetLength(get) <= getTargetLimit {
                try checkMessageSize(channelBytes + segment.utf8.count, settings: settings, form: "percent-encoded")
                return get
            }
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: jsonContentType)
        var body = text
        if options.shouldCompress {
            guard let compressed = GzipBody.compress(text) else {
                throw PubNubError(reason: .invalidArguments, message: "the message could not be gzip-compressed")
            }
            body = compressed
            headers.add(name: "Content-Encoding", value: "gzip")
        }
        try checkMessageSize(
            channelBytes + body.count, settings: settings, form: options.shouldCompress ? "compressed" : "JSON")
        return ServicePipeline.Call(method: .post, path: base, query: query, headers: headers, body: body)
    }

    private static func checkMessageSize(
        _ size: Int, settings: PubNub.MessagingConfiguration, form: String
    ) throws(PubNubError) {
        guard size <= settings.messageSizeLimit else {
            throw PubNubError(
                reason: .messageTooLarge,
                message:
                    "the channel name and \(form) message take \(size) bytes, over the limit of \(settings.messageSizeLimit); nothing was sent"
            )
        }
    }

    /// The message (already encrypted when it must be) with the push sections merged in.
    private static func messageValue(_ message: JSONValue?, _ options: PublishOptions) throws(PubNubError)
        -> JSONValue
    {
        if let payloads = options.payloads, !payloads.isEmpty, options.kind != .signal {
            return payloads.merged(into: message)
        }
        guard let message else { throw PubNubError.missingRequiredParameter("message") }
        return message
    }

    private static func publishQuery(_ options: PublishOptions) throws(PubNubError) -> [HTTPQueryItem] {
        var query: [HTTPQueryItem] = []
        if let type = options.customMessageType {
            try validateCustomMessageType(type)
            query.append(HTTPQueryItem(name: "custom_message_type", value: type))
        }
        guard options.kind != .signal else { return query }
        switch options.kind {
        case .fire:
            query.append(HTTPQueryItem(name: "store", value: "0"))
            query.append(HTTPQueryItem(name: "norep", value: "true"))
        default:
            if let store = options.shouldStore {
                query.append(HTTPQueryItem(name: "store", value: store ? "1" : "0"))
            }
            if let ttl = options.storeTTL {
                guard ttl >= 0 else {
                    throw PubNubError(
                        reason: .invalidArguments, message: "storeTTL must not be negative; nothing was sent",
                        details: [PubNubError.Detail(message: "must not be negative", path: "storeTTL")])
                }
                query.append(HTTPQueryItem(name: "ttl", value: String(ttl)))
            }
        }
        if let meta = try json(options.meta, what: "meta") {
            query.append(
                HTTPQueryItem(name: "meta", value: String(decoding: try jsonBytes(meta, what: "meta"), as: UTF8.self)))
        }
        return query
    }

    /// Checks the service's rule for `custom_message_type`: 3 to 50 characters of `A-Z a-z 0-9 _ -`,
    /// not starting with `-`, `_`, `pn-` or `pn_`.
    package static func validateCustomMessageType(_ type: String) throws(PubNubError) {
        let allowed = type.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
        let lowered = type.lowercased()
        let badStart =
            type.hasPrefix("-") || type.hasPrefix("_") || lowered.hasPrefix("pn-") || lowered.hasPrefix("pn_")
        guard allowed, (3...50).contains(type.utf8.count), !badStart else {
            throw PubNubError(
                reason: .invalidArguments,
                message:
                    "customMessageType must be 3 to 50 characters of A-Z a-z 0-9 _ -, not starting with -, _, pn- or pn_; nothing was sent",
                details: [PubNubError.Detail(message: "invalid custom message type", path: "customMessageType")])
        }
    }

    // MARK: channel groups

    /// `/v1/channel-registration/sub-key/{sub}/channel-group[/{group}]`.
    private static func groupPath(subscribeKey: String, group: String?) -> String {
        var path = "/v1/channel-registration/sub-key/" + HTTPRequest.encodePathSegment(subscribeKey) + "/channel-group"
        if let group { path += "/" + HTTPRequest.encodePathSegment(group) }
        return path
    }

    /// Adds (`add=`) or removes (`remove=`) channels of a group.
    ///
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty group or channel list,
    ///   `.invalidArguments` for an empty channel name or one holding `,`,
    ///   `.channelGroupLimitExceeded` for more than ``channelGroupBatchLimit`` channels.
    package static func changeGroup(
        subscribeKey: String, group: String, adding: Bool, channels: [String]
    ) throws(PubNubError) -> ServicePipeline.Call {
        if group.isEmpty { throw PubNubError.missingRequiredParameter("group") }
        if channels.isEmpty { throw PubNubError.missingRequiredParameter("channels") }
        guard channels.count <= channelGroupBatchLimit else {
            throw PubNubError(
                reason: .channelGroupLimitExceeded,
                message:
                    "one call can \(adding ? "add" : "remove") at most \(channelGroupBatchLimit) channels, not \(channels.count); nothing was sent"
            )
        }
        let value = try queryList(channels, what: "channels")
        return ServicePipeline.Call(
            method: .get, path: groupPath(subscribeKey: subscribeKey, group: group),
            query: [HTTPQueryItem(name: adding ? "add" : "remove", value: value)])
    }

    /// Lists a group's channels (no query).
    package static func listGroup(subscribeKey: String, group: String) throws(PubNubError) -> ServicePipeline.Call {
        if group.isEmpty { throw PubNubError.missingRequiredParameter("group") }
        return ServicePipeline.Call(method: .get, path: groupPath(subscribeKey: subscribeKey, group: group))
    }

    /// Lists the keyset's groups.
    package static func listGroups(subscribeKey: String) -> ServicePipeline.Call {
        ServicePipeline.Call(method: .get, path: groupPath(subscribeKey: subscribeKey, group: nil))
    }

    /// Deletes a group: `…/channel-group/{group}/remove`.
    package static func deleteGroup(subscribeKey: String, group: String) throws(PubNubError) -> ServicePipeline.Call {
        if group.isEmpty { throw PubNubError.missingRequiredParameter("group") }
        return ServicePipeline.Call(
            method: .get, path: groupPath(subscribeKey: subscribeKey, group: group) + "/remove")
    }

    // MARK: presence

    private static func presenceBase(subscribeKey: String) -> String {
        "/v2/presence/sub-key/" + HTTPRequest.encodePathSegment(subscribeKey)
    }

    /// Channel names as one path segment list: each name encoded, joined with a literal `,`; the
    /// single segment `,` for no channels.
    package static func pathList(_ names: [String]) -> String {
        names.isEmpty ? "," : names.map(HTTPRequest.encodePathSegment).joined(separator: ",")
    }

    /// Names joined with `,` for a query value; a name holding `,` could not be told apart.
    private static func queryList(_ names: [String], what: String) throws(PubNubError) -> String {
        for name in names {
            guard !name.isEmpty, !name.contains(",") else {
                throw PubNubError(
                    reason: .invalidArguments,
                    message: "a name in `\(what)` is empty or holds a comma; nothing was sent",
                    details: [PubNubError.Detail(message: "empty or holds ','", path: what)])
            }
        }
        return names.joined(separator: ",")
    }

    private static func groupQuery(_ groups: [String]) throws(PubNubError) -> [HTTPQueryItem] {
        groups.isEmpty ? [] : [HTTPQueryItem(name: "channel-group", value: try queryList(groups, what: "groups"))]
    }

    private static func checkNames(_ channels: [String]) throws(PubNubError) {
        if channels.contains(where: \.isEmpty) {
            throw PubNubError(
                reason: .invalidArguments, message: "a channel name is empty; nothing was sent",
                details: [PubNubError.Detail(message: "empty name", path: "channels")])
        }
    }

    /// Here-now: `…/channel/{channels}` with `disable_uuids`, `state`, `limit`, `offset` and
    /// `channel-group`; the global form `/v2/presence/sub-key/{sub}` without channels and groups.
    ///
    /// - Throws: `PubNubError` `.invalidArguments` for a limit outside 0...1000, a negative
    ///   offset, or an empty name.
    package static func hereNow(
        subscribeKey: String, channels: [String], groups: [String], includeUUIDs: Bool, includeState: Bool,
        limit: Int, offset: Int?
    ) throws(PubNubError) -> ServicePipeline.Call {
        try checkNames(channels)
        guard (0...hereNowLimit).contains(limit) else {
            throw PubNubError(
                reason: .invalidArguments, message: "limit must be within 0...\(hereNowLimit); nothing was sent",
                details: [PubNubError.Detail(message: "out of range", path: "limit")])
        }
        if let offset, offset < 0 {
            throw PubNubError(
                reason: .invalidArguments, message: "offset must not be negative; nothing was sent",
                details: [PubNubError.Detail(message: "negative", path: "offset")])
        }
        var query = [
            HTTPQueryItem(name: "disable_uuids", value: includeUUIDs ? "0" : "1"),
            HTTPQueryItem(name: "state", value: includeState ? "1" : "0"),
            HTTPQueryItem(name: "limit", value: String(limit)),
        ]
        if let offset { query.append(HTTPQueryItem(name: "offset", value: String(offset))) }
        query += try groupQuery(groups)
        var path = presenceBase(subscribeKey: subscribeKey)
        if !channels.isEmpty || !groups.isEmpty { path += "/channel/" + pathList(channels) }
        return ServicePipeline.Call(method: .get, path: path, query: query)
    }

    /// Where-now: `/v2/presence/sub-key/{sub}/uuid/{uuid}`.
    package static func whereNow(subscribeKey: String, userId: String) throws(PubNubError) -> ServicePipeline.Call {
        if userId.isEmpty { throw PubNubError.missingRequiredParameter("userId") }
        return ServicePipeline.Call(
            method: .get,
            path: presenceBase(subscribeKey: subscribeKey) + "/uuid/" + HTTPRequest.encodePathSegment(userId))
    }

    /// Set state: `…/channel/{channels}/uuid/{uuid}/data?state=<JSON object>[&channel-group=]`.
    ///
    /// - Throws: `PubNubError`: `.missingRequiredParameter` without channels and groups,
    ///   `.invalidArguments` for a state that is not a JSON object.
    package static func setState(
        subscribeKey: String, userId: String, state: any JSONCodable, channels: [String], groups: [String]
    ) throws(PubNubError) -> ServicePipeline.Call {
        if channels.isEmpty && groups.isEmpty { throw PubNubError.missingRequiredParameter("channels") }
        try checkNames(channels)
        guard let value = try json(state, what: "state"), value.objectValue != nil else {
            throw PubNubError(
                reason: .invalidArguments, message: "presence state must be a JSON object; nothing was sent",
                details: [PubNubError.Detail(message: "not an object", path: "state")])
        }
        let text = String(decoding: try jsonBytes(value, what: "state"), as: UTF8.self)
        let path =
            presenceBase(subscribeKey: subscribeKey) + "/channel/" + pathList(channels) + "/uuid/"
            + HTTPRequest.encodePathSegment(userId) + "/data"
        return ServicePipeline.Call(
            method: .get, path: path, query: [HTTPQueryItem(name: "state", value: text)] + (try groupQuery(groups)))
    }

    /// Get state: `…/channel/{channels}/uuid/{uuid}[?channel-group=]`.
    package static func getState(
        subscribeKey: String, userId: String, channels: [String], groups: [String]
    ) throws(PubNubError) -> ServicePipeline.Call {
        if userId.isEmpty { throw PubNubError.missingRequiredParameter("userId") }
        if channels.isEmpty && groups.isEmpty { throw PubNubError.missingRequiredParameter("channels") }
        try checkNames(channels)
        let path =
            presenceBase(subscribeKey: subscribeKey) + "/channel/" + pathList(channels) + "/uuid/"
            + HTTPRequest.encodePathSegment(userId)
        return ServicePipeline.Call(method: .get, path: path, query: try groupQuery(groups))
    }

    // MARK: time

    /// `/time/0`.
    package static let time = ServicePipeline.Call(method: .get, path: "/time/0")

    // MARK: JSON

    private static func json(_ value: (any JSONCodable)?, what: String) throws(PubNubError) -> JSONValue? {
        guard let value else { return nil }
        do {
            return try value.jsonValue()
        } catch {
            throw PubNubError(
                reason: .invalidArguments, message: "`\(what)` cannot be encoded as JSON: \(error); nothing was sent",
                underlying: error)
        }
    }

    private static func jsonBytes(_ value: JSONValue, what: String) throws(PubNubError) -> [UInt8] {
        do {
            return try value.jsonBytes(sortedKeys: true)
        } catch {
            throw PubNubError(
                reason: .invalidArguments, message: "`\(what)` cannot be written as JSON: \(error); nothing was sent",
                underlying: error)
        }
    }
}
