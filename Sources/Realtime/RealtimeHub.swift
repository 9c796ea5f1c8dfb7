package import JSONCore
import PubNubBase
package import PubNubCore

/// Something events can be delivered to because it subscribed: a ``Subscription`` or a
/// ``SubscriptionSet``.
package protocol RealtimeSubscriber: AnyObject, Sendable {
    /// The channel and group names it subscribes to (presence names included).
    var subscribedNames: SubscriptionNames { get }
    /// The stores to deliver `match`/`channel` events to, or none when nothing of it matched.
    func stores(forMatch match: String, channel: String) -> [ListenerStore]
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
        var presenceState: [String: JSONValue] = [:]
        var isShutDown = false
        /// The names of the loop's current long-poll while it is receiving; `nil` otherwise.
        var receiving: SubscriptionNames?
    }

    private let state = Locked(State())
    private let inbox: AsyncStream<SubscribeStateMachine.Event>.Continuation
    private let sentEvents = Locked<UInt64>(0)
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
            state.clientChannels.formUnion(adding.channels)
            state.clientGroups.formUnion(adding.groups)
            state.clientChannels.subtract(removing.channels)
            state.clientGroups.subtract(removing.groups)
            for name in removing.channels + removing.groups { state.presenceState[name] = nil }
            if let newState { state.presenceState.merge(newState) { _, new in new } }
            sync(&state, timetoken: timetoken)
        }
    }

    /// Starts delivering to `subscriber` and subscribes its names.
    package func activate(_ subscriber: any RealtimeSubscriber, timetoken: Timetoken? = nil) {
        state.withLock { state in
            state.subscribers[ObjectIdentifier(subscriber)] = subscriber
            sync(&state, timetoken: timetoken)
        }
    }

    /// Stops delivering to `subscriber` and unsubscribes names nobody else holds.
    package func deactivate(_ subscriber: any RealtimeSubscriber) {
        state.withLock { state in
            guard state.subscribers.removeValue(forKey: ObjectIdentifier(subscriber)) != nil else { return }
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

    /// Sends the loop the full set; called with the lock held so the order of changes is kept.
    private func sync(_ state: inout State, timetoken: Timetoken?) {
        guard !state.isShutDown else { return }
        let names = Self.union(state)
        sentEvents.withLock { $0 &+= 1 }
        inbox.yield(.subscriptionChanged(channels: names.channels, groups: names.groups, timetoken: timetoken))
    }

    private static func union(_ state: State) -> SubscriptionNames {
        var channels = state.clientChannels
        var groups = state.clientGroups
        for subscriber in state.subscribers.values {
            let names = subscriber.subscribedNames
            channels.formUnion(names.channels)
            groups.formUnion(names.groups)
        }
        return SubscriptionNames(channels: channels.sorted(), groups: groups.sorted())
    }

    /// How many events the hub has put in the loop's inbox (counted before each is queued): the
    /// loop has decided on all of them once its ``SubscribeLoop/handledEventCount`` reaches this.
    package var sentEventCount: UInt64 { sentEvents.withLock { $0 } }

    // MARK: Delivering

    /// Sends the loop an event that is not a subscription change.
    package func send(_ event: SubscribeStateMachine.Event) {
        sentEvents.withLock { $0 &+= 1 }
        inbox.yield(event)
    }

    /// Fans events out: every event to the client-level listeners, and to each subscriber whose
    /// names match its `b ?? c`. Streams get them at once; closures and listener objects in the
    /// completion context, in order, with no lock held.
    package func deliver(_ envelopes: [SubscribeEnvelope]) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        var batches: [ObjectIdentifier: (store: ListenerStore, events: [PubNubEvent])] = [:]
        var order: [ObjectIdentifier] = []
        var all: [PubNubEvent] = []
        all.reserveCapacity(envelopes.count)
        for envelope in envelopes {
            let decoded = PubNubEvent(envelope: envelope)
            let (event, warning) = dataSync.withLock { $0.process(decoded) }
            if let warning {
                warningHandler?(warning)
                logger?.log(.warning, .datasync, warning.description)
            }
            all.append(event)
            var seen: Set<ObjectIdentifier> = []
            for subscriber in subscribers {
                for store in subscriber.stores(forMatch: envelope.match, channel: envelope.channel) {
                    let key = ObjectIdentifier(store)
                    guard seen.insert(key).inserted else { continue }
                    if batches[key] == nil {
                        batches[key] = (store, [])
                        order.append(key)
                    }
                    batches[key]?.events.append(event)
                }
            }
        }
        var calls = clientStore.deliver(all)
        for key in order {
            guard let batch = batches[key] else { continue }
            calls += batch.store.deliver(batch.events)
        }
        run(calls)
    }

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

    /// Ends everything: no more loop events, every stream finished.
    package func shutDown() {
        let subscribers = state.withLock { state in
            state.isShutDown = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        inbox.finish()
        for subscriber in subscribers { subscriber.forceUnsubscribed() }
        clientStore.finishSinks()
    }
}
