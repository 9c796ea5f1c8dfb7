import JSONCore
import PubNubBase
import PubNubCore

/// Options for a subscription; pass ``ReceivePresenceEvents`` to get presence events too.
public protocol SubscriptionOption: Sendable {
    /// The options this value stands for.
    var options: SubscriptionOptions { get }
}

/// The options of a subscription.
public struct SubscriptionOptions: SubscriptionOption, Hashable {
    /// Whether the subscription also subscribes to the entity's `-pnpres` channel.
    public var receivePresenceEvents: Bool

    /// Creates options; the defaults receive no presence events.
    public init(receivePresenceEvents: Bool = false) {
        self.receivePresenceEvents = receivePresenceEvents
    }

    /// The options themselves.
    public var options: SubscriptionOptions { self }
}

/// The option that adds the entity's presence events to a subscription.
///
/// ```swift
/// let subscription = pubnub.channel("room-1").subscription(options: ReceivePresenceEvents())
/// ```
public struct ReceivePresenceEvents: SubscriptionOption, Hashable {
    /// Creates the option.
    public init() {}
    /// Presence events on.
    public var options: SubscriptionOptions { SubscriptionOptions(receivePresenceEvents: true) }
}

/// The listener properties shared by ``Subscription``, ``SubscriptionSet`` and the client.
///
/// Closures run in the configuration's completion context, never under an SDK lock. Each type
/// also offers one `AsyncStream` per kind (`messages()`, `signals()`, `presenceEvents()`,
/// `messageActions()`, `fileEvents()`, `appContextEvents()`, `dataSyncEvents()`, `events()`).
/// Their default buffering policy is `.unbounded`: the subscribe cursor has already moved past
/// anything a stream would drop, so dropping silently would lose events for good; a consumer that
/// stops reading should cancel its task instead. Pass `.bufferingNewest(n)` when only recent
/// events matter. On a subscription or set, a stream keeps it subscribed while it is read:
/// cancelling the last stream of one that was not subscribed with `subscribe()` unsubscribes it.
public protocol EventListenerHolding: AnyObject, Sendable {
    /// Called for every message.
    var onMessage: (@Sendable (PubNubMessage) -> Void)? { get set }
    /// Called for every signal.
    var onSignal: (@Sendable (PubNubSignal) -> Void)? { get set }
    /// Called for every presence event.
    var onPresence: (@Sendable (PubNubPresenceEvent) -> Void)? { get set }
    /// Called for every message action event.
    var onMessageAction: (@Sendable (PubNubMessageActionEvent) -> Void)? { get set }
    /// Called for every file event.
    var onFileEvent: (@Sendable (PubNubFileEvent) -> Void)? { get set }
    /// Called for every App Context event.
    var onAppContext: (@Sendable (PubNubAppContextEvent) -> Void)? { get set }
    /// Called for every DataSync event (a copy from another channel only once, by default).
    var onDataSync: (@Sendable (PubNubDataSyncEvent) -> Void)? { get set }
    /// Called for every event of an unknown type.
    var onUnknownEvent: (@Sendable (PubNubRawEvent) -> Void)? { get set }
    /// Called with every batch of events, all kinds together, in the order they arrived.
    var onEvents: (@Sendable ([PubNubEvent]) -> Void)? { get set }
}

/// A handle that subscribes to one entity (a channel, a channel group, or a user's or channel's
/// metadata channel) and receives only the events that came for it.
///
/// Nothing is received until ``subscribe()`` (or a stream is read). The client holds an active
/// subscription until ``unsubscribe()``, so dropping your reference does not stop it.
///
/// ```swift
/// let room = pubnub.channel("room-1").subscription(options: ReceivePresenceEvents())
/// room.onMessage = { message in print(message.payload) }
/// room.subscribe()
/// // …
/// room.unsubscribe()
/// ```
public final class Subscription: EventListenerHolding, RealtimeSubscriber {
    /// The channels this subscription subscribes to, presence channels included.
    public let channels: [String]
    /// The channel groups this subscription subscribes to, presence groups included.
    public let channelGroups: [String]
    /// The options it was made with.
    public let options: SubscriptionOptions
    package let listenerStore = ListenerStore()
    let hub: RealtimeHub
    private let holds = Locked(Holds())

    private struct Holds: Sendable {
        var explicit = false
        var streams = 0
        var isActive: Bool { explicit || streams > 0 }
    }

    package init(channels: [String], groups: [String], options: SubscriptionOptions, hub: RealtimeHub) {
        func expand(_ names: [String]) -> [String] {
            options.receivePresenceEvents
                ? names.flatMap { [$0, ChannelName($0).presence.rawValue] } : names
        }
        self.channels = Array(Set(expand(channels))).sorted()
        self.channelGroups = Array(Set(expand(groups))).sorted()
        self.options = options
        self.hub = hub
    }

