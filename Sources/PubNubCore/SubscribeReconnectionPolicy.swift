import Transport

/// When and how often the subscribe loop reconnects after it lost its long-poll.
///
/// Separate from the REST `RetryPolicy`: a lost long-poll is never resent as such; reconnecting
/// means a new handshake (and, with ``PubNubConfiguration/restore``, resuming from the last
/// timetoken), reported through status events on the way. The loop reconnects after network
/// errors, timeouts, 429 and 5xx answers; a `Retry-After` header replaces the computed delay.
///
/// By default it tries forever ("this will happen forever, but the user may decide to stop
/// it"): stop it with `status.cancelAutomaticRetry()` or `pubnub.disconnect()`.
///
/// ```swift
/// var configuration = PubNubConfiguration(publishKey: nil, subscribeKey: "demo", userId: "me")
/// configuration.subscribeReconnectionPolicy = .linear(delay: .seconds(3), maximumAttempts: 10)
/// ```
public struct SubscribeReconnectionPolicy: Sendable, Hashable {
    /// How the delay grows from one attempt to the next.
    public enum Backoff: Sendable, Hashable {
        /// Never reconnect: the first failure stops the loop.
        case none
        /// The same delay before every attempt.
        case linear
        /// `minimumDelay × 2ⁿ` before attempt `n` (from 0), capped at ``SubscribeReconnectionPolicy/maximumDelay``.
        case exponential
    }

    /// How the delay grows.
    public var backoff: Backoff
    /// The delay before the first attempt (and every attempt, for ``Backoff/linear``).
    public var minimumDelay: Duration
    /// The longest computed delay.
    public var maximumDelay: Duration
    /// How many reconnection attempts follow one another before the loop gives up; `nil` for no
    /// limit (the default).
    public var maximumAttempts: Int?
    /// The largest random amount added to a computed delay.
    public var maximumJitter: Duration

    /// Creates a policy from its parts.
    public init(
        backoff: Backoff, minimumDelay: Duration, maximumDelay: Duration, maximumAttempts: Int?,
        maximumJitter: Duration = .seconds(1)
    ) {
        self.backoff = backoff
        self.minimumDelay = max(.zero, minimumDelay)
        self.maximumDelay = max(self.minimumDelay, maximumDelay)
        self.maximumAttempts = maximumAttempts.map { max(0, $0) }
        self.maximumJitter = max(.zero, maximumJitter)
    }

    /// Exponential from 2 s to 150 s, up to 1 s of jitter, no limit on attempts.
    public static let `default` = SubscribeReconnectionPolicy.exponential()

    /// Never reconnect.
    public static let none = SubscribeReconnectionPolicy(
        backoff: .none, minimumDelay: .zero, maximumDelay: .zero, maximumAttempts: 0, maximumJitter: .zero)

    /// The same `delay` before each attempt.
    public static func linear(
        delay: Duration = .seconds(2), maximumAttempts: Int? = nil, maximumJitter: Duration = .seconds(1)
    ) -> SubscribeReconnectionPolicy {
        SubscribeReconnectionPolicy(
            backoff: .linear, minimumDelay: delay, maximumDelay: delay, maximumAttempts: maximumAttempts,
            maximumJitter: maximumJitter)
    }

    /// A delay doubling from `minimumDelay` up to `maximumDelay`.
    public static func exponential(
        minimumDelay: Duration = .seconds(2), maximumDelay: Duration = .seconds(150), maximumAttempts: Int? = nil,
        maximumJitter: Duration = .seconds(1)
    ) -> SubscribeReconnectionPolicy {
        SubscribeReconnectionPolicy(
            backoff: .exponential, minimumDelay: minimumDelay, maximumDelay: maximumDelay,
            maximumAttempts: maximumAttempts, maximumJitter: maximumJitter)
    }

    /// Whether attempt number `attempt` (0 for the first after a failure) may be made.
    public func allowsAttempt(_ attempt: Int) -> Bool {
        guard backoff != .none else { return false }
        guard let maximumAttempts else { return true }
        return attempt < maximumAttempts
    }

    /// The delay before attempt `attempt` with jitter, where `unitRandom` in `0..<1` picks how much
    /// of ``maximumJitter`` to add.
    public func delay(beforeAttempt attempt: Int, unitRandom: Double) -> Duration {
        let base: Duration
        switch backoff {
        case .none:
            base = .zero
        case .linear:
            base = minimumDelay
        case .exponential:
            base = RetryPolicy.doubled(minimumDelay, times: attempt, cappedAt: maximumDelay)
        }
        return RetryPolicy.jittered(base, maximumJitter: maximumJitter, unitRandom: unitRandom)
    }
}
