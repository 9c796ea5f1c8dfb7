package import DataSync
package import DataSyncModels
import Foundation
import PubNubBase
package import PubNubCore
package import Realtime

/// What a view needs from its client, taken when the view is made so that a running view never
/// holds the client itself: releasing the client ends every view.
package struct LiveViewContext: Sendable {
    package let dataSync: PubNubDataSync
    package let tokens: LiveViewsComponent
    package let clock: any Clock<Duration>
    package let completionContext: PubNub.CompletionContext
    package let isShutDown: @Sendable () -> Bool
    /// A subscription to a channel, through Realtime's public API; `nil` once the client is gone.
    package let subscription: @Sendable (String) -> Subscription?

    package init(_ pubnub: PubNub) {
        dataSync = pubnub.dataSync
        tokens = pubnub.liveViewsComponent
        clock = pubnub.configuration.clock
        completionContext = pubnub.configuration.completionContext
        let components = pubnub.components
        isShutDown = { components.isShutDown }
        subscription = { [weak pubnub] channel in pubnub?.channel(channel).subscription() }
    }
}

/// Runs one iteration of a live view: subscribes, carries out the ``LiveViewMachine``'s effects
/// (reads through DataSync, retry timers on the client's clock) and hands snapshots to the one
/// reader when it asks, so a slow reader gets the latest state with the changes merged, and memory
/// stays one snapshot deep.
package actor LiveViewRunner<Object: PubNubDataSyncObject> {
    private enum Ending {
        case finished
        case failed(PubNubError)
    }

    private var machine: LiveViewMachine<Object>
    private let definition: LiveViewDefinition<Object>
    private let context: LiveViewContext
    private var tasks: [Task<Void, Never>] = []
    private var readTask: Task<Void, Never>?
    private var retryTask: Task<Void, Never>?
    private var tokenRegistration: UInt64?
    private var waiter: CheckedContinuation<Void, Never>?
    private var ending: Ending?
    private var isStarted = false

    package init(
        definition: LiveViewDefinition<Object>, options: PubNubLiveViewOptions, context: LiveViewContext,
        unitRandom: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.definition = definition
        self.context = context
        machine = LiveViewMachine(
            options: options, projection: definition.projection, interpret: definition.interpret, unitRandom: unitRandom
        )
    }

    /// The next snapshot, waiting until there is news; `nil` once the view ended (cancelled,
    /// unsubscribed by `unsubscribeAll()`, the client released).
    ///
    /// - Throws: the `PubNubError` that ended the view, after the snapshots before it.
    package func next() async throws -> PubNubLiveSnapshot<Object>? {
        if !isStarted { start() }
        while true {
            if machine.hasNews { return machine.takeSnapshot() }
            switch ending {
            case .failed(let error):
                ending = .finished
                throw error
            case .finished:
                return nil
            case nil:
                break
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    if Task.isCancelled {
                        continuation.resume()
                        return
                    }
                    waiter = continuation
                }
            } onCancel: {
                Task { await self.stop() }
            }
            if Task.isCancelled {
                stop()
                return nil
            }
        }
    }

    /// Ends the view: unsubscribes what only it held, stops reads and timers.
    package func stop() {
        if ending == nil { ending = .finished }
        tearDown()
        wake()
    }

    // MARK: Starting

    private func start() {
        isStarted = true
        guard !context.isShutDown(), let subscription = context.subscription(definition.channel) else {
            ending = .finished
            return
        }
        // One ordered feed (Realtime's public surface for caches): its first element says whether
        // the loop receives the channel already, and each gap comes before the status that
        // revealed it, so both are handled before a snapshot can be taken in between. Reading it
        // keeps the subscription subscribed; ending it unsubscribes what no one else holds.
        let feed = subscription.dataSyncFeed()
        tokenRegistration = context.tokens.register { [weak self] in
            Task { await self?.handle(.tokenChanged) }
        }
        tasks.append(
            Task {
                for await item in feed {
                    switch item {
                    case .started(let receiving): self.handle(.started(isReceiving: receiving))
                    case .status(let status, let receiving): self.handle(.status(status, isReceiving: receiving))
                    case .gap(let gap): self.handle(.gap(gap))
                    case .event(let event): self.handle(.event(event))
                    }
                }
                self.streamEnded()
            })
    }

    private func streamEnded() {
        guard ending == nil else { return }
        stop()
    }

    // MARK: Effects

    private func handle(_ input: LiveViewMachine<Object>.Input) {
        guard ending == nil else { return }
        for effect in machine.handle(input) {
            execute(effect)
        }
        if machine.hasNews { wake() }
    }

    private func execute(_ effect: LiveViewMachine<Object>.Effect) {
        switch effect {
        case .read(let generation):
            let read = definition.read
            let dataSync = context.dataSync
            let limit = machine.options.maximumObjects
            readTask?.cancel()
            readTask = Task {
                let input: LiveViewMachine<Object>.Input
                do {
                    input = .readSucceeded(generation: generation, try await read(dataSync, limit))
                } catch {
                    if Task.isCancelled { return }
                    input = .readFailed(generation: generation, ServicePipeline.map(error))
                }
                self.handle(input)
            }
        case .scheduleRetry(let generation, let delay):
            let clock = context.clock
            retryTask?.cancel()
            retryTask = Task {
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    return
                }
                self.handle(.retryDue(generation: generation))
            }
        case .cancelRetry:
            retryTask?.cancel()
            retryTask = nil
        case .fail(let error):
            ending = .failed(error)
            tearDown()
        }
    }

    private func tearDown() {
        for task in tasks { task.cancel() }
        tasks = []
        readTask?.cancel()
        readTask = nil
        retryTask?.cancel()
        retryTask = nil
        if let tokenRegistration {
            context.tokens.unregister(tokenRegistration)
            self.tokenRegistration = nil
        }
    }

    private func wake() {
        let waiting = waiter
        waiter = nil
        waiting?.resume()
    }
}

/// Tells running views that the token changed, so one refused by Access Manager reads again at
/// once instead of waiting for its backoff.
package final class LiveViewsComponent: PubNubComponent {
    private struct State: Sendable {
        var callbacks: [UInt64: @Sendable () -> Void] = [:]
        var next: UInt64 = 0
    }

    private let state = Locked(State())

    package init() {}

    package func register(_ callback: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            state.next &+= 1
            state.callbacks[state.next] = callback
            return state.next
        }
    }

    package func unregister(_ id: UInt64) {
        _ = state.withLock { $0.callbacks.removeValue(forKey: id) }
    }

    package var registeredCount: Int { state.withLock { $0.callbacks.count } }

    package func tokenDidChange() {
        let callbacks = state.withLock { Array($0.callbacks.values) }
        for callback in callbacks { callback() }
    }

    package func shutDown() {
        state.withLock { $0.callbacks = [:] }
    }
}

extension PubNub {
    /// The client's live-view component, made on first use.
    package var liveViewsComponent: LiveViewsComponent {
        components.component { LiveViewsComponent() }
    }
}
