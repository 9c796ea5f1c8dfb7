public import JSONCore

/// A message or a signal received on a subscribed channel.
///
/// ```swift
/// struct Chat: Decodable { var text: String }
/// subscription.onMessage = { message in
///     let chat = try? message.decodePayload(Chat.self)
///     print(message.publisher ?? "?", message.channel, chat?.text ?? "")
/// }
/// ```
public struct PubNubMessage: Hashable, Sendable {
    /// The message as published.
    public var payload: JSONValue
    /// The channel it was published on.
    public var channel: String
    /// What this client subscribed to that delivered it (a channel group or wildcard pattern), or
    /// `nil` when that was the channel itself.
    public var subscription: String?
    /// The publisher's user id, when the service sent it.
    public var publisher: String?
    /// When it was published.
    public var timetoken: Timetoken
    /// The `meta` object the publisher attached, if any.
    public var metadata: JSONValue?
    /// The publisher's custom message type, if any.
    public var customMessageType: String?

    /// Creates a message.
    public init(
        payload: JSONValue, channel: String, subscription: String? = nil, publisher: String? = nil,
        timetoken: Timetoken, metadata: JSONValue? = nil, customMessageType: String? = nil
    ) {
        self.payload = payload
        self.channel = channel
        self.subscription = subscription
        self.publisher = publisher
        self.timetoken = timetoken
        self.metadata = metadata
        self.customMessageType = customMessageType
    }

    /// Decodes ``payload`` as your own type.
    ///
    /// - Throws: `JSONError` naming the coding path when the payload has another shape.
    public func decodePayload<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try payload.decode(type)
    }
}

/// A signal: a small message delivered like ``PubNubMessage`` but never stored.
public typealias PubNubSignal = PubNubMessage

/// What happened in a presence event. An open set: an action this SDK does not know decodes too.
public struct PubNubPresenceAction: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The action as the service wrote it.
    public let rawValue: String
    /// Wraps an action.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The action text.
    public var description: String { rawValue }

    /// A user joined the channel.
    public static let join = PubNubPresenceAction(rawValue: "join")
    /// A user left the channel.
    public static let leave = PubNubPresenceAction(rawValue: "leave")
    /// A user stopped sending heartbeats and timed out.
    public static let timeout = PubNubPresenceAction(rawValue: "timeout")
    /// A user changed its presence state.
    public static let stateChange = PubNubPresenceAction(rawValue: "state-change")
    /// The periodic summary of a busy channel, with the deltas since the last one.
    public static let interval = PubNubPresenceAction(rawValue: "interval")
}

/// A presence event from a channel's `-pnpres` channel.
public struct PubNubPresenceEvent: Hashable, Sendable {
    /// What happened.
    public var event: PubNubPresenceAction
    /// The channel whose presence changed (without the `-pnpres` suffix).
    public var channel: String
    /// What this client subscribed to that delivered it (`<name>-pnpres` of a group or pattern),
    /// or `nil` when that was the channel's own presence channel.
    public var subscription: String?
    /// The user the event is about; `nil` for `interval` events.
    public var uuid: String?
    /// How many users are on the channel, when the service said.
    public var occupancy: Int?
    /// When the event was published.
    public var timetoken: Timetoken
    /// The service's Unix time of the change, in seconds, when given.
    public var timestamp: Int?
    /// The user's presence state (`state-change`, and joins or leaves that carry it).
    public var state: JSONValue?
    /// Users who joined since the last `interval` event (with presence deltas on).
    public var join: [String]
    /// Users who left since the last `interval` event.
    public var leave: [String]
    /// Users who timed out since the last `interval` event.
    public var timeout: [String]
    /// `true` when the deltas were too large to send: call here-now for the full list.
    public var hereNowRefresh: Bool

    /// Creates a presence event.
    public init(
        event: PubNubPresenceAction, channel: String, subscription: String? = nil, uuid: String? = nil,
        occupancy: Int? = nil, timetoken: Timetoken, timestamp: Int? = nil, state: JSONValue? = nil,
        join: [String] = [], leave: [String] = [], timeout: [String] = [], hereNowRefresh: Bool = false
    ) {
        self.event = event
        self.channel = channel
        self.subscription = subscription
        self.uuid = uuid
        self.occupancy = occupancy
        self.timetoken = timetoken
        self.timestamp = timestamp
        self.state = state
        self.join = join
        self.leave = leave
        self.timeout = timeout
        self.hereNowRefresh = hereNowRefresh
    }
}

/// A message action (reaction) added to or removed from a message.
public struct PubNubMessageActionEvent: Hashable, Sendable {
    /// `added` or `removed`.
    public var event: String
    /// The channel of the message.
    public var channel: String
    /// What this client subscribed to that delivered it, or `nil` for the channel itself.
    public var subscription: String?
    /// The action's type, such as `reaction`.
    public var type: String
    /// The action's value, such as `smiley_face`.
    public var value: String
    /// The timetoken of the message the action belongs to.
    public var messageTimetoken: Timetoken
    /// The timetoken of the action itself.
    public var actionTimetoken: Timetoken
    /// The user who added or removed it.
    public var uuid: String?
    /// When the event was published.
    public var timetoken: Timetoken

    /// Creates a message action event.
    public init(
        event: String, channel: String, subscription: String? = nil, type: String, value: String,
        messageTimetoken: Timetoken, actionTimetoken: Timetoken, uuid: String? = nil, timetoken: Timetoken
    ) {
        self.event = event
        self.channel = channel
        self.subscription = subscription
        self.type = type
        self.value = value
        self.messageTimetoken = messageTimetoken
        self.actionTimetoken = actionTimetoken
        self.uuid = uuid
        self.timetoken = timetoken
    }
}

