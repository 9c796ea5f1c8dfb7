import EmulatorHTTP
import PubNubBase

/// A subscribe receive held with no task: what it needs to answer (keyset, subscription, filter,
/// cursor, deadline) and the ``PendingResponse`` its answer goes to.
///
/// The request's task queues its first look (``PubSubBus/lookSoon(_:)``) and ends at once; the
/// look, in a turn on the bus (``look(on:)``), answers or parks it in the bus's
/// ``WaiterRegistry``. A publish it matches completes it at once,
/// on the publishing thread, with the events the bus found for it and the body encoded once for
/// every subscriber answered alike (``AnswerCache``). A wake with no events (its deadline, a
/// changed channel group) runs a short task that looks again: answers, or parks again. When the
/// client goes away the HTTP server cancels the pending answer, which removes the registry entry.
final class ParkedSubscribe: HeldLongPoll {
    let bus: PubSubBus
    let subscribeKey: String
    let subscription: Subscription
    let filter: StreamFilter?
    let cursor: UInt64
    let deadline: EmulatorClock.Instant
    /// Settled once answered or once its client went away (cancelled): either way nothing is to
    /// be parked for it any more. Its lock is the only one a held subscribe keeps; the registry
    /// knows the entry by this object's identity, so no id needs guarding here.
    let pending = PendingResponse()

    init(
        bus: PubSubBus, subscribeKey: String, subscription: Subscription, filter: StreamFilter?, cursor: UInt64,
        deadline: EmulatorClock.Instant
    ) {
        self.bus = bus
        self.subscribeKey = subscribeKey
        self.subscription = subscription
        self.filter = filter
        self.cursor = cursor
        self.deadline = deadline
        bus.parkedAlive.withLock { $0 += 1 }
    }

    deinit { bus.parkedAlive.withLock { $0 -= 1 } }

    /// The answer to give the server, before the first look: from now on a cancellation (the
    /// client went away) takes the long-poll out of the registry if it is parked, and a look still
    /// to come parks nothing. The hook holds `self` strongly until the pending answer is delivered
    /// or cancelled, both of which drop it.
    func parkedReply() -> ServerReply {
        pending.onCancel { [self] in cancel() }
        return .pending(pending)
    }

    /// Looks at the log until there is an answer or the long-poll is parked: returns the answer
    /// (events, or an empty one past the deadline), or nil once parked (or cancelled).
    func settle() async -> ServerResponse? {
        await look(on: bus)
    }

    /// ``settle()`` in one turn on `bus`: no event can be logged between the look and the
    /// parking, which the registry's head check guards as well.
    func look(on bus: isolated PubSubBus) -> ServerResponse? {
        while true {
            let (events, head, matcher) = bus.collect(
                subscribeKey: subscribeKey, after: cursor, subscription: subscription, filter: filter)
            if let last = events.last { return Self.cursorReply(last.0.timetoken, events: events, bus: bus) }
            if bus.clock.now >= deadline {
                let next = bus.emptyCursor(subscribeKey: subscribeKey, after: cursor)
                return Self.cursorReply(next, events: [], bus: bus)
            }
            if pending.isSettled { return nil }
            let query = WaiterRegistry.Query(after: cursor, matcher: matcher, filter: filter)
            guard
                bus.waiters.park(
                    subscribeKey: subscribeKey, seen: head, until: deadline, on: bus.clock, query: query, holder: self)
            else { continue }
            // Cancelled between the look and the registration (the cancellation's removal may have
            // run before the entry existed): take the entry back out.
            if pending.isSettled { bus.waiters.remove(self) }
            return nil
        }
    }

    func wake(with events: WaiterRegistry.Events) {
        if let last = events.last {
            pending.succeed(Self.cursorReply(last.0.timetoken, events: events, bus: bus))
            return
        }
        _ = detachedHandlerTask { [self] in
            if let response = await settle() { pending.succeed(response) }
        }
    }

    private func cancel() {
        bus.waiters.remove(self)
    }

    /// `{"t":{"t":"<tt>","r":<r>},"m":[…]}` with `"t"` first, as Swift's salvage logic expects.
    static func cursorReply(_ timetoken: UInt64, events: [(BusEvent, String?)], bus: PubSubBus) -> ServerResponse {
        PubSubWire.bytes(200, bus.answers.body(timetoken: timetoken, events: events, region: bus.region))
    }
}
