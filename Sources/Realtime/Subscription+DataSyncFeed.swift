import PubNubBase
public import PubNubCore

/// One element of a subscription's DataSync feed (``Subscription/dataSyncFeed(bufferingPolicy:)``):
/// what a local copy of DataSync objects needs to stay correct, in one order.
public enum PubNubDataSyncFeedItem: Equatable, Sendable {
    /// Always the first element: whether the subscribe loop already receives every channel of the
    /// subscription (see ``Subscription/isReceiving``). When `true`, a read started now misses no
    /// change; when `false`, wait for a ``status(_:isReceiving:)`` that says `true`.
    case started(isReceiving: Bool)
    /// A DataSync change that came on the subscription's channels (copies dropped as the
    /// subscription's ``Subscription/dataSyncDeduplication`` says).
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
    /// stream: first ``PubNubDataSyncFeedItem/started(isReceiving:)``, then this subscription's
    /// DataSync events, the client's statuses and the gap signals, in the order the loop produced
    /// them. Reading it keeps the subscription subscribed; it ends with ``unsubscribe()``,
    /// `unsubscribeAll()` or when the client is released. `.unbounded` by default (see
    /// ``EventListenerHolding``).
    ///
    /// What a cache can rely on:
    /// - Read your objects only while the loop receives (the `started` or the last `status` says
    ///   `isReceiving: true`): every change committed after such a read began arrives as an event
    ///   later in the feed, unless a `gap` says otherwise.
    /// - Gaps are judged from the statuses since the feed started, by the same rules as
    ///   ``onDataSyncGap`` (see ``PubNubDataSyncGap/Reason``), so a loss that happened before it
    ///   is not reported. Each comes before the status that revealed it, so a cache never calls
    ///   itself current between a reconnection and the gap it brings.
    /// - A status's `isReceiving` is the value at the moment it was reported, not when you read
    ///   it, so the feed tells a consistent story even when the reader is slow.
    ///
    /// A cache that reads its object once the loop receives, and again after each gap. Reading
    /// inline is the point: events that arrive during the read wait in the feed and are applied
    /// after it, in order. `apply` must keep the newer version of an object (by `updatedAt`,
    /// then `eTag`), since some of them are older than the read.
    ///
    /// ```swift
    /// var isReceiving = false
    /// var needsRead = true
    /// for await item in pubnub.dataSyncEntity("alice").subscription().dataSyncFeed() {
    ///     switch item {
    ///     case .started(let receiving), .status(_, let receiving): isReceiving = receiving
    ///     case .gap: needsRead = true
    ///     case .event(let event): cache.apply(event)
    ///     }
    ///     if needsRead, isReceiving {
    ///         needsRead = false
    ///         await cache.reload()
    ///     }
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
