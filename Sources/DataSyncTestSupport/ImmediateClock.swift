import Foundation
import PubNubBase

/// A clock whose sleeps return at once, moving its time forward by what was asked: code that
/// waits (retry backoff) runs straight through in tests, and the waits it asked for can still be
/// checked in ``requestedSleeps``.
///
/// Use ``ManualClock`` instead when a test must observe the state *during* a wait.
///
/// ```swift
/// let clock = ImmediateClock()
/// try await clock.sleep(for: .seconds(4))   // returns at once
/// clock.requestedSleeps                      // [.seconds(4)]
/// ```
public final class ImmediateClock: Clock, Sendable {
    /// Instants of this clock: the same type as ``ManualClock``'s.
    public typealias Instant = ManualClock.Instant

    private struct State {
        var now = Instant(offset: .zero)
        var history: [Duration] = []
    }

    private let state = Locked(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant: the origin plus every sleep so far.
    public var now: Instant { state.withLock { $0.now } }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How long each sleep asked to wait, in order.
    public var requestedSleeps: [Duration] { state.withLock { $0.history } }

    /// Moves the time to `deadline` (if later) and returns; throws `CancellationError` when the
    /// calling task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.history.append(state.now.duration(to: deadline))
            if state.now < deadline { state.now = deadline }
        }
        await Task.yield()
    }
}
