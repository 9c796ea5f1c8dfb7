// The listener closures and streams of a subscription or set, forwarding to its `ListenerStore`.
// The client has the same listeners, written out again in PubNub+Listeners.swift: a public
// extension cannot be constrained on a package protocol, and `PubNub` is no subscription.

extension SubscriptionBase {
    /// Called for every message.
    public var onMessage: (@Sendable (PubNubMessage) -> Void)? {
        get { listenerStore.closures().onMessage }
        set { listenerStore.update { $0.onMessage = newValue } }
    }

    /// Called for every signal.
    public var onSignal: (@Sendable (PubNubSignal) -> Void)? {
        get { listenerStore.closures().onSignal }
        set { listenerStore.update { $0.onSignal = newValue } }
    }

    /// Called for every presence event.
    public var onPresence: (@Sendable (PubNubPresenceEvent) -> Void)? {
        get { listenerStore.closures().onPresence }
        set { listenerStore.update { $0.onPresence = newValue } }
    }

    /// Called for every message action event.
    public var onMessageAction: (@Sendable (PubNubMessageActionEvent) -> Void)? {
        get { listenerStore.closures().onMessageAction }
        set { listenerStore.update { $0.onMessageAction = newValue } }
    }

    /// Called for every file event.
    public var onFileEvent: (@Sendable (PubNubFileEvent) -> Void)? {
        get { listenerStore.closures().onFileEvent }
        set { listenerStore.update { $0.onFileEvent = newValue } }
    }

    /// Called for every App Context event.
    public var onAppContext: (@Sendable (PubNubAppContextEvent) -> Void)? {
        get { listenerStore.closures().onAppContext }
        set { listenerStore.update { $0.onAppContext = newValue } }
    }

    /// Called for every DataSync event; a copy of a change that came on another channel is left out
    /// (see `dataSyncDeduplication`).
    public var onDataSync: (@Sendable (PubNubDataSyncEvent) -> Void)? {
        get { listenerStore.closures().onDataSync }
        set { listenerStore.update { $0.onDataSync = newValue } }
    }

    /// Called for every event of an unknown type.
    public var onUnknownEvent: (@Sendable (PubNubRawEvent) -> Void)? {
        get { listenerStore.closures().onUnknownEvent }
        set { listenerStore.update { $0.onUnknownEvent = newValue } }
    }

    /// Called with every batch of events, all kinds together, in the order they arrived.
    public var onEvents: (@Sendable ([PubNubEvent]) -> Void)? {
        get { listenerStore.closures().onEvents }
        set { listenerStore.update { $0.onEvents = newValue } }
    }

    /// The messages, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// Reading it keeps the subscription or set subscribed.
    public func messages(
        bufferingPolicy: AsyncStream<PubNubMessage>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubMessage> {
        listenerStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.message }, onEnd: streamStarted())
    }

    /// The signals, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// Reading it keeps the subscription or set subscribed.
    public func signals(
        bufferingPolicy: AsyncStream<PubNubSignal>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubSignal> {
        listenerStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.signal }, onEnd: streamStarted())
    }

    /// The presence events, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// Reading it keeps the subscription or set subscribed.
    public func presenceEvents(
        bufferingPolicy: AsyncStream<PubNubPresenceEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubPresenceEvent> {
        listenerStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.presenceEvent }, onEnd: streamStarted())
    }

    /// The message action events, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// Reading it keeps the subscription or set subscribed.
    public func messageActions(
        bufferingPolicy: AsyncStream<PubNubMessageActionEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubMessageActionEvent> {
        listenerStore.stream(
            bufferingPolicy: bufferingPolicy, extract: { $0.messageActionEvent }, onEnd: streamStarted())
    }

    /// The file events, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// Reading it keeps the subscription or set subscribed.
    public func fileEvents(
        bufferingPolicy: AsyncStream<PubNubFileEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubFileEvent> {
        listenerStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.fileEvent }, onEnd: streamStarted())
    }

    /// The App Context events, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// Reading it keeps the subscription or set subscribed.
    public func appContextEvents(
        bufferingPolicy: AsyncStream<PubNubAppContextEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubAppContextEvent> {
        listenerStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.appContextEvent }, onEnd: streamStarted())
    }

    /// The DataSync events (copies from other channels left out), as a stream; `.unbounded` by default
    /// (see ``EventListenerHolding``). `dataSyncUpdates()` adds the gap signals.
    /// Reading it keeps the subscription or set subscribed.
    public func dataSyncEvents(
        bufferingPolicy: AsyncStream<PubNubDataSyncEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubDataSyncEvent> {
        listenerStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.dataSyncEvent }, onEnd: streamStarted())
    }

    /// Every event, all kinds together, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// Reading it keeps the subscription or set subscribed.
    public func events(
        bufferingPolicy: AsyncStream<PubNubEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubEvent> {
        listenerStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0 }, onEnd: streamStarted())
    }
}
