import Foundation
import PubNubBase

/// A clock that only moves when a test tells it to, so code that waits (retry backoff, heartbeats,
/// token expiry, TTLs) can be tested without sleeping.
///
/// Sleepers are resumed, in deadline order, by ``advance(by:)`` or ``advance(to:)``. A sleeping
/// task that is cancelled throws `CancellationError` at once. Use ``waitForSleepers(_:)`` to wait
/// until the code under test has started waiting, instead of sleeping in the test.
///
/// ```swift
/// let clock = ManualClock()
/// let task = Task { try await clock.sleep(for: .seconds(5)) }
/// await clock.waitForSleepers(1)
/// clock.advance(by: .seconds(5))
/// try await task.value
/// ```
public final class ManualClock: Clock, Sendable {
    // Continuations are resumed after the lock is released, so a resumed task never meets it held.

    /// A point on the manual clock: the time elapsed since the clock was created.
    public struct Instant: InstantProtocol, Hashable, Sendable {
        /// Time since the clock's origin.
        public var offset: Duration

        /// Creates an instant at `offset` from the origin.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Orders instants by offset.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var cancelledBeforeRegistration: Set<UInt64> = []
        /// Tasks in ``waitForSleepers(_:)``, each resumed once that many tasks sleep.
        var sleeperWaiters: [(id: UInt64, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Every deadline ever slept until, in the order the sleeps began.
        var history: [Duration] = []
    }

    private let state = Locked(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// The smallest step: one nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How many tasks are sleeping on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The durations of every sleep requested so far, in order (deadline minus the time the sleep began).
    public var requestedSleeps: [Duration] { state.withLock { $0.history } }

    /// Suspends until the clock reaches `deadline`, or throws `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            state.history.append(deadline.offset - state.now.offset)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                var satisfied: [CheckedContinuation<Void, Never>] = []
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledBeforeRegistration.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let sleeping = state.sleepers.count
                    satisfied = state.sleeperWaiters.filter { $0.count <= sleeping }.map(\.continuation)
                    state.sleeperWaiters.removeAll { $0.count <= sleeping }
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
                for waiter in satisfied { waiter.resume() }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                if let index = state.sleepers.firstIndex(where: { $0.id == id }) {
                    return state.sleepers.remove(at: index).continuation
                }
                state.cancelledBeforeRegistration.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let target = state.withLock { $0.now.advanced(by: duration) }
        advance(to: target)
    }

    /// Moves the clock to `instant` (never backwards) and wakes every sleeper whose deadline has come.
    public func advance(to instant: Instant) {
        let due: [Sleeper] = state.withLock { state in
            if instant > state.now { state.now = instant }
            let now = state.now
            let ready = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return ready
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks are sleeping on this clock, or once the waiting task is
    /// cancelled (a test's time limit, a helper task being stopped), so a wait that can never be
    /// satisfied ends.
    ///
    /// This waits for the code under test to reach its sleep without the test sleeping itself. The
    /// waiting task is suspended, not polling: it is resumed by the sleep that brings the count to
    /// `count`, so many waiting tests do not crowd the concurrency pool. After a cancelled wait
    /// `sleeperCount` may still be below `count`; check it if it matters.
    public func waitForSleepers(_ count: Int) async {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if state.cancelledBeforeRegistration.remove(id) != nil || state.sleepers.count >= count {
                        return true
                    }
                    state.sleeperWaiters.append((id: id, count: count, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, Never>? = state.withLock { state in
                if let index = state.sleeperWaiters.firstIndex(where: { $0.id == id }) {
                    return state.sleeperWaiters.remove(at: index).continuation
                }
                state.cancelledBeforeRegistration.insert(id)
                return nil
            }
            continuation?.resume()
        }
    }
}
