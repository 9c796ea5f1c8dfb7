import PubNubBase

/// Where a loop keeps the handle of a request's handler task: only while the task runs.
///
/// The loop needs the handle for two things: cancelling the handler when its client goes away,
/// and giving `stop()` the handlers still running to await. Holding the `Task` itself until the
/// loop reads the handler's delivery kept every finished task's memory alive for as long as the
/// loop took to get there; in a burst of a thousand subscribes that is a thousand finished tasks
/// at once, freed only after the long-lived held state was allocated among them. The task lets go
/// of its own handle as its last step instead (``finished()``), so it is freed when it ends.
///
/// One allocation (the state and its lock together). The loop calls ``started(_:)`` right after
/// creating the task, on its own thread; ``cancel()`` and ``running`` are also the loop's; the
/// task calls ``finished()``.
package struct HandlerTaskSlot: Sendable {
    private enum State {
        /// Created, the handle not stored yet.
        case starting
        case running(Task<Void, Never>)
        /// The task's closure returned (or is about to): nothing left to cancel or await.
        case finished
    }

    private let state = Locked(State.starting)

    package init() {}

    /// Stores the handle of the task just created, unless that task already finished.
    package func started(_ task: Task<Void, Never>) {
        state.withLock { state in
            if case .starting = state { state = .running(task) }
        }
    }

    /// The task's last step: drops the handle, so nothing keeps the finished task alive.
    package func finished() {
        state.withLock { $0 = .finished }
    }

    /// The task, while it runs.
    package var running: Task<Void, Never>? {
        state.withLock { state in
            if case .running(let task) = state { return task }
            return nil
        }
    }

    /// Cancels the task if it is still running.
    package func cancel() {
        running?.cancel()
    }
}
