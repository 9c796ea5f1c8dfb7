/// When and how often ``RetryMiddleware`` resends a request.
///
/// Three shapes, as PubNub's SDKs use them:
/// - ``none``: never retry.
/// - ``linear(delay:maximumRetries:maximumJitter:maximumDelay:)``: the same delay before every retry.
/// - ``exponential(minimumDelay:maximumDelay:maximumRetries:maximumJitter:)``: `minimumDelay × 2ⁿ`
///   before retry `n` (counting from 0), capped at `maximumDelay`.
///
/// A random jitter between zero and ``maximumJitter`` is added to every computed delay, so many
/// clients that failed together do not retry together. A `Retry-After` header replaces the
/// computed delay (without jitter).
///
/// ```swift
/// let client = try PlatformHTTPClient.make().with([
///     RetryMiddleware(policy: .exponential(minimumDelay: .seconds(2), maximumDelay: .seconds(150)))
/// ])
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// How the delay grows from one retry to the next.
    public enum Backoff: Sendable, Hashable {
        /// Never retry.
        case none
        /// The same delay before every retry: ``RetryPolicy/minimumDelay``.
        case linear
        /// `minimumDelay × 2ⁿ`, capped at ``RetryPolicy/maximumDelay``.
        case exponential
    }

    /// How the delay grows.
    public var backoff: Backoff
    /// The delay before the first retry (and every retry, for ``Backoff/linear``).
    public var minimumDelay: Duration
    /// The longest computed delay (for ``Backoff/exponential``), and the longest `Retry-After` the
    /// middleware waits for: one asking for longer makes it give up and return the response
    /// instead of resending early.
    public var maximumDelay: Duration
    /// How many times one request may be resent after its first attempt.
    public var maximumRetries: Int
    /// The largest random amount added to a computed delay.
    public var maximumJitter: Duration
    /// The HTTP statuses worth retrying.
    public var retryableStatuses: Set<Int>

    /// The statuses retried by default: 429, 500, 502, 503 and 504.
    public static let defaultRetryableStatuses: Set<Int> = [429, 500, 502, 503, 504]

    /// Creates a policy from its parts.
    public init(
        backoff: Backoff, minimumDelay: Duration, maximumDelay: Duration, maximumRetries: Int,
        maximumJitter: Duration = .seconds(1), retryableStatuses: Set<Int> = RetryPolicy.defaultRetryableStatuses
    ) {
        self.backoff = backoff
        self.minimumDelay = max(.zero, minimumDelay)
        self.maximumDelay = max(self.minimumDelay, maximumDelay)
        self.maximumRetries = max(0, maximumRetries)
        self.maximumJitter = max(.zero, maximumJitter)
        self.retryableStatuses = retryableStatuses
    }

    /// A policy that never retries.
    public static let none = RetryPolicy(
        backoff: .none, minimumDelay: .zero, maximumDelay: .zero, maximumRetries: 0, maximumJitter: .zero)

    /// The same `delay` before each of up to `maximumRetries` retries. `maximumDelay` only caps
    /// how long a `Retry-After` header may make the middleware wait.
    ///
    /// - Parameters:
    ///   - delay: The wait before each retry; 2 s by default.
    ///   - maximumRetries: How many times a request may be resent after the first attempt; 10 by
    ///     default, 0 never resends.
    ///   - maximumJitter: The most random time added to each wait, so clients that failed together
    ///     spread out; 1 s by default.
    ///   - maximumDelay: The longest `Retry-After` the middleware honours; a longer one ends the
    ///     retries. 150 s by default.
    public static func linear(
        delay: Duration = .seconds(2), maximumRetries: Int = 10, maximumJitter: Duration = .seconds(1),
        maximumDelay: Duration = .seconds(150)
    ) -> RetryPolicy {
        RetryPolicy(
            backoff: .linear, minimumDelay: delay, maximumDelay: maximumDelay, maximumRetries: maximumRetries,
            maximumJitter: maximumJitter)
    }

    /// A delay doubling from `minimumDelay` up to `maximumDelay`, for up to `maximumRetries` retries.
    ///
    /// - Parameters:
    ///   - minimumDelay: The wait before the first retry, doubled for each one after; 2 s by default.
    ///   - maximumDelay: The cap on every wait, and the longest `Retry-After` honoured; 150 s by
    ///     default.
    ///   - maximumRetries: How many times a request may be resent after the first attempt; 6 by
    ///     default, 0 never resends.
    ///   - maximumJitter: The most random time added to each wait; 1 s by default.
    public static func exponential(
        minimumDelay: Duration = .seconds(2), maximumDelay: Duration = .seconds(150), maximumRetries: Int = 6,
        maximumJitter: Duration = .seconds(1)
    ) -> RetryPolicy {
        RetryPolicy(
            backoff: .exponential, minimumDelay: minimumDelay, maximumDelay: maximumDelay,
            maximumRetries: maximumRetries, maximumJitter: maximumJitter)
    }

    /// Whether retry number `retry` (0 for the first) is allowed at all.
    public func allowsRetry(_ retry: Int) -> Bool {
        backoff != .none && retry < maximumRetries
    }

    /// The delay before retry number `retry` (0 for the first), before jitter.
    public func baseDelay(beforeRetry retry: Int) -> Duration {
        switch backoff {
        case .none:
            return .zero
        case .linear:
            return minimumDelay
        case .exponential:
            return Self.doubled(minimumDelay, times: retry, cappedAt: maximumDelay)
        }
    }

    /// `delay × 2ⁿ` capped at `cap`, doubling step by step so a large `n` cannot overflow; shared
    /// with the subscribe loop's reconnection policy.
    package static func doubled(_ delay: Duration, times n: Int, cappedAt cap: Duration) -> Duration {
        var delay = delay
        var step = 0
        while step < n, delay < cap {
            delay *= 2
            step += 1
        }
        return min(delay, cap)
    }

    /// `base` plus the share of `maximumJitter` that `unitRandom` picks (clamped to `0...1`, NaN as 0).
    package static func jittered(_ base: Duration, maximumJitter: Duration, unitRandom: Double) -> Duration {
        let fraction = unitRandom.isFinite ? min(max(unitRandom, 0), 1) : 0
        return base + maximumJitter * fraction
    }

    /// The delay before retry number `retry` with jitter added, where `unitRandom` is a number in
    /// `0..<1` choosing how much of ``maximumJitter`` to add.
    ///
    /// - Parameters:
    ///   - retry: Which retry is next, from 0 for the first.
    ///   - unitRandom: A number in `0..<1` choosing the jitter; values outside are clamped, NaN counts
    ///     as 0.
    public func delay(beforeRetry retry: Int, unitRandom: Double) -> Duration {
        Self.jittered(baseDelay(beforeRetry: retry), maximumJitter: maximumJitter, unitRandom: unitRandom)
    }
}
