public import PubNubCore

// The listener closures and streams of one receiver, forwarding to its `ListenerStore`.
// Written out per type because a public extension cannot be constrained on a package protocol.

extension PubNub {
    /// Called for every message.
    public var onMessage: (@Sendable (PubNubMessage) -> Void)? {
        get { realtime.hub.clientStore.closures().onMessage }
        set { realtime.hub.clientStore.update { $0.onMessage = newValue } }
    }

    /// Called for every signal.
    public var onSignal: (@Sendable (PubNubSignal) -> Void)? {
        get { realtime.hub.clientStore.closures().onSignal }
        set { realtime.hub.clientStore.update { $0.onSignal = newValue } }
    }

    /// Called for every presence event.
    public var onPresence: (@Sendable (PubNubPresenceEvent) -> Void)? {
        get { realtime.hub.clientStore.closures().onPresence }
        set { realtime.hub.clientStore.update { $0.onPresence = newValue } }
    }

    /// Called for every message action event.
    public var onMessageAction: (@Sendable (PubNubMessageActionEvent) -> Void)? {
        get { realtime.hub.clientStore.closures().onMessageAction }
        set { realtime.hub.clientStore.update { $0.onMessageAction = newValue } }
    }

    /// Called for every file event.
    public var onFileEvent: (@Sendable (PubNubFileEvent) -> Void)? {
        get { realtime.hub.clientStore.closures().onFileEvent }
        set { realtime.hub.clientStore.update { $0.onFileEvent = newValue } }
    }

    /// Called for every App Context event.
    public var onAppContext: (@Sendable (PubNubAppContextEvent) -> Void)? {
        get { realtime.hub.clientStore.closures().onAppContext }
        set { realtime.hub.clientStore.update { $0.onAppContext = newValue } }
    }

    /// Called for every DataSync event; a copy of a change that came on another channel is left out
    /// (see `dataSyncDeduplication`).
    public var onDataSync: (@Sendable (PubNubDataSyncEvent) -> Void)? {
        get { realtime.hub.clientStore.closures().onDataSync }
        set { realtime.hub.clientStore.update { $0.onDataSync = newValue } }
    }

    /// Called for every event of an unknown type.
    public var onUnknownEvent: (@Sendable (PubNubRawEvent) -> Void)? {
        get { realtime.hub.clientStore.closures().onUnknownEvent }
        set { realtime.hub.clientStore.update { $0.onUnknownEvent = newValue } }
    }

    /// Called with every batch of events, all kinds together, in the order they arrived.
    public var onEvents: (@Sendable ([PubNubEvent]) -> Void)? {
        get { realtime.hub.clientStore.closures().onEvents }
        set { realtime.hub.clientStore.update { $0.onEvents = newValue } }
    }

    /// The messages, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// It sees every event the client receives, whichever API subscribed to it.
    public func messages(
        bufferingPolicy: AsyncStream<PubNubMessage>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubMessage> {
        realtime.hub.clientStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.message })
    }

    /// The signals, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// It sees every event the client receives, whichever API subscribed to it.
    public func signals(
        bufferingPolicy: AsyncStream<PubNubSignal>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubSignal> {
        realtime.hub.clientStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.signal })
    }

    /// The presence events, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// It sees every event the client receives, whichever API subscribed to it.
    public func presenceEvents(
        bufferingPolicy: AsyncStream<PubNubPresenceEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubPresenceEvent> {
        realtime.hub.clientStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.presenceEvent })
    }

    /// The message action events, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// It sees every event the client receives, whichever API subscribed to it.
    public func messageActions(
        bufferingPolicy: AsyncStream<PubNubMessageActionEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubMessageActionEvent> {
        realtime.hub.clientStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.messageActionEvent })
    }

    /// The file events, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// It sees every event the client receives, whichever API subscribed to it.
    public func fileEvents(
        bufferingPolicy: AsyncStream<PubNubFileEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubFileEvent> {
        realtime.hub.clientStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.fileEvent })
    }

    /// The App Context events, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// It sees every event the client receives, whichever API subscribed to it.
    public func appContextEvents(
        bufferingPolicy: AsyncStream<PubNubAppContextEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubAppContextEvent> {
        realtime.hub.clientStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.appContextEvent })
    }

    /// The DataSync events (copies from other channels left out), as a stream; `.unbounded` by default
    /// (see ``EventListenerHolding``). `dataSyncUpdates()` adds the gap signals.
    /// It sees every event the client receives, whichever API subscribed to it.
    public func dataSyncEvents(
        bufferingPolicy: AsyncStream<PubNubDataSyncEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubDataSyncEvent> {
        realtime.hub.clientStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0.dataSyncEvent })
    }

    /// Every event, all kinds together, as a stream; `.unbounded` by default (see ``EventListenerHolding``).
    /// It sees every event the client receives, whichever API subscribed to it.
    public func events(
        bufferingPolicy: AsyncStream<PubNubEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubEvent> {
        realtime.hub.clientStore.stream(bufferingPolicy: bufferingPolicy, extract: { $0 })
    }
}
