import EmulatorHTTP
import PubNubBase

/// Held subscribe long-polls waiting for their keyset's log to grow or their deadline to pass.
///
/// A held long-poll is parked here, not suspended: an entry holding its query, its deadline and
/// the ``HeldLongPoll`` to wake, while no task of its runs. Registration records the log head the
/// long-poll last looked at; registration and the bus's "the head moved" both take one lock, so an
/// event published between a long-poll's look at the log and its registration is not missed (the
/// registration finds the head already past what it saw and declines, and the caller looks again).
///
/// Deadlines are kept here rather than by a sleep per long-poll: one sweeper task sleeps on the
/// emulator clock until the earliest deadline and wakes the long-polls whose time has come.
///
/// A wake by a published event carries the long-poll's events, found by the bus in the turn that
/// logged the event (see ``advance(subscribeKey:head:channel:answer:)``); every other wake
/// (deadline, changed groups) carries none and the long-poll looks again itself.
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
        let holder: any HeldLongPoll
        /// Nanoseconds since 1970 on the emulator clock.
        let deadline: Int64
    }

    private struct State {
        var heads: [String: UInt64] = [:]
        /// Keyed by the held long-poll itself: it is parked at most once at a time, and its client
        /// going away removes it by identity, so it keeps no entry id of its own.
        var waiters: [ObjectIdentifier: Waiter] = [:]
        /// The sweeper running now, the deadline it sleeps until, and its generation (a sweeper
        /// replaced by one for an earlier deadline stops at its next look).
        var sweeper: Task<Void, Never>?
        var sweeperTarget: Int64?
        var sweeperGeneration: UInt64 = 0
        /// Long-polls parked since the registry was made (tests count them).
        var parked = 0
    }

    private let state = Locked(State())

    /// How many long-polls are held right now.
    var count: Int { state.withLock { $0.waiters.count } }

    /// How many times a long-poll was parked here since the registry was made.
    var parkedCount: Int { state.withLock { $0.parked } }

    /// Records that the log of `subscribeKey` now ends at `head`, and wakes the long-polls of that
    /// keyset whose matcher accepts `channel` (all of them when `channel` is nil), each with what
    /// `answer` finds for it (called outside the lock, once per woken long-poll, before any wakes).
    func advance(
        subscribeKey: String, head: UInt64, channel: String?, answer: (Query) -> Events = { _ in [] }
    ) {
        let due: [Waiter] = state.withLock { state in
            state.heads[subscribeKey] = max(state.heads[subscribeKey] ?? 0, head)
            var due: [Waiter] = []
            var ids: [ObjectIdentifier] = []
            for (id, waiter) in state.waiters
            where waiter.subscribeKey == subscribeKey && (channel.map(waiter.query.matcher.accepts) ?? true) {
                ids.append(id)
                due.append(waiter)
            }
            // A fan-out to everyone held: empty the table at once instead of entry by entry.
            if ids.count == state.waiters.count {
                state.waiters.removeAll(keepingCapacity: true)
            } else {
                for id in ids { state.waiters[id] = nil }
            }
            Self.stopSweeperIfIdle(&state)
            return due
        }
        let answered = due.map { channel == nil ? [] : answer($0.query) }
        for (waiter, events) in zip(due, answered) { waiter.holder.wake(with: events) }
    }

    /// Parks `holder` until the log of `subscribeKey` moves past `seen` with an event the query's
    /// matcher accepts (or any change when woken without a channel), or until `clock` reaches
    /// `deadline`; then calls its ``HeldLongPoll/wake(with:)`` once, with the query's events when a
    /// publish woke it and none otherwise. Returns false, parking nothing, when the log already
    /// moved past `seen` or the deadline has passed: the caller looks again. Parking a holder that
    /// is parked already replaces its entry.
    func park(
        subscribeKey: String, seen: UInt64, until deadline: EmulatorClock.Instant, on clock: EmulatorClock,
        query: Query, holder: any HeldLongPoll
    ) -> Bool {
        state.withLock { state in
            if (state.heads[subscribeKey] ?? 0) > seen { return false }
            if clock.now >= deadline { return false }
            state.parked += 1
            state.waiters[ObjectIdentifier(holder)] = Waiter(
                subscribeKey: subscribeKey, query: query, holder: holder, deadline: deadline.nanosecondsSince1970)
            if state.sweeperTarget.map({ deadline.nanosecondsSince1970 < $0 }) ?? true {
                startSweeper(&state, clock: clock)
            }
            return true
        }
    }

    /// Forgets `holder` if it is parked (its client went away); it is not woken.
    func remove(_ holder: any HeldLongPoll) {
        state.withLock { state in
            guard state.waiters.removeValue(forKey: ObjectIdentifier(holder)) != nil else { return }
            Self.stopSweeperIfIdle(&state)
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

    /// Wakes the long-polls whose deadline is at or before `now` and moves the sweeper's target to
    /// the earliest one left.
    private func expire(generation: UInt64, now: Int64) {
        let woken: [any HeldLongPoll] = state.withLock { state in
            guard state.sweeperGeneration == generation else { return [] }
            let due = state.waiters.filter { $0.value.deadline <= now }
            for id in due.keys { state.waiters[id] = nil }
            state.sweeperTarget = Self.earliest(state.waiters)
            return due.values.map(\.holder)
        }
        for holder in woken { holder.wake(with: []) }
    }

    /// With nothing held, no sweeper sleeps: an idle emulator keeps no timer for long-polls.
    private static func stopSweeperIfIdle(_ state: inout State) {
        guard state.waiters.isEmpty, state.sweeper != nil else { return }
        state.sweeper?.cancel()
        state.sweeper = nil
        state.sweeperTarget = nil
        state.sweeperGeneration &+= 1
    }

    private static func earliest(_ waiters: [ObjectIdentifier: Waiter]) -> Int64? {
        waiters.values.lazy.map(\.deadline).min()
    }
}

/// A parked long-poll, as ``WaiterRegistry`` wakes it: once, from whichever thread published the
/// event or reached the deadline, so `wake` must not block.
protocol HeldLongPoll: AnyObject, Sendable {
    /// The long-poll's time has come: `events` are its answer when a publish woke it; with none
    /// (deadline, changed groups) it looks again.
    func wake(with events: WaiterRegistry.Events)
}
