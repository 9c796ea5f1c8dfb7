import PubNubBase

/// A value behind a lock that tests can wait on: a listener callback updates it, and the test
/// suspends until a condition on it holds, with no polling and no sleep.
///
/// A wait ends with `true` as soon as the condition holds (at once if it already does), or with
/// `false` when the waiting task is cancelled, for example by the test's time limit.
///
/// ```swift
/// let seen = Waitable<[PubNubMessage]>([])
/// subscription.onMessage = { message in seen.update { $0.append(message) } }
/// #expect(await seen.wait { $0.count >= 3 })
/// ```
public final class Waitable<Value: Sendable>: Sendable {
    private struct Waiter {
        let id: UInt64
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>

    /// Starts with `value`.
    public init(_ value: Value) { state = Locked(State(value: value)) }

    /// The value now.
    public var value: Value { state.withLock { $0.value } }

    /// Changes the value under the lock, then resumes every wait whose condition now holds.
    /// `change` must not call back into this object.
    public func update(_ change: (inout Value) -> Void) {
        let due: [CheckedContinuation<Bool, Never>] = state.withLock { state in
            change(&state.value)
            let value = state.value
            var ready: [CheckedContinuation<Bool, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.condition(value) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in due { continuation.resume(returning: true) }
    }

    /// Suspends until `condition` holds for the value; `false` if the task was cancelled first.
    @discardableResult
    public func wait(until condition: @escaping @Sendable (Value) -> Bool) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answer: Bool? = state.withLock { state in
                    if condition(state.value) { return true }
                    if Task.isCancelled { return false }
                    state.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }
}
