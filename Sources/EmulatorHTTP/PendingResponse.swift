import PubNubBase

/// What a handler gives back for a request: the response now, or a promise of one that some
/// other part of the program completes later.
///
/// A long-poll that finds nothing to send returns ``pending(_:)`` instead of suspending its task:
/// the server's task for the request then ends, and the connection waits with no task, no async
/// frames and no thread until the ``PendingResponse`` is completed or the client goes away.
public enum ServerReply: Sendable {
    /// The response, ready to be sent.
    case response(ServerResponse)
    /// A response that arrives later through ``PendingResponse/succeed(_:)``.
    case pending(PendingResponse)

    /// This reply with `transform` applied to its response: at once for a ready response, on
    /// completion (on the completing thread, before the response is sent) for a pending one.
    ///
    /// Wrappers that decorate answers (headers, logging) use this so a pending answer gets
    /// exactly what a ready one gets.
    public func map(_ transform: @escaping @Sendable (ServerResponse) -> ServerResponse) -> ServerReply {
        switch self {
        case .response(let response): return .response(transform(response))
        case .pending(let pending): return .pending(pending.map(transform))
        }
    }

    /// This reply with an asynchronous `transform` applied to its response: awaited now for a
    /// ready response; for a pending one, run in a short task once it is completed.
    public func mapAsync(_ transform: @escaping @Sendable (ServerResponse) async -> ServerResponse) async
        -> ServerReply
    {
        switch self {
        case .response(let response): return .response(await transform(response))
        case .pending(let pending): return .pending(pending.mapAsync(transform))
        }
    }

    /// The response, waiting for a pending one to be completed. When the calling task is
    /// cancelled first, the pending response is cancelled (its producer stops waiting) and this
    /// returns a bare `503`, which nobody is expected to read.
    public var response: ServerResponse {
        get async {
            switch self {
            case .response(let response): return response
            case .pending(let pending): return await pending.response
            }
        }
    }
}

/// A response that is not ready yet: a parked request's promise of an answer.
///
/// Three parties touch it. Its **producer** (a service holding a long-poll) creates it, sets
/// ``onCancel(_:)`` to stop waiting, and later calls ``succeed(_:)`` once, from any thread.
/// **Wrappers** on the way back to the server (the emulator's router: CORS headers, the
/// authorizer's rewrite, injected faults, the request log) add transforms with ``map(_:)`` and
/// ``mapAsync(_:)`` before the reply reaches the server; they run, in the order added, when the
/// response is completed. The **consumer** (the HTTP server, or ``response`` for a direct caller)
/// takes the final response, or calls ``cancel()`` when the client goes away, which runs the
/// producer's ``onCancel(_:)`` hook once and drops any later ``succeed(_:)``.
///
/// With only synchronous transforms the response reaches the server on the thread that called
/// ``succeed(_:)``, with no task at all; an asynchronous transform costs one short task.
///
/// ```swift
/// let pending = PendingResponse()
/// pending.onCancel { registry.forget(id) }
/// registry.park(id) { events in pending.succeed(answer(events)) }
/// return .pending(pending)
/// ```
public final class PendingResponse: Sendable {
    private enum Step {
        case sync(@Sendable (ServerResponse) -> ServerResponse)
        case async(@Sendable (ServerResponse) async -> ServerResponse)
    }

    /// What the consumer does with the final response; nil means the request was cancelled.
    typealias Sink = @Sendable (ServerResponse?) -> Void

    /// A closure held in a struct: stored as an optional or array element, a bare function value
    /// is converted to the most general representation, which costs an allocation each, and a
    /// held long-poll keeps several of these.
    private struct Action {
        let run: @Sendable () -> Void
    }

    private struct Consumer {
        let deliver: Sink
    }

    /// Up to three steps inline (the router's wrappers add two or three to a held long-poll's
    /// answer), more in an array.
    private struct Steps {
        private var first: Step?
        private var second: Step?
        private var third: Step?
        private var more: [Step] = []

        mutating func append(_ step: Step) {
            if first == nil {
                first = step
            } else if second == nil {
                second = step
            } else if third == nil {
                third = step
            } else {
                more.append(step)
            }
        }

        /// In the order added, in one array (built once, when the answer is delivered: a fan-out
        /// builds one per subscriber, so no temporary besides).
        var all: [Step] {
            var steps: [Step] = []
            steps.reserveCapacity(3 + more.count)
            if let first { steps.append(first) }
            if let second { steps.append(second) }
            if let third { steps.append(third) }
            steps.append(contentsOf: more)
            return steps
        }
    }

    /// The first observer inline, more in an array.
    private struct Observers {
        private var first: Action?
        private var more: [Action] = []

        mutating func append(_ observer: Action) {
            if first == nil { first = observer } else { more.append(observer) }
        }

        var all: [Action] { (first.map { [$0] } ?? []) + more }
    }

    private struct State {
        var steps = Steps()
        var completed: ServerResponse?
        var sink: Consumer?
        var cancelHook: Action?
        var cancelObservers = Observers()
        var finished = false
        var cancelled = false
    }

    /// One allocation for the state and its mutex (`Locked`): a held long-poll keeps one of these
    /// for as long as it waits.
    private let state = Locked(State())

