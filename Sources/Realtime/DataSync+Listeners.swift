public import PubNubCore

// The DataSync-only parts of each receiver: the gap signal, the stream of events and gaps, and the
// dedupe setting, for a subscription or set and again for the client (which is no subscription).

extension SubscriptionBase {
    /// Called when DataSync events may have been missed (see ``PubNubDataSyncGap``).
    public var onDataSyncGap: (@Sendable (PubNubDataSyncGap) -> Void)? {
        get { listenerStore.closures().onDataSyncGap }
        set { listenerStore.update { $0.onDataSyncGap = newValue } }
    }

    /// How copies of one DataSync change that came on several channels (for a set: two members,
    /// or both sides of a link) are dropped for its own listeners; on by default
    /// (``PubNubDataSyncDeduplication/default``). Set it to ``PubNubDataSyncDeduplication/off`` to
    /// get every copy. A set's members keep their own setting.
    public var dataSyncDeduplication: PubNubDataSyncDeduplication {
        get { listenerStore.deduplication }
        set { listenerStore.deduplication = newValue }
    }

    /// The DataSync events and gap signals, in order, as a stream; `.unbounded` by default (see
    /// ``EventListenerHolding``). Reading it keeps the subscription or set subscribed.
    ///
    /// ```swift
    /// for await update in subscription.dataSyncUpdates() {
    ///     switch update {
    ///     case .event(let event): cache.apply(event)
    ///     case .gap: await cache.reload()
    ///     }
    /// }
    /// ```
    public func dataSyncUpdates(
        bufferingPolicy: AsyncStream<PubNubDataSyncUpdate>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubDataSyncUpdate> {
        listenerStore.stream(
            bufferingPolicy: bufferingPolicy, extract: { $0.dataSyncEvent.map(PubNubDataSyncUpdate.event) },
            gap: { .gap($0) }, onEnd: streamStarted())
    }
}

extension PubNub {
    /// Called when DataSync events may have been missed (see ``PubNubDataSyncGap``).
    public var onDataSyncGap: (@Sendable (PubNubDataSyncGap) -> Void)? {
        get { realtime.hub.clientStore.closures().onDataSyncGap }
        set { realtime.hub.clientStore.update { $0.onDataSyncGap = newValue } }
    }

    /// How copies of one DataSync change that came on several channels are dropped for the
    /// client-level listeners (closures, listener objects, streams); on by default. Each
    /// subscription and set has its own setting.
    public var dataSyncDeduplication: PubNubDataSyncDeduplication {
        get { realtime.hub.clientStore.deduplication }
        set { realtime.hub.clientStore.deduplication = newValue }
    }

    /// The DataSync events and gap signals, in order, as a stream; `.unbounded` by default (see
    /// ``EventListenerHolding``). It sees every DataSync event the client receives.
    public func dataSyncUpdates(
        bufferingPolicy: AsyncStream<PubNubDataSyncUpdate>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubDataSyncUpdate> {
        realtime.hub.clientStore.stream(
            bufferingPolicy: bufferingPolicy, extract: { $0.dataSyncEvent.map(PubNubDataSyncUpdate.event) },
            gap: { .gap($0) })
    }
}

/// The DataSync part of the hub's state: one link memory and one gap detector per client.
package struct DataSyncHubState: Sendable {
    package var links = DataSyncLinkMemory()
    package var gaps = DataSyncGapDetector()
    /// The shapes of incomplete events already reported (kind, change, missing fields), so a
    /// sender that always leaves the same fields out is reported once, not once per event.
    private var reportedShapes: Set<String> = []

    package init() {}

    /// Fills in the sides of deleted links (and learns those of created and updated ones); the
    /// warning to report when the event left out fields a stored object has, the first time
    /// this shape of event is seen.
    package mutating func process(_ event: PubNubEvent) -> (event: PubNubEvent, warning: PubNubWarning?) {
        guard case .dataSync(let change) = event else { return (event, nil) }
        return (.dataSync(links.process(change)), warning(for: change))
    }

    private mutating func warning(for event: PubNubDataSyncEvent) -> PubNubWarning? {
        var missing = event.entity?.missingFields ?? event.relationship?.missingFields ?? []
        if let removed = event.removed, removed.deletedAt == nil { missing.append("deletedAt") }
        guard !missing.isEmpty else { return nil }
        let shape = "\(event.kind) \(event.change) \(missing)"
        guard reportedShapes.count < 64, reportedShapes.insert(shape).inserted else { return nil }
        return PubNubWarning(
            code: .incompleteDataSyncEvent,
            message: "a DataSync \(event.change) event for a \(event.kind) (\(event.objectId ?? "?") on "
                + "\(event.channel)) left out \(missing.joined(separator: ", ")); it is delivered with those "
                + "fields absent and its object unset. Later events of this shape are not reported.")
    }
}

extension PubNubWarning.Code {
    /// A DataSync create, update or delete event left out fields a stored object has (its
    /// timestamps, eTag or class): it is still delivered as the change it names, with what it
    /// carried (see ``PubNubDataSyncEntityEvent/missingFields``). Reported once per shape.
    public static let incompleteDataSyncEvent = PubNubWarning.Code(rawValue: "incompleteDataSyncEvent")
}

extension RealtimeHub {
    /// The calls that hand `gap` to the client-level listeners and every active subscriber's, once per store.
    func deliver(_ gap: PubNubDataSyncGap) -> [@Sendable () -> Void] {
        var calls = clientStore.deliver(gap)
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(clientStore)]
        for subscriber in activeSubscribers {
            for store in subscriber.listenerStores where seen.insert(ObjectIdentifier(store)).inserted {
                calls += store.deliver(gap)
            }
        }
        return calls
    }
}
