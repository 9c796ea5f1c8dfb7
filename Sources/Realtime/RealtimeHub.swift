package import JSONCore
import PubNubBase
package import PubNubCore

/// Something events can be delivered to because it subscribed: a ``Subscription`` or a
/// ``SubscriptionSet``.
package protocol RealtimeSubscriber: AnyObject, Sendable {
    /// The channel and group names it subscribes to (presence names included).
    var subscribedNames: SubscriptionNames { get }
    /// Which stores events for which names go to; the hub indexes them when the subscriber is
    /// activated, so delivery never asks each subscriber in turn.
    var routes: [SubscriberRoute] { get }
    /// Ends its streams because everything was unsubscribed.
    func forceUnsubscribed()
    /// Every store it delivers to (for signals that are not events, such as DataSync gaps).
    var listenerStores: [ListenerStore] { get }
}

/// The names a subscriber asks for.
package struct SubscriptionNames: Hashable, Sendable {
    package var channels: [String]
    package var groups: [String]

    package init(channels: [String] = [], groups: [String] = []) {
        self.channels = channels
        self.groups = groups
    }

    /// Whether an event that came for `match` (`b ?? c`) on `channel` belongs here: the name
    /// itself, a group of that name, or a wildcard pattern covering the channel.
    package func matches(match: String, channel: String) -> Bool {
        if channels.contains(match) || groups.contains(match) { return true }
        let concrete = ChannelName(match)
        return channels.contains { name in
            let pattern = ChannelName(name)
            return pattern.isWildcard && (pattern.matches(concrete) || pattern.matches(ChannelName(channel)))
        }
    }
}

