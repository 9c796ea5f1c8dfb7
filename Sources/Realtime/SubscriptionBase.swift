import PubNubBase
public import PubNubCore

/// What ``Subscription`` and ``SubscriptionSet`` share: subscribing and unsubscribing, whether
/// the subscribe loop receives their names, and every listener closure and stream of
/// ``EventListenerHolding``.
///
/// The SDK makes the two kinds; there is no other, and you never make one of these yourself.
/// Write code that works with either against this type.
public class SubscriptionBase: EventListenerHolding, RealtimeSubscriber, @unchecked Sendable {
    // `@unchecked` because the compiler checks `Sendable` only on final classes. It holds: this
    // class stores only `let`s of `Sendable` types (what changes is inside `Locked`), and its two
    // subclasses, final and in this module (the class is not `open`), do the same.
    package let listenerStore = ListenerStore()
    let hub: RealtimeHub
    private let holds = Locked(Holds())

    /// Why it is subscribed: `subscribe()` was called, or streams are being read.
    private struct Holds: Sendable {
        var explicit = false
        var streams = 0
        var isActive: Bool { explicit || streams > 0 }
    }

    init(hub: RealtimeHub) {
        self.hub = hub
    }

    // Each subclass overrides these three: what it subscribes to and where its events go.
    package var subscribedNames: SubscriptionNames { SubscriptionNames() }
    package var routes: [SubscriberRoute] { [] }
    package var listenerStores: [ListenerStore] { [listenerStore] }

    /// Whether `subscribe()` holds it or a stream of it is being read (the hub may not know yet).
    var isHeld: Bool { holds.withLock { $0.isActive } }

    /// Whether it is subscribed now.
    public var isSubscribed: Bool { hub.isActive(self) }

    /// Whether the subscribe loop is receiving its channels and groups now (a set's: every
    /// member's): it is subscribed, and the loop's current long-poll covers every one of its names
    /// (names another subscription already held count at once).
    ///
    /// `false` before the handshake has answered, while the loop waits to reconnect, after it
    /// stopped (a 403, `disconnect()`) and once unsubscribed. Every change into or out of receiving
    /// comes with a status (`connected`, `reconnected`, `unexpectedDisconnect`, `accessDenied`,
    /// `disconnected`, …), and this property already has its new value when that status reaches
    /// the listeners. Something published after it became `true` is delivered; read state you keep
    /// current from events only after that, so no change falls between the read and the events.
    ///
    /// ```swift
    /// let statuses = pubnub.statuses()
    /// subscription.subscribe()
    /// if !subscription.isReceiving {
    ///     for await _ in statuses where subscription.isReceiving { break }
    /// }
    /// let snapshot = try await pubnub.dataSync.getUser(id: "alice")
    /// ```
    public var isReceiving: Bool { hub.isReceiving(self) }

    /// Subscribes (a set: every member), receiving what is published from now on.
    public func subscribe() {
        holds.withLock { $0.explicit = true }
        hub.activate(self)
    }

    /// Subscribes (a set: every member), first catching up on what was published after
    /// `timetoken`.
    public func subscribe(with timetoken: Timetoken) {
        holds.withLock { $0.explicit = true }
        hub.activate(self, timetoken: timetoken)
    }

    /// Unsubscribes (a `leave` is sent for names no other subscription holds) and ends the
    /// streams. Listeners stay set, for a later ``subscribe()``.
    public func unsubscribe() {
        holds.withLock { $0 = Holds() }
        hub.deactivate(self)
        listenerStore.finishSinks()
    }

    package func forceUnsubscribed() {
        holds.withLock { $0 = Holds() }
        listenerStore.finishSinks()
    }

    /// Holds it subscribed while a stream is read; call what it returns when the stream ends.
    package func streamStarted() -> (@Sendable () -> Void) {
        holds.withLock { $0.streams += 1 }
        hub.activate(self)
        return { [self] in
            let active = holds.withLock { holds in
                holds.streams = max(0, holds.streams - 1)
                return holds.isActive
            }
            if !active { hub.deactivate(self) }
        }
    }
}
