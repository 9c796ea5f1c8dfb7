public import JSONCore
public import PubNubCore

/// A time range and page size for the history calls, in PubNub's terms: `start` is exclusive,
/// `end` inclusive, and a page holds the newest messages of its range (oldest first), unless only
/// `end` is set, which reads forward from `end`.
///
/// To page backwards through a channel, pass the oldest timetoken of one page as the next
/// page's `start` (`PubNub.historyPages(of:pageSize:…)` does that
/// for you).
public struct PubNubHistoryRange: Sendable, Hashable {
    /// Messages strictly before (older than) this timetoken; `nil` for the newest.
    public var start: Timetoken?
    /// Messages at or after this timetoken; `nil` for no lower bound.
    public var end: Timetoken?
    /// The most messages per channel (`max`): capped by the service at 100 for one channel and 25
    /// for several or with actions; `nil` for that cap.
    public var limit: Int?

    /// Creates a range; the defaults ask for the newest messages.
    public init(start: Timetoken? = nil, end: Timetoken? = nil, limit: Int? = nil) {
        self.start = start
        self.end = end
        self.limit = limit
    }
}

/// One stored message, as a history fetch returns it.
public struct PubNubHistoryMessage: Sendable, Equatable {
    /// The channel it was published on.
    public var channel: String
    /// The message: decrypted when the client has a crypto module and decryption worked, otherwise
    /// as stored (see ``decryptionError``).
    public var message: JSONValue
    /// Its publish timetoken, which identifies it on its channel (actions and deletes use it).
    public var timetoken: Timetoken
    /// The publisher's user id, when asked for and known.
    public var publisher: String?
    /// The publish metadata, when asked for and the message had some.
    public var meta: JSONValue?
    /// The service's message type, when asked for: `nil` for an ordinary message, 4 for a file.
    public var messageType: Int?
    /// The custom message type given at publish, when asked for.
    public var customMessageType: String?
    /// The actions (reactions, receipts) on the message, when fetched with actions.
    public var actions: [PubNubMessageAction]
    /// Why ``message`` is not decrypted although the client has a crypto module (not a
    /// ciphertext, another key): `.decryptionFailed`, the same rule as messages from subscribe.
    public var decryptionError: PubNubError?

    /// Creates a history message.
    public init(
        channel: String, message: JSONValue, timetoken: Timetoken, publisher: String? = nil, meta: JSONValue? = nil,
        messageType: Int? = nil, customMessageType: String? = nil, actions: [PubNubMessageAction] = [],
        decryptionError: PubNubError? = nil
    ) {
        self.channel = channel
        self.message = message
        self.timetoken = timetoken
        self.publisher = publisher
        self.meta = meta
        self.messageType = messageType
        self.customMessageType = customMessageType
        self.actions = actions
        self.decryptionError = decryptionError
    }

    /// Equal when every field is, a ``decryptionError`` counting only as present or absent
    /// (errors are not comparable).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.channel == rhs.channel && lhs.message == rhs.message && lhs.timetoken == rhs.timetoken
            && lhs.publisher == rhs.publisher && lhs.meta == rhs.meta && lhs.messageType == rhs.messageType
            && lhs.customMessageType == rhs.customMessageType && lhs.actions == rhs.actions
            && (lhs.decryptionError == nil) == (rhs.decryptionError == nil)
    }
}

/// What a history fetch returned.
public struct PubNubFetchedMessages: Sendable, Equatable {
    /// Per channel, its messages oldest first; a channel without messages in the range is absent.
    public var channels: [String: [PubNubHistoryMessage]]
    /// With actions only: the range of the next (older) page, when the service said there is more.
    public var next: PubNubHistoryRange?

    /// Creates a result.
    public init(channels: [String: [PubNubHistoryMessage]], next: PubNubHistoryRange? = nil) {
        self.channels = channels
        self.next = next
    }
}

/// A message action: a reaction, receipt or any `type`/`value` pair a user added to a message.
public struct PubNubMessageAction: Sendable, Hashable {
    /// The action's kind, such as `reaction` (1 to 15 characters).
    public var type: String
    /// Its value, such as `smiley_face`.
    public var value: String
    /// Who added it.
    public var uuid: String
    /// The message it belongs to.
    public var messageTimetoken: Timetoken
    /// The action's own timetoken, drawn by the service; removing it needs this.
    public var actionTimetoken: Timetoken

    /// Creates an action value.
    public init(type: String, value: String, uuid: String, messageTimetoken: Timetoken, actionTimetoken: Timetoken) {
        self.type = type
        self.value = value
        self.uuid = uuid
        self.messageTimetoken = messageTimetoken
        self.actionTimetoken = actionTimetoken
    }
}

/// One page of a channel's message actions, oldest first.
public struct PubNubMessageActionsPage: Sendable, Hashable {
    /// The actions of this page.
    public var actions: [PubNubMessageAction]
    /// The `start` of the next (older) page when the service has more, else `nil`.
    public var nextStart: Timetoken?

    /// Creates a page.
    public init(actions: [PubNubMessageAction], nextStart: Timetoken? = nil) {
        self.actions = actions
        self.nextStart = nextStart
    }
}

extension PubNubError.Reason {
    /// A stored message could not be decrypted with the client's crypto module; it is returned
    /// as stored, with this error beside it.
    public static let decryptionFailed = PubNubError.Reason(rawValue: "decryptionFailed")
}
