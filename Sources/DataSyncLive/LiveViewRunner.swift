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
    package let realtime: RealtimeComponent
    package let tokens: LiveViewsComponent
    package let clock: any Clock<Duration>
    package let completionContext: PubNub.CompletionContext
    package let isShutDown: @Sendable () -> Bool

    package init(_ pubnub: PubNub) {
        dataSync = pubnub.dataSync
        realtime = pubnub.realtime
        tokens = pubnub.liveViewsComponent
        clock = pubnub.configuration.clock
        completionContext = pubnub.configuration.completionContext
        let components = pubnub.components
        isShutDown = { components.isShutDown }
    }
}

/// Runs one iteration of a live view: subscribes, carries out the ``LiveViewMachine``'s effects
/// (reads through DataSync, retry timers on the client's clock) and hands snapshots to the one
/// reader when it asks, so a slow reader gets the latest state with the changes merged, and memory
/// stays one snapshot deep.
package actor LiveViewRunner<Object: PubNubDataSyncObject> {
    /// What the view reads from the loop besides events: its statuses, and the catch-ups that may
    /// follow dropped messages (apps see those only as gaps).
    private enum LoopSignal: Sendable {
        case status(PubNubStatus)
        case possibleLoss(PubNubStatus)
    }

    private enum Ending {
        case finished
        case failed(PubNubError)
    }

    private var machine: LiveViewMachine<Object>
    private let definition: LiveViewDefinition<Object>
    private let context: LiveViewContext
    private var subscription: Subscription?
    private var gaps = DataSyncGapDetector()
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
        guard !context.isShutDown() else {
            ending = .finished
            return
        }
        let hub = context.realtime.hub
        // Statuses first, so none reported after the subscription takes effect is missed. Unbounded:
        // the gap detector below must see every one (they are few: one per state change, and one
        // per answer of 100 events at most).
        let statuses = hub.clientStore.stream(
            bufferingPolicy: .unbounded, extract: { _ -> LoopSignal? in nil }, status: { .status($0) },
            possibleLoss: { .possibleLoss($0) })
        let subscription = Subscription(
            channels: [definition.channel], groups: [], options: SubscriptionOptions(), hub: hub)
        self.subscription = subscription
        // Reading the stream keeps the subscription subscribed; ending it unsubscribes what no one
        // else holds. Gaps are found here from the statuses (the same detector the client runs), so
        // a status and the gap it reveals are handled in one step, before a snapshot can be taken
        // in between.
        let events = subscription.dataSyncEvents()
        tokenRegistration = context.tokens.register { [weak self] in
            Task { await self?.handle(.tokenChanged) }
        }
        tasks.append(
            Task {
                for await event in events {
                    self.handle(.event(event))
                }
                self.streamEnded()
            })
        tasks.append(
            Task {
                for await signal in statuses {
                    switch signal {
                    case .status(let status): self.handleStatus(status)
                    case .possibleLoss(let status): self.handlePossibleLoss(status)
                    }
                }
                self.streamEnded()
            })
        let receiving = subscription.isReceiving
        if receiving {
            // The loop was receiving before this view: the detector starts from there, so an
            // interruption and a resume that cannot catch up are told apart as the client's are.
            _ = gaps.observe(PubNubStatus(category: .connected, operation: .subscribe, isError: false))
        }
        handle(.started(isReceiving: receiving))
    }

    private func handleStatus(_ status: PubNubStatus) {
        if let gap = gaps.observe(status) { handle(.gap(gap)) }
        handle(.status(status, isReceiving: subscription?.isReceiving ?? false))
    }

    private func handlePossibleLoss(_ status: PubNubStatus) {
        if let gap = gaps.observePossibleLoss(status) { handle(.gap(gap)) }
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
        subscription = nil
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