/// What the client-level API, the subscriptions and the loop share: which names are subscribed
/// and by whom, the listeners, and the presence state.
///
/// Every change recomputes the full set under the lock and hands it to the loop's inbox in the
/// same critical section, so the loop sees changes in the order they were made.
package final class RealtimeHub: Sendable {
    private struct State: Sendable {
        var clientChannels: Set<String> = []
        var clientGroups: Set<String> = []
        var subscribers: [ObjectIdentifier: any RealtimeSubscriber] = [:]
        /// The names each active subscriber had when it was (last) activated.
        var subscriberNames: [ObjectIdentifier: SubscriptionNames] = [:]
        /// How many holders (the client-level API, each active subscriber) hold each name: the
        /// full set is their keys, kept up to date per change instead of rebuilt from every holder.
        var channelHolders: [String: Int] = [:]
        var groupHolders: [String: Int] = [:]
        /// Set while a subscription change is in the loop's inbox and not yet taken: later changes
        /// only update this, and the loop takes the full set as it is when it gets there (see
        /// ``RealtimeHub/takeSubscriptionChange()``).
        var pendingChange: PendingChange?
        /// Subscription changes put in the inbox, and taken by the loop, so far: the loop takes
        /// them in order, so the count says which queued change a take belongs to.
        var changesQueued: UInt64 = 0
        var changesTaken: UInt64 = 0
        /// The active subscribers' stores by name, for delivery.
        var routes = RouteIndex()
        var presenceState: [String: JSONValue] = [:]
        var isShutDown = false
        /// The names of the loop's current long-poll while it is receiving; `nil` otherwise.
        var receiving: SubscriptionNames?
    }

    private struct PendingChange: Sendable {
        /// Which queued change carries it (``State/changesQueued`` when it was queued).
        var number: UInt64
        var timetoken: Timetoken?
    }

    private let state = Locked(State())
    private let inbox: AsyncStream<SubscribeStateMachine.Event>.Continuation
    private let sentEvents = Locked<UInt64>(0)
    /// What the loop's state machine would act on among the origin reports (see
    /// ``offerOriginSignal(_:)``).
    private let originInterest = Locked<Set<OriginHealth.Outcome>>([])
    private let completionContext: PubNub.CompletionContext
    /// The client-level listeners: `addListener`, `pubnub.onMessage`, the client's streams.
    package let clientStore = ListenerStore()
    /// DataSync state shared by every receiver: the sides of links seen, and the gap detector.
    private let dataSync = Locked(DataSyncHubState())

    /// Where incomplete DataSync events are reported (the configuration's `warningHandler`).
    private let warningHandler: (@Sendable (PubNubWarning) -> Void)?
    /// The configuration's logger: statuses, gaps and incomplete events are logged too.
    private let logger: (any PubNubLogger)?

    package init(
        inbox: AsyncStream<SubscribeStateMachine.Event>.Continuation, completionContext: PubNub.CompletionContext,
        warningHandler: (@Sendable (PubNubWarning) -> Void)? = nil, logger: (any PubNubLogger)? = nil
    ) {
        self.inbox = inbox
        self.completionContext = completionContext
        self.warningHandler = warningHandler
        self.logger = logger
    }

    // MARK: Subscribing

    /// Adds or removes names of the client-level (seed) API.
    package func changeClientNames(
        adding: SubscriptionNames = SubscriptionNames(), removing: SubscriptionNames = SubscriptionNames(),
        timetoken: Timetoken? = nil, state newState: [String: JSONValue]? = nil
    ) {
        state.withLock { state in
            for name in adding.channels where state.clientChannels.insert(name).inserted {
                state.channelHolders[name, default: 0] += 1
            }
            for name in adding.groups where state.clientGroups.insert(name).inserted {
                state.groupHolders[name, default: 0] += 1
            }
            for name in removing.channels where state.clientChannels.remove(name) != nil {
                Self.release(name, in: &state.channelHolders)
            }
            for name in removing.groups where state.clientGroups.remove(name) != nil {
                Self.release(name, in: &state.groupHolders)
            }
            for name in removing.channels + removing.groups { state.presenceState[name] = nil }
            if let newState { state.presenceState.merge(newState) { _, new in new } }
            sync(&state, timetoken: timetoken)
        }
    }

    /// Starts delivering to `subscriber` and subscribes its names.
    package func activate(_ subscriber: any RealtimeSubscriber, timetoken: Timetoken? = nil) {
        state.withLock { state in
            let id = ObjectIdentifier(subscriber)
            state.subscribers[id] = subscriber
            state.routes.set(subscriber.routes, for: id)
            Self.hold(subscriber.subscribedNames, for: id, in: &state)
            sync(&state, timetoken: timetoken)
        }
    }

    /// Stops delivering to `subscriber` and unsubscribes names nobody else holds.
    package func deactivate(_ subscriber: any RealtimeSubscriber) {
        state.withLock { state in
            let id = ObjectIdentifier(subscriber)
            guard state.subscribers.removeValue(forKey: id) != nil else { return }
            state.routes.remove(id)
            Self.hold(nil, for: id, in: &state)
            sync(&state, timetoken: nil)
        }
    }

    /// Whether `subscriber` is active.
    package func isActive(_ subscriber: any RealtimeSubscriber) -> Bool {
        state.withLock { $0.subscribers[ObjectIdentifier(subscriber)] != nil }
    }

    /// Records what the loop receives now: the names of its long-poll while it is in `receiving`,
    /// `nil` while it handshakes, waits to reconnect, has failed or is stopped. The loop calls this
    /// before carrying out the effects of each step, so a status it reports already sees it.
    package func loopReceiving(_ names: SubscriptionNames?) {
        state.withLock { $0.receiving = names }
    }

    /// Whether `subscriber` is active and the loop's current long-poll covers all of its names.
    package func isReceiving(_ subscriber: any RealtimeSubscriber) -> Bool {
        let names = subscriber.subscribedNames
        return state.withLock { state in
            guard !state.isShutDown, state.subscribers[ObjectIdentifier(subscriber)] != nil,
                let receiving = state.receiving
            else { return false }
            return Set(receiving.channels).isSuperset(of: names.channels)
                && Set(receiving.groups).isSuperset(of: names.groups)
        }
    }

    /// The subscribers events are delivered to now.
    package var activeSubscribers: [any RealtimeSubscriber] { state.withLock { Array($0.subscribers.values) } }

    /// Unsubscribes everything: the client-level names and every subscription.
    package func unsubscribeAll() {
        let subscribers = state.withLock { state in
            defer {
                state.clientChannels = []
                state.clientGroups = []
                state.subscribers = [:]
                state.subscriberNames = [:]
                state.channelHolders = [:]
                state.groupHolders = [:]
                state.routes = RouteIndex()
                state.presenceState = [:]
                sync(&state, timetoken: nil)
            }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.forceUnsubscribed() }
    }

    /// The full set subscribed now, sorted.
    package var names: SubscriptionNames {
        state.withLock { Self.union($0) }
    }

    /// The presence state for the names in `names`, as `state` wants it (keyed by channel).
    package func presenceState(for names: SubscriptionNames, consume: Bool) -> [String: JSONValue] {
        state.withLock { state in
            let wanted = Set(names.channels + names.groups)
            let picked = state.presenceState.filter { wanted.contains($0.key) }
            if consume { for key in picked.keys { state.presenceState[key] = nil } }
            return picked
        }
    }

    /// Tells the loop the set changed; called with the lock held so the order of changes is kept.
    /// While an earlier change waits in the inbox nothing more is queued: that one carries the
    /// full set as it is when the loop takes it, so subscribing 10,000 names one by one costs the
    /// loop a handful of changes, not 10,000 copies of a growing list. A change that empties the
    /// set is always queued by itself.
    private func sync(_ state: inout State, timetoken: Timetoken?) {
        guard !state.isShutDown else { return }
        // Emptying the set is queued on its own: the loop must see it (it forgets the cursor).
        let isEmpty = state.channelHolders.isEmpty && state.groupHolders.isEmpty
        if state.pendingChange != nil, !isEmpty {
            if let timetoken { state.pendingChange?.timetoken = timetoken }
            return
        }
        state.changesQueued &+= 1
        state.pendingChange = isEmpty ? nil : PendingChange(number: state.changesQueued, timetoken: timetoken)
        let names = Self.union(state)
        sentEvents.withLock { $0 &+= 1 }
        inbox.yield(.subscriptionChanged(channels: names.channels, groups: names.groups, timetoken: timetoken))
    }

    /// The change the loop should handle for a `subscriptionChanged` it took from the inbox (the
    /// loop calls this once per such event, in order): the full set now, with the latest timetoken
    /// asked for since, when later changes were folded into that event; nil when none were (the
    /// event then stands as it is).
    package func takeSubscriptionChange() -> SubscribeStateMachine.Event? {
        state.withLock { state in
            state.changesTaken &+= 1
            guard let pending = state.pendingChange, pending.number == state.changesTaken else { return nil }
            state.pendingChange = nil
            let names = Self.union(state)
            return .subscriptionChanged(channels: names.channels, groups: names.groups, timetoken: pending.timetoken)
        }
    }

    private static func union(_ state: State) -> SubscriptionNames {
        SubscriptionNames(channels: state.channelHolders.keys.sorted(), groups: state.groupHolders.keys.sorted())
    }

    /// Replaces the names held for subscriber `id` with `names` (none when nil).
    private static func hold(_ names: SubscriptionNames?, for id: ObjectIdentifier, in state: inout State) {
        if let old = state.subscriberNames.removeValue(forKey: id) {
            for name in Set(old.channels) { release(name, in: &state.channelHolders) }
            for name in Set(old.groups) { release(name, in: &state.groupHolders) }
        }
        guard let names else { return }
        state.subscriberNames[id] = names
        for name in Set(names.channels) { state.channelHolders[name, default: 0] += 1 }
        for name in Set(names.groups) { state.groupHolders[name, default: 0] += 1 }
    }

    private static func release(_ name: String, in holders: inout [String: Int]) {
        guard let count = holders[name] else { return }
        holders[name] = count > 1 ? count - 1 : nil
    }

    /// How many events the hub has put in the loop's inbox (counted before each is queued): the
    /// loop has decided on all of them once its ``SubscribeLoop/handledEventCount`` reaches this.
    package var sentEventCount: UInt64 { sentEvents.withLock { $0 } }

    // MARK: Delivering

    /// Sets the origin outcomes the loop acts on now; the loop calls it after every event, before
    /// it starts the requests or waits whose ``OriginHealth/mark()`` decides which reports count,
    /// so no report that would count is turned away.
    package func setOriginInterest(_ outcomes: Set<OriginHealth.Outcome>) {
        originInterest.withLock { $0 = outcomes }
    }

    /// Queues an origin report for the loop only when its state machine would act on it. Every
    /// answered REST call of the client is reported; queueing each one woke the loop's task once
    /// per call (issue 34 §1), while the machine uses an answer only during a reconnection wait
    /// after a connection failure and a failure only while a long-poll is held.
    package func offerOriginSignal(_ signal: OriginHealth.Signal) {
        guard originInterest.withLock({ $0.contains(signal.outcome) }) else { return }
        send(.origin(signal))
    }

    /// Sends the loop an event that is not a subscription change. A change queued before it is
    /// handled as it was then; a change after it is queued anew, so the loop sees the two in the
    /// order they happened.
    package func send(_ event: SubscribeStateMachine.Event) {
        sentEvents.withLock { $0 &+= 1 }
        state.withLock { state in
            state.pendingChange = nil
            inbox.yield(event)
        }
    }

    /// Fans events out: every event to the client-level listeners, and to each subscriber whose
    /// names match its `b ?? c` (looked up in the route index, so the subscribers that did not ask
    /// for the event's name are never visited). Streams get them at once; closures and listener
    /// objects in the completion context, in order, with no lock held.
    package func deliver(_ envelopes: [SubscribeEnvelope]) {
        var batches: [ObjectIdentifier: (store: ListenerStore, events: [PubNubEvent])] = [:]
        var order: [ObjectIdentifier] = []
        var all: [PubNubEvent] = []
        all.reserveCapacity(envelopes.count)
        let targets = state.withLock { state in
            envelopes.map { state.routes.stores(forMatch: $0.match, channel: $0.channel) }
        }
        for (envelope, stores) in zip(envelopes, targets) {
            let decoded = PubNubEvent(envelope: envelope)
            let (event, warning) = dataSync.withLock { $0.process(decoded) }
            if let warning {
                warningHandler?(warning)
                logger?.log(.warning, .datasync, warning.description)
            }
            all.append(event)
            for store in stores {
                let key = ObjectIdentifier(store)
                if batches[key] == nil {
                    batches[key] = (store, [])
                    order.append(key)
                }
                batches[key]?.events.append(event)
            }
        }
        var calls = clientStore.deliver(all)
        for key in order {
            guard let batch = batches[key] else { continue }
            calls += batch.store.deliver(batch.events)
        }
        run(calls)
    }

    /// How many route entries deliveries have examined so far: the counting hook that shows a
    /// message for one channel visits only the subscriptions that asked for it.
    package var routeEntriesVisited: Int { state.withLock { $0.routes.visited } }

    /// Reports a status to the client-level listeners and the status streams.
    package func deliver(_ status: PubNubStatus) {
        if let logger { Self.log(status, to: logger) }
        var calls = clientStore.deliver(status)
        if let gap = dataSync.withLock({ $0.gaps.observe(status) }) {
            logger?.log(.warning, .datasync, "\(gap)")
            calls += deliver(gap)
        }
        run(calls)
    }

    /// A status as a log record: errors the loop retries by itself at `warning`, errors it does
    /// not at `error`, everything else at `info`; heartbeats under `presence`, decryption under
    /// `crypto`, the rest under `subscribe`.
    private static func log(_ status: PubNubStatus, to logger: any PubNubLogger) {
        let level: PubNubLogLevel =
            !status.isError ? .info : status.willAutomaticallyRetry ? .warning : .error
        let category: PubNubLogCategory =
            status.category == .decryptionError
            ? .crypto : status.operation == .heartbeat ? .presence : .subscribe
        logger.log(level, category, status.description)
    }

    /// Tells the DataSync receivers that a catch-up may have followed dropped messages (see
    /// ``SubscribeStateMachine/Effect/possibleLoss(_:)``); apps see only the gap it makes, and
    /// the `requestMessageCountExceeded` status when they set a threshold.
    package func deliverPossibleLoss(_ status: PubNubStatus) {
        clientStore.deliverPossibleLoss(status)
        guard let gap = dataSync.withLock({ $0.gaps.observePossibleLoss(status) }) else { return }
        logger?.log(.warning, .datasync, "\(gap)")
        run(deliver(gap))
    }

    private func run(_ calls: [@Sendable () -> Void]) {
        guard !calls.isEmpty else { return }
        completionContext.run {
            for call in calls { call() }
        }
    }

    /// Whether ``shutDown()`` ran: a stream made after it would never be finished.
    var isShutDown: Bool { state.withLock { $0.isShutDown } }

    /// Ends everything: no more loop events, every stream finished.
    package func shutDown() {
        let subscribers = state.withLock { state in
            state.isShutDown = true
            defer {
                state.subscribers = [:]
                state.routes = RouteIndex()
            }
            return Array(state.subscribers.values)
        }
        inbox.finish()
        for subscriber in subscribers { subscriber.forceUnsubscribed() }
        clientStore.finishSinks()
    }
}
