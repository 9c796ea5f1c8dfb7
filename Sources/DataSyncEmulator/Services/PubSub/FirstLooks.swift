import JSONCore
import PubNubBase

/// Subscribe receives waiting for their first look at the log, taken together in one turn on the
/// bus (``PubSubBus/takeFirstLooks()``).
///
/// A receive with a cursor hands its held state here and its request's task returns the pending
/// answer at once, with no suspension: when many receives arrive together, none of their tasks
/// waits on the bus actor with its async frames allocated. The look (presence first, then the
/// log, then parking) happens in the bus's turn, so it sees every event logged before it, and a
/// publish cannot slip between the look and the parking.
final class FirstLooks: Sendable {
    /// One queued receive: its held state and the presence its request records before the look.
    struct Look: Sendable {
        let held: ParkedSubscribe
        /// The request's `uuid`, when it gave one: it is marked present before the look.
        let uuid: String?
        /// `heartbeat`, already clamped; nil for the configured default.
        let timeout: Int?
        /// `state`, when the request gave one.
        let state: JSONValue?
    }

    private struct State {
        var queue: [Look] = []
        /// Whether a task is taking the queue now (or about to): at most one at a time.
        var draining = false
    }

    private let state = Locked(State())

    /// Queues `look`; returns true when no task is taking the queue, so the caller starts one.
    func add(_ look: Look) -> Bool {
        state.withLock { state in
            state.queue.append(look)
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
    }

    /// Everything queued, oldest first. Empty only once the queue is empty, and then the drain is
    /// over: the next ``add(_:)`` asks for a new one.
    func take() -> [Look] {
        state.withLock { state in
            if state.queue.isEmpty { state.draining = false }
            defer { state.queue.removeAll() }
            return state.queue
        }
    }

    /// How many receives wait for their first look.
    var count: Int { state.withLock { $0.queue.count } }
}
