import EmulatorHTTP
import PubNubBase

/// Held subscribe long-polls waiting for their keyset's log to grow.
///
/// A waiter registers the log head it last looked at; registration and the bus's "the head moved"
/// both take one lock, so an event published between a waiter's look at the log and its
/// registration still wakes it (it finds the head already past what it saw and returns at once).
/// A wake is only a hint to look again: the woken long-poll re-reads the log on the bus actor.
/// Cancellation (the client went away) resumes the waiter too, and its caller then gives up.
final class WaiterRegistry: Sendable {
    private struct Waiter {
        let subscribeKey: String
        let interest: @Sendable (String) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var next: UInt64 = 0
        var heads: [String: UInt64] = [:]
        var waiters: [UInt64: Waiter] = [:]
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Locked(State())

    /// How many long-polls are held right now.
    var count: Int { state.withLock { $0.waiters.count } }

    /// Records that the log of `subscribeKey` now ends at `head`, and wakes the waiters of that
    /// keyset whose interest matches `channel` (all of them when `channel` is nil).
    func advance(subscribeKey: String, head: UInt64, channel: String?) {
        let woken: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.heads[subscribeKey] = max(state.heads[subscribeKey] ?? 0, head)
            let due = state.waiters.filter { entry in
                entry.value.subscribeKey == subscribeKey && (channel.map(entry.value.interest) ?? true)
            }
            for id in due.keys { state.waiters[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Suspends until the log of `subscribeKey` moves past `seen` with an event `interest`
    /// accepts (or any change when woken without a channel), or until the task is cancelled.
    func wait(subscribeKey: String, seen: UInt64, interest: @escaping @Sendable (String) -> Bool) async {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let immediate: Bool = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return true }
                    if (state.heads[subscribeKey] ?? 0) > seen { return true }
                    state.waiters[id] = Waiter(
                        subscribeKey: subscribeKey, interest: interest, continuation: continuation)
                    return false
                }
                if immediate { continuation.resume() }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.cancelledEarly.insert(id)
                return nil
            }
            waiter?.continuation.resume()
        }
    }
}
