import EmulatorHTTP
import PubNubBase

/// Held subscribe long-polls waiting for their keyset's log to grow or their deadline to pass.
///
/// A waiter registers the log head it last looked at; registration and the bus's "the head moved"
/// both take one lock, so an event published between a waiter's look at the log and its
/// registration still wakes it (it finds the head already past what it saw and returns at once).
/// A wake is only a hint to look again: the woken long-poll re-reads the log on the bus actor.
/// Cancellation (the client went away) resumes the waiter too, and its caller then gives up.
///
/// Deadlines are kept here rather than by a sleep per long-poll: one sweeper task sleeps on the
/// emulator clock until the earliest deadline and resumes the waiters whose time has come. A held
/// long-poll is then one suspended task and one entry in this table, where a task group with a
/// waiting child and a sleeping child (and the clock's timer task behind the sleep) cost four
/// tasks per subscriber.
///
/// A wake by a published event carries the waiter's events, found by the bus in the turn that
/// logged the event (see ``advance(subscribeKey:head:channel:answer:)``); every other wake
/// (deadline, cancellation, changed groups) carries none and the long-poll looks again itself.
final class WaiterRegistry: Sendable {
    /// What a held long-poll waits for: events after `after` that `matcher` and `filter` accept.
    struct Query: Sendable {
        let after: UInt64
        let matcher: Subscription.Matcher
        let filter: StreamFilter?
    }

    typealias Events = [(BusEvent, String?)]

    private struct Waiter {
        let subscribeKey: String
        let query: Query
        let continuation: CheckedContinuation<Events, Never>
        /// Nanoseconds since 1970 on the emulator clock.
        let deadline: Int64
    }

    private struct State {
        var next: UInt64 = 0
        var heads: [String: UInt64] = [:]
        var waiters: [UInt64: Waiter] = [:]
        var cancelledEarly: Set<UInt64> = []
        /// The sweeper running now, the deadline it sleeps until, and its generation (a sweeper
        /// replaced by one for an earlier deadline stops at its next look).
        var sweeper: Task<Void, Never>?
        var sweeperTarget: Int64?
        var sweeperGeneration: UInt64 = 0
    }

    private let state = Locked(State())

    /// How many long-polls are held right now.
    var count: Int { state.withLock { $0.waiters.count } }

    /// Records that the log of `subscribeKey` now ends at `head`, and wakes the waiters of that
    /// keyset whose matcher accepts `channel` (all of them when `channel` is nil), each with what
    /// `answer` finds for it (called outside the lock, once per woken waiter, before any resumes).
    func advance(
        subscribeKey: String, head: UInt64, channel: String?, answer: (Query) -> Events = { _ in [] }
    ) {
        let due: [Waiter] = state.withLock { state in
            state.heads[subscribeKey] = max(state.heads[subscribeKey] ?? 0, head)
            let due = state.waiters.filter { entry in
                entry.value.subscribeKey == subscribeKey && (channel.map(entry.value.query.matcher.accepts) ?? true)
            }
            for id in due.keys { state.waiters[id] = nil }
            Self.stopSweeperIfIdle(&state)
            return Array(due.values)
        }
        let answered = due.map { channel == nil ? [] : answer($0.query) }
        for (waiter, events) in zip(due, answered) { waiter.continuation.resume(returning: events) }
    }

    /// Suspends until the log of `subscribeKey` moves past `seen` with an event the query's
    /// matcher accepts (or any change when woken without a channel), until `clock` reaches
    /// `deadline`, or until the task is cancelled. Returns the query's events when a publish woke
    /// it, and nothing otherwise (look again).
    func wait(
        subscribeKey: String, seen: UInt64, until deadline: EmulatorClock.Instant, on clock: EmulatorClock,
        query: Query
    ) async -> Events {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Events, Never>) in
                let immediate: Bool = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return true }
                    if (state.heads[subscribeKey] ?? 0) > seen { return true }
                    if clock.now >= deadline { return true }
                    state.waiters[id] = Waiter(
                        subscribeKey: subscribeKey, query: query, continuation: continuation,
                        deadline: deadline.nanosecondsSince1970)
                    if state.sweeperTarget.map({ deadline.nanosecondsSince1970 < $0 }) ?? true {
                        startSweeper(&state, clock: clock)
                    }
                    return false
                }
                if immediate { continuation.resume(returning: []) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                if let waiter = state.waiters.removeValue(forKey: id) {
                    Self.stopSweeperIfIdle(&state)
                    return waiter
                }
                state.cancelledEarly.insert(id)
                return nil
            }
            waiter?.continuation.resume(returning: [])
        }
    }

    /// Replaces the sweeper with one that starts from the earliest deadline held now.
    private func startSweeper(_ state: inout State, clock: EmulatorClock) {
        state.sweeper?.cancel()
        state.sweeperGeneration &+= 1
        let generation = state.sweeperGeneration
        state.sweeperTarget = Self.earliest(state.waiters)
        state.sweeper = Task { [weak self] in
            while let self, let target = self.target(of: generation) {
                guard (try? await clock.sleep(until: EmulatorClock.Instant(nanosecondsSince1970: target))) != nil
                else { return }
                self.expire(generation: generation, now: clock.now.nanosecondsSince1970)
            }
        }
    }

    /// The deadline the sweeper of `generation` sleeps until next, or nil when it should stop
    /// (replaced, or nothing held any more: the next waiter starts a new one).
    private func target(of generation: UInt64) -> Int64? {
        state.withLock { state in
            guard state.sweeperGeneration == generation else { return nil }
            guard let target = state.sweeperTarget else {
                state.sweeper = nil
                return nil
            }
            return target
        }
    }

    /// Resumes the waiters whose deadline is at or before `now` and moves the sweeper's target to
    /// the earliest one left.
    private func expire(generation: UInt64, now: Int64) {
        let woken: [CheckedContinuation<Events, Never>] = state.withLock { state in
            guard state.sweeperGeneration == generation else { return [] }
            let due = state.waiters.filter { $0.value.deadline <= now }
            for id in due.keys { state.waiters[id] = nil }
            state.sweeperTarget = Self.earliest(state.waiters)
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume(returning: []) }
    }

    /// With nothing held, no sweeper sleeps: an idle emulator keeps no timer for long-polls.
    private static func stopSweeperIfIdle(_ state: inout State) {
        guard state.waiters.isEmpty, state.sweeper != nil else { return }
        state.sweeper?.cancel()
        state.sweeper = nil
        state.sweeperTarget = nil
        state.sweeperGeneration &+= 1
    }

    private static func earliest(_ waiters: [UInt64: Waiter]) -> Int64? {
        waiters.values.lazy.map(\.deadline).min()
    }
}