    /// Creates a response that nothing has completed yet.
    public init() {}

    /// Sets what to do when the client goes away before ``succeed(_:)``: typically, forget the
    /// parked request. Runs at once when the response is already cancelled; never after it was
    /// completed. Called at most once.
    public func onCancel(_ hook: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.cancelled { return true }
            if !state.finished { state.cancelHook = Action(run: hook) }
            return false
        }
        if runNow { hook() }
    }

    /// Adds a transform applied to the response when it is completed (after those added before).
    /// Returns `self`. Transforms added after the consumer took the response are not applied.
    @discardableResult
    public func map(_ transform: @escaping @Sendable (ServerResponse) -> ServerResponse) -> PendingResponse {
        state.withLock { if !$0.finished { $0.steps.append(.sync(transform)) } }
        return self
    }

    /// Adds an asynchronous transform, run in a short task once the response is completed.
    /// Returns `self`.
    @discardableResult
    public func mapAsync(_ transform: @escaping @Sendable (ServerResponse) async -> ServerResponse)
        -> PendingResponse
    {
        state.withLock { if !$0.finished { $0.steps.append(.async(transform)) } }
        return self
    }

    /// Adds something to run if the response is cancelled instead of completed (after the
    /// producer's ``onCancel(_:)`` hook): for a wrapper that must note an answer nobody received,
    /// as the request log does. Runs at once when already cancelled. Returns `self`.
    @discardableResult
    public func whenCancelled(_ observer: @escaping @Sendable () -> Void) -> PendingResponse {
        let runNow = state.withLock { state -> Bool in
            if state.cancelled { return true }
            if !state.finished { state.cancelObservers.append(Action(run: observer)) }
            return false
        }
        if runNow { observer() }
        return self
    }

    /// Completes the response. The first call wins; a call after ``cancel()`` is dropped.
    public func succeed(_ response: ServerResponse) {
        let ready = state.withLock { state -> (Sink, [Step])? in
            guard !state.finished, state.completed == nil else { return nil }
            state.completed = response
            return Self.takeIfReady(&state)
        }
        if let (sink, steps) = ready { Self.run(steps, on: response, into: sink) }
    }

    /// Cancels the response: the client went away. Runs the producer's ``onCancel(_:)`` hook
    /// once; a later ``succeed(_:)`` is dropped. Does nothing once the response was delivered.
    public func cancel() {
        let (hook, observers, sink) = state.withLock {
            state -> ((@Sendable () -> Void)?, [@Sendable () -> Void], Sink?) in
            guard !state.finished else { return (nil, [], nil) }
            state.finished = true
            state.cancelled = true
            defer {
                state.cancelHook = nil
                state.cancelObservers = Observers()
                state.sink = nil
                state.steps = Steps()
                state.completed = nil
            }
            return (state.cancelHook?.run, state.cancelObservers.all.map(\.run), state.sink?.deliver)
        }
        hook?()
        for observer in observers { observer() }
        sink?(nil)
    }

    /// Whether ``succeed(_:)`` or ``cancel()`` has ended it.
    public var isSettled: Bool { state.withLock { $0.completed != nil || $0.cancelled } }

    /// The final response, transforms applied, once completed. Cancelling the calling task
    /// cancels the response and returns a bare `503`.
    public var response: ServerResponse {
        get async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<ServerResponse, Never>) in
                    bind { continuation.resume(returning: $0 ?? ServerResponse(status: 503)) }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// Names the consumer: `sink` gets the final response once (or nil if it was cancelled,
    /// at once when that already happened). The server binds each parked response exactly once,
    /// after every wrapper has added its transforms.
    func bind(_ sink: @escaping Sink) {
        enum Action {
            case wait
            case cancelled
            case deliver([Step], ServerResponse)
        }
        let action = state.withLock { state -> Action in
            guard !state.cancelled else { return .cancelled }
            state.sink = Consumer(deliver: sink)
            guard let response = state.completed, let (_, steps) = Self.takeIfReady(&state) else { return .wait }
            return .deliver(steps, response)
        }
        switch action {
        case .wait: break
        case .cancelled: sink(nil)
        case .deliver(let steps, let response): Self.run(steps, on: response, into: sink)
        }
    }

    /// With both the response and its consumer present, marks it delivered and hands both out.
    private static func takeIfReady(_ state: inout State) -> (Sink, [Step])? {
        guard !state.finished, state.completed != nil, let sink = state.sink?.deliver else { return nil }
        state.finished = true
        state.sink = nil
        state.cancelHook = nil
        state.cancelObservers = Observers()
        defer { state.steps = Steps() }
        return (sink, state.steps.all)
    }

    private static func run(_ steps: [Step], on response: ServerResponse, into sink: @escaping Sink) {
        var response = response
        for (index, step) in steps.enumerated() {
            switch step {
            case .sync(let transform):
                response = transform(response)
            case .async:
                // From the first asynchronous step on, in a task of the server's own threads.
                let rest = Array(steps[index...])
                let start = response
                _ = detachedHandlerTask {
                    var response = start
                    for step in rest {
                        switch step {
                        case .sync(let transform): response = transform(response)
                        case .async(let transform): response = await transform(response)
                        }
                    }
                    sink(response)
                }
                return
            }
        }
        sink(response)
    }
}
