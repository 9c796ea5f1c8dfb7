/// A report on an operation, in the seed API's status model: from the subscribe loop or its
/// presence calls (connected, reconnected, a failure and whether it is retried, the cursor, what is
/// subscribed), and from a failed publish, fire or signal (category, status code, error data).
///
/// It lives in `PubNubCore` so every feature can produce it; `import Realtime` and
/// `import Messaging` bring it along.
///
/// A status never carries the Access Manager token, in any field or in its description.
///
/// ```swift
/// pubnub.onStatus = { status in
///     if status.category == .accessDenied { refreshToken() }
///     if status.isError && status.willAutomaticallyRetry && userWantsOffline { status.cancelAutomaticRetry() }
/// }
/// ```
public struct PubNubStatus: Sendable, Equatable, CustomStringConvertible {
    /// What a status is about. An open set: compare with the static members.
    public struct Category: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The category's name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The category's name.
        public var description: String { rawValue }

        /// A call succeeded.
        public static let acknowledgment = Category(rawValue: "acknowledgment")
        /// Access Manager refused (403); the loop stops until the token changes.
        public static let accessDenied = Category(rawValue: "accessDenied")
        /// The service did not answer in time.
        public static let timeout = Category(rawValue: "timeout")
        /// The network failed (no route, connection lost, DNS).
        public static let networkIssues = Category(rawValue: "networkIssues")
        /// One subscribe answer held at least `requestMessageCountThreshold` messages (off when the
        /// threshold is 0, the default). A hint that traffic is heavy, not a loss: the loop goes on
        /// from the answer's cursor, and DataSync reports a real gap with `onDataSyncGap`.
        public static let requestMessageCountExceeded = Category(rawValue: "requestMessageCountExceeded")
        /// The loop subscribed to new channels or groups.
        public static let connected = Category(rawValue: "connected")
        /// The loop reconnected after a failure.
        public static let reconnected = Category(rawValue: "reconnected")
        /// The loop unsubscribed from channels or groups, or stopped on request.
        public static let disconnected = Category(rawValue: "disconnected")
        /// The loop lost its connection unexpectedly.
        public static let unexpectedDisconnect = Category(rawValue: "unexpectedDisconnect")
        /// The request was too long (414): too many channels or groups.
        public static let requestURITooLong = Category(rawValue: "requestURITooLong")
        /// The service rejected the configured filter expression.
        public static let malformedFilterExpression = Category(rawValue: "malformedFilterExpression")
        /// The service's answer could not be read.
        public static let malformedResponse = Category(rawValue: "malformedResponse")
        /// A message could not be decrypted.
        public static let decryptionError = Category(rawValue: "decryptionError")
        /// A secure connection could not be established.
        public static let tlsConnectionFailed = Category(rawValue: "tlsConnectionFailed")
        /// The service rejected the request (400), for example an invalid subscribe key, or the
        /// SDK refused to send it (a missing argument, a message over the size limit).
        public static let badRequest = Category(rawValue: "badRequest")
        /// The call was cancelled (its task was cancelled) before an answer arrived.
        public static let cancelled = Category(rawValue: "cancelled")
    }

    /// Which operation a status reports on.
    public struct Operation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The operation's name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The operation's name.
        public var description: String { rawValue }

        /// The subscribe loop.
        public static let subscribe = Operation(rawValue: "subscribe")
        /// Leaving channels.
        public static let unsubscribe = Operation(rawValue: "unsubscribe")
        /// A presence heartbeat.
        public static let heartbeat = Operation(rawValue: "heartbeat")
        /// A publish.
        public static let publish = Operation(rawValue: "publish")
        /// A fire (a publish only the channel's Functions receive).
        public static let fire = Operation(rawValue: "fire")
        /// A signal.
        public static let signal = Operation(rawValue: "signal")
    }

    /// What went wrong, for error statuses.
    public struct ErrorData: Hashable, Sendable {
        /// Channels the service named (mostly Access Manager denials).
        public var channels: [String]
        /// Channel groups the service named, without the service's leading `:`.
        public var channelGroups: [String]
        /// A readable account of the failure.
        public var information: String

        /// Creates error data.
        public init(channels: [String] = [], channelGroups: [String] = [], information: String) {
            self.channels = channels
            self.channelGroups = channelGroups
            self.information = information
        }
    }

    /// What the status is about.
    public var category: Category
    /// The operation it reports on.
    public var operation: Operation
    /// Whether it reports a failure.
    public var isError: Bool
    /// The HTTP status of the answer it reports on, when there was one.
    public var statusCode: Int?
    /// Whether the loop will try again by itself; stop it with ``cancelAutomaticRetry()``.
    public var willAutomaticallyRetry: Bool
    /// The timetoken of the current subscribe cycle.
    public var currentTimetoken: Timetoken?
    /// The timetoken of the previous cycle.
    public var lastTimetoken: Timetoken?
    /// The channels subscribed when the status was made (presence channels included), sorted.
    public var subscribedChannels: [String]
    /// The channel groups subscribed when the status was made, sorted.
    public var subscribedChannelGroups: [String]
    /// Details of a failure.
    public var errorData: ErrorData?
    /// Stops the automatic retry this status announced; `nil` when there is none.
    package var retryCanceller: (@Sendable () -> Void)?

    /// Creates a status.
    public init(
        category: Category, operation: Operation, isError: Bool, statusCode: Int? = nil,
        willAutomaticallyRetry: Bool = false, currentTimetoken: Timetoken? = nil, lastTimetoken: Timetoken? = nil,
        subscribedChannels: [String] = [], subscribedChannelGroups: [String] = [], errorData: ErrorData? = nil
    ) {
        self.category = category
        self.operation = operation
        self.isError = isError
        self.statusCode = statusCode
        self.willAutomaticallyRetry = willAutomaticallyRetry
        self.currentTimetoken = currentTimetoken
        self.lastTimetoken = lastTimetoken
        self.subscribedChannels = subscribedChannels
        self.subscribedChannelGroups = subscribedChannelGroups
        self.errorData = errorData
    }

    /// Stops the automatic reconnection this status announced: the loop stops (keeping its
    /// cursor) and reports `disconnected`; `pubnub.reconnect()` starts it again. Does nothing when
    /// ``willAutomaticallyRetry`` is `false` or the retry already happened.
    public func cancelAutomaticRetry() {
        retryCanceller?()
    }

    /// Compares every field but the retry handle.
    public static func == (lhs: PubNubStatus, rhs: PubNubStatus) -> Bool {
        lhs.category == rhs.category && lhs.operation == rhs.operation && lhs.isError == rhs.isError
            && lhs.statusCode == rhs.statusCode && lhs.willAutomaticallyRetry == rhs.willAutomaticallyRetry
            && lhs.currentTimetoken == rhs.currentTimetoken && lhs.lastTimetoken == rhs.lastTimetoken
            && lhs.subscribedChannels == rhs.subscribedChannels
            && lhs.subscribedChannelGroups == rhs.subscribedChannelGroups && lhs.errorData == rhs.errorData
    }

    /// A one-line summary: category, operation, status code and whether it is retried.
    public var description: String {
        var text = "PubNubStatus(\(category), \(operation)"
        if isError { text += ", error" }
        if let statusCode { text += ", HTTP \(statusCode)" }
        if willAutomaticallyRetry { text += ", will retry" }
        if let information = errorData?.information { text += ": \(information)" }
        return text + ")"
    }
}