    package var subscribedNames: SubscriptionNames { SubscriptionNames(channels: channels, groups: channelGroups) }

    package var routes: [SubscriberRoute] { [SubscriberRoute(names: subscribedNames, stores: [listenerStore])] }

    package func forceUnsubscribed() {
        holds.withLock { $0 = Holds() }
        listenerStore.finishSinks()
    }

    /// Whether the subscription is subscribed now.
    public var isSubscribed: Bool { hub.isActive(self) }

    /// Whether the subscribe loop is receiving this subscription's channels and groups now: it is
    /// subscribed, and the loop's current long-poll covers every one of its names (names another
    /// subscription already held count at once).
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

    /// Subscribes, receiving what is published from now on.
    public func subscribe() {
        holds.withLock { $0.explicit = true }
        hub.activate(self)
    }

    /// Subscribes, first catching up on what was published after `timetoken`.
    public func subscribe(with timetoken: Timetoken) {
        holds.withLock { $0.explicit = true }
        hub.activate(self, timetoken: timetoken)
    }

    /// Unsubscribes (a `leave` is sent for names no other subscription holds) and ends this
    /// subscription's streams. Listeners stay set, for a later ``subscribe()``.
    public func unsubscribe() {
        holds.withLock { $0 = Holds() }
        hub.deactivate(self)
        listenerStore.finishSinks()
    }

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

/// Several subscriptions handled as one: subscribed, unsubscribed and listened to together.
///
/// Its listeners get an event when any member's entity matched it (once, even when two members
/// matched); the members' own listeners get it too.
///
/// ```swift
/// let set = pubnub.subscription(entities: [pubnub.channel("a"), pubnub.channelGroup("g")])
/// set.onEvents = { events in print(events.count) }
/// set.subscribe()
/// ```
public final class SubscriptionSet: EventListenerHolding, RealtimeSubscriber {
    package let listenerStore = ListenerStore()
    private let hub: RealtimeHub
    private let state: Locked<SetState>

    private struct SetState: Sendable {
        var members: [Subscription]
        var explicit = false
        var streams = 0
        var isActive: Bool { explicit || streams > 0 }
    }

    package init(subscriptions: [Subscription], hub: RealtimeHub) {
        self.hub = hub
        state = Locked(SetState(members: subscriptions))
    }

    /// The member subscriptions.
    public var subscriptions: [Subscription] { state.withLock { $0.members } }

    /// Whether the set is subscribed now.
    public var isSubscribed: Bool { hub.isActive(self) }

    /// Whether the subscribe loop is receiving every member's channels and groups now; see
    /// ``Subscription/isReceiving``.
    public var isReceiving: Bool { hub.isReceiving(self) }

    package var subscribedNames: SubscriptionNames {
        let members = subscriptions
        return SubscriptionNames(
            channels: Array(Set(members.flatMap(\.channels))).sorted(),
            groups: Array(Set(members.flatMap(\.channelGroups))).sorted())
    }

    package var routes: [SubscriberRoute] {
        subscriptions.map { SubscriberRoute(names: $0.subscribedNames, stores: [listenerStore, $0.listenerStore]) }
    }

    package func forceUnsubscribed() {
        state.withLock { state in
            state.explicit = false
            state.streams = 0
        }
        listenerStore.finishSinks()
    }

    /// Adds a subscription; when the set is subscribed, its entity is subscribed at once.
    public func add(_ subscription: Subscription) {
        let active = state.withLock { state in
            if !state.members.contains(where: { $0 === subscription }) { state.members.append(subscription) }
            return state.isActive
        }
        if active { hub.activate(self) }
    }

    /// Removes a subscription; when the set is subscribed, names no one else holds are left.
    public func remove(_ subscription: Subscription) {
        let active = state.withLock { state in
            state.members.removeAll { $0 === subscription }
            return state.isActive
        }
        if active { hub.activate(self) }
    }

    /// Subscribes every member, receiving what is published from now on.
    public func subscribe() {
        state.withLock { $0.explicit = true }
        hub.activate(self)
    }

    /// Subscribes every member, first catching up on what was published after `timetoken`.
    public func subscribe(with timetoken: Timetoken) {
        state.withLock { $0.explicit = true }
        hub.activate(self, timetoken: timetoken)
    }

    /// Unsubscribes the set and ends its streams.
    public func unsubscribe() {
        state.withLock { state in
            state.explicit = false
            state.streams = 0
        }
        hub.deactivate(self)
        listenerStore.finishSinks()
    }

    package func streamStarted() -> (@Sendable () -> Void) {
        state.withLock { $0.streams += 1 }
        hub.activate(self)
        return { [self] in
            let active = state.withLock { state in
                state.streams = max(0, state.streams - 1)
                return state.isActive
            }
            if !active { hub.deactivate(self) }
        }
    }
}
