import PubNubBase
public import PubNubCore

/// One element of a subscription's DataSync feed (``Subscription/dataSyncFeed(bufferingPolicy:)``):
/// what a local copy of DataSync objects needs to stay correct, in one order.
public enum PubNubDataSyncFeedItem: Equatable, Sendable {
    /// Always the first element: whether the subscribe loop already receives every channel of the
    /// subscription (see ``SubscriptionBase/isReceiving``). When `true`, a read started now misses
    /// no change; when `false`, wait for a ``status(_:isReceiving:)`` that says `true`.
    case started(isReceiving: Bool)
    /// A DataSync change that came on the subscription's channels (copies dropped as the
    /// subscription's ``SubscriptionBase/dataSyncDeduplication`` says).
    case event(PubNubDataSyncEvent)
    /// Changes may have been missed since the feed started: read your copy again. A gap comes
    /// before the status that revealed it.
    case gap(PubNubDataSyncGap)
    /// A status the client reported (every operation: subscribe, unsubscribe, heartbeat), with
    /// whether the loop received the subscription's channels when it was reported.
    case status(PubNubStatus, isReceiving: Bool)
}

extension Subscription {
    /// Everything a cache of DataSync objects needs from the subscribe loop, as one ordered
    /// stream: ``PubNubDataSyncFeedItem/started(isReceiving:)`` first, then this subscription's
    /// DataSync events, the client's statuses and the gaps, in the loop's order. Reading it keeps
    /// the subscription subscribed; ``SubscriptionBase/unsubscribe()``, `unsubscribeAll()` and
    /// releasing the client end it. `.unbounded` by default (see ``EventListenerHolding``).
    ///
    /// The contract: a read started while the last element said `isReceiving: true` misses no
    /// change, unless a later `gap` says so. Gaps follow ``SubscriptionBase/onDataSyncGap``'s
    /// rules from the feed's start and come before the status that revealed them; a status's
    /// `isReceiving` is the value when it was reported. Why, and a fuller cache:
    /// Documentation/Realtime.md.
    ///
    /// ```swift
    /// var isReceiving = false, needsRead = true
    /// for await item in pubnub.dataSyncEntity("alice").subscription().dataSyncFeed() {
    ///     switch item {
    ///     case .started(let receiving), .status(_, let receiving): isReceiving = receiving
    ///     case .gap: needsRead = true
    ///     case .event(let event): cache.apply(event)  // keeps the newer version of each object
    ///     }
    ///     if needsRead, isReceiving { needsRead = false; await cache.reload() }
    /// }
    /// ```
    public func dataSyncFeed(
        bufferingPolicy: AsyncStream<PubNubDataSyncFeedItem>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<PubNubDataSyncFeedItem> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: PubNubDataSyncFeedItem.self, bufferingPolicy: bufferingPolicy)
        guard !hub.isShutDown else {
            continuation.finish()
            return stream
        }
        // Everything is yielded under this lock, and nothing before `started`: the loop may report
        // while the feed is being set up, and the first element must describe the state the later
        // ones change.
        let feed = Locked(FeedState())
        let clientStore = hub.clientStore
        let clientSink = clientStore.addSink(
            ListenerStore.Sink(
                deliver: { _ in },
                status: { [self] status in
                    feed.withLock { state in
                        guard state.isStarted else { return }
                        if let gap = state.gaps.observe(status) { continuation.yield(.gap(gap)) }
                        continuation.yield(.status(status, isReceiving: isReceiving))
                    }
                },
                finish: { continuation.finish() },
                possibleLoss: { status in
                    feed.withLock { state in
                        guard state.isStarted, let gap = state.gaps.observePossibleLoss(status) else { return }
                        continuation.yield(.gap(gap))
                    }
                }))
        // The hub's own gap signal is left out: the feed judges gaps itself, from its start.
        let ownSink = listenerStore.addSink(
            ListenerStore.Sink(
                deliver: { event in
                    guard case .dataSync(let change) = event else { return }
                    feed.withLock { state in
                        if state.isStarted { continuation.yield(.event(change)) }
                    }
                },
                status: { _ in },
                finish: { continuation.finish() }))
        let release = feed.withLock { state in
            let release = streamStarted()
            let receiving = isReceiving
            if receiving {
                // Receiving already: an interruption from here on is one this feed saw begin.
                _ = state.gaps.observe(PubNubStatus(category: .connected, operation: .subscribe, isError: false))
            }
            state.isStarted = true
            continuation.yield(.started(isReceiving: receiving))
            return release
        }
        let listenerStore = self.listenerStore
        continuation.onTermination = { _ in
            clientStore.removeSink(clientSink)
            listenerStore.removeSink(ownSink)
            release()
        }
        return stream
    }
}

private struct FeedState: Sendable {
    var isStarted = false
    var gaps = DataSyncGapDetector()
}