/// An App Context (objects) change: user (`uuid`), channel or membership metadata set or deleted.
public struct PubNubAppContextEvent: Hashable, Sendable {
    /// `set` or `delete`.
    public var event: String
    /// `uuid`, `channel` or `membership`.
    public var type: String
    /// The channel the event came on.
    public var channel: String
    /// What this client subscribed to that delivered it, or `nil` for the channel itself.
    public var subscription: String?
    /// The changed object as the service sent it (`id`, `updated`, `eTag`, …; for a membership
    /// `uuid.id` and `channel.id`).
    public var data: JSONValue
    /// When the event was published.
    public var timetoken: Timetoken

    /// Creates an App Context event.
    public init(
        event: String, type: String, channel: String, subscription: String? = nil, data: JSONValue,
        timetoken: Timetoken
    ) {
        self.event = event
        self.type = type
        self.channel = channel
        self.subscription = subscription
        self.data = data
        self.timetoken = timetoken
    }
}

/// A file shared on a channel.
public struct PubNubFileEvent: Hashable, Sendable {
    /// The channel the file was shared on.
    public var channel: String
    /// What this client subscribed to that delivered it, or `nil` for the channel itself.
    public var subscription: String?
    /// The uploader's user id.
    public var publisher: String?
    /// The message sent with the file, if any.
    public var message: JSONValue?
    /// The file's id.
    public var fileId: String
    /// The file's name.
    public var fileName: String
    /// The size in bytes, when given.
    public var size: Int?
    /// The media type, when given.
    public var mimeType: String?
    /// When the file was announced.
    public var timetoken: Timetoken
    /// The `meta` object the uploader attached, if any.
    public var metadata: JSONValue?
    /// The uploader's custom message type, if any.
    public var customMessageType: String?

    /// Creates a file event.
    public init(
        channel: String, subscription: String? = nil, publisher: String? = nil, message: JSONValue? = nil,
        fileId: String, fileName: String, size: Int? = nil, mimeType: String? = nil, timetoken: Timetoken,
        metadata: JSONValue? = nil, customMessageType: String? = nil
    ) {
        self.channel = channel
        self.subscription = subscription
        self.publisher = publisher
        self.message = message
        self.fileId = fileId
        self.fileName = fileName
        self.size = size
        self.mimeType = mimeType
        self.timetoken = timetoken
        self.metadata = metadata
        self.customMessageType = customMessageType
    }
}

/// An event delivered as the service sent it: any event type this SDK does not know, or one whose
/// payload had an unexpected shape, so nothing is dropped.
public struct PubNubRawEvent: Hashable, Sendable {
    /// The wire's event type (`e`), `nil` when absent.
    public var type: Int?
    /// The channel it came on.
    public var channel: String
    /// What this client subscribed to that delivered it, or `nil` for the channel itself.
    public var subscription: String?
    /// The publisher's user id, when given.
    public var publisher: String?
    /// When it was published.
    public var timetoken: Timetoken
    /// The payload (`d`).
    public var payload: JSONValue
    /// The metadata (`u`), if any.
    public var metadata: JSONValue?
    /// The custom message type, if any.
    public var customMessageType: String?

    /// Creates a raw event.
    public init(
        type: Int?, channel: String, subscription: String? = nil, publisher: String? = nil, timetoken: Timetoken,
        payload: JSONValue, metadata: JSONValue? = nil, customMessageType: String? = nil
    ) {
        self.type = type
        self.channel = channel
        self.subscription = subscription
        self.publisher = publisher
        self.timetoken = timetoken
        self.payload = payload
        self.metadata = metadata
        self.customMessageType = customMessageType
    }
}

/// Any real-time event, as the `onEvents` listener and the `events()` stream deliver them.
public enum PubNubEvent: Hashable, Sendable {
    /// A published message.
    case message(PubNubMessage)
    /// A signal.
    case signal(PubNubSignal)
    /// A presence change.
    case presence(PubNubPresenceEvent)
    /// A message action added or removed.
    case messageAction(PubNubMessageActionEvent)
    /// An App Context change.
    case appContext(PubNubAppContextEvent)
    /// A shared file.
    case file(PubNubFileEvent)
    /// A DataSync change (`e` = 5, `metadata.source` = `data-sync`).
    case dataSync(PubNubDataSyncEvent)
    /// An event of a type this SDK does not know, or one whose payload had an unexpected shape.
    case unknown(PubNubRawEvent)

    /// The channel the event came on.
    public var channel: String {
        switch self {
        case .message(let event), .signal(let event): return event.channel
        case .presence(let event): return event.channel
        case .messageAction(let event): return event.channel
        case .appContext(let event): return event.channel
        case .file(let event): return event.channel
        case .dataSync(let event): return event.channel
        case .unknown(let event): return event.channel
        }
    }

    /// When the event was published.
    public var timetoken: Timetoken {
        switch self {
        case .message(let event), .signal(let event): return event.timetoken
        case .presence(let event): return event.timetoken
        case .messageAction(let event): return event.timetoken
        case .appContext(let event): return event.timetoken
        case .file(let event): return event.timetoken
        case .dataSync(let event): return event.timetoken
        case .unknown(let event): return event.timetoken
        }
    }
}
