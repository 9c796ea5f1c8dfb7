public import PubNubCore

/// The limits and recovery settings of a live view.
///
/// ```swift
/// var options = PubNubLiveViewOptions()
/// options.maximumObjects = 20_000
/// options.retryPolicy = .exponential(minimumDelay: .seconds(1), maximumDelay: .seconds(30))
/// let view = try pubnub.liveViews.memberships(ofChannel: "general", options: options)
/// ```
public struct PubNubLiveViewOptions: Sendable, Hashable {
    /// The most objects the view may hold; a read or an event that would go past it ends the view
    /// with a `PubNubError` of reason ``PubNubBase/PubNubError/Reason/liveViewTooLarge``. Default 50,000.
    public var maximumObjects: Int
    /// How many deleted ids the view remembers, so a late older copy of a deleted object cannot
    /// bring it back. The newest are kept. Default 10,000.
    public var tombstoneCapacity: Int
    /// The most events held back while a read is in flight; past it they are dropped and the view
    /// reads again once the read ends (staleness ``PubNubLiveStaleness/Reason/overflow``).
    /// Default 10,000.
    public var maximumBufferedEvents: Int
    /// How long the view waits before reading again after a failed read. Attempts follow one
    /// another while it allows them; when it gives up, the view ends with the last error.
    /// Default: exponential from 1 s to 60 s with up to 1 s of jitter, no limit on attempts. The
    /// delays are slept on the client's `configuration.clock`.
    public var retryPolicy: SubscribeReconnectionPolicy
    /// Whether the view reads again after the subscribe loop resumed from its timetoken following
    /// an interruption (a lost long-poll, `disconnect()`/`reconnect()`). The catch-up usually brings
    /// everything, but the service cannot say when its buffer ran past what was missed, so by
    /// default (`true`) the view does not take it on trust. Gaps the loop does detect, and access
    /// denials, always cause a read.
    public var rereadsAfterInterruption: Bool

    /// Creates options; every value starts at its documented default.
    public init(
        maximumObjects: Int = 50_000, tombstoneCapacity: Int = 10_000, maximumBufferedEvents: Int = 10_000,
        retryPolicy: SubscribeReconnectionPolicy = .exponential(
            minimumDelay: .seconds(1), maximumDelay: .seconds(60), maximumJitter: .seconds(1)),
        rereadsAfterInterruption: Bool = true
    ) {
        self.maximumObjects = max(1, maximumObjects)
        self.tombstoneCapacity = max(0, tombstoneCapacity)
        self.maximumBufferedEvents = max(1, maximumBufferedEvents)
        self.retryPolicy = retryPolicy
        self.rereadsAfterInterruption = rereadsAfterInterruption
    }
}
