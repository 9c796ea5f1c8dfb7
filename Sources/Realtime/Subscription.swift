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
/// Nothing is received until ``SubscriptionBase/subscribe()`` (or a stream is read). The client
/// holds an active subscription until ``SubscriptionBase/unsubscribe()``, so dropping your
/// reference does not stop it.
///
/// ```swift
/// let room = pubnub.channel("room-1").subscription(options: ReceivePresenceEvents())
/// room.onMessage = { message in print(message.payload) }
/// room.subscribe()
/// // …
/// room.unsubscribe()
/// ```
public final class Subscription: SubscriptionBase, @unchecked Sendable {
    // `Sendable` as its base is: only `let`s of `Sendable` types.
    /// The channels this subscription subscribes to, presence channels included.
    public let channels: [String]
    /// The channel groups this subscription subscribes to, presence groups included.
    public let channelGroups: [String]
    /// The options it was made with.
    public let options: SubscriptionOptions

    package init(channels: [String], groups: [String], options: SubscriptionOptions, hub: RealtimeHub) {
        func expand(_ names: [String]) -> [String] {
            options.receivePresenceEvents
                ? names.flatMap { [$0, ChannelName($0).presence.rawValue] } : names
        }
        self.channels = Array(Set(expand(channels))).sorted()
        self.channelGroups = Array(Set(expand(groups))).sorted()
        self.options = options
        super.init(hub: hub)
    }

    override package var subscribedNames: SubscriptionNames {
        SubscriptionNames(channels: channels, groups: channelGroups)
    }

    override package var routes: [SubscriberRoute] {
        [SubscriberRoute(names: subscribedNames, stores: [listenerStore])]
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
public final class SubscriptionSet: SubscriptionBase, @unchecked Sendable {
    // `Sendable` as its base is: only `let`s of `Sendable` types (the members inside `Locked`).
    private let members: Locked<[Subscription]>

    package init(subscriptions: [Subscription], hub: RealtimeHub) {
        members = Locked(subscriptions)
        super.init(hub: hub)
    }

    /// The member subscriptions.
    public var subscriptions: [Subscription] { members.withLock { $0 } }

    override package var subscribedNames: SubscriptionNames {
        let members = subscriptions
        return SubscriptionNames(
            channels: Array(Set(members.flatMap(\.channels))).sorted(),
            groups: Array(Set(members.flatMap(\.channelGroups))).sorted())
    }

    override package var routes: [SubscriberRoute] {
        subscriptions.map { SubscriberRoute(names: $0.subscribedNames, stores: [listenerStore, $0.listenerStore]) }
    }

    override package var listenerStores: [ListenerStore] { [listenerStore] + subscriptions.map(\.listenerStore) }

    /// Adds a subscription; when the set is subscribed, its entity is subscribed at once.
    public func add(_ subscription: Subscription) {
        members.withLock { members in
            if !members.contains(where: { $0 === subscription }) { members.append(subscription) }
        }
        if isHeld { hub.activate(self) }
    }

    /// Removes a subscription; when the set is subscribed, names no one else holds are left.
    public func remove(_ subscription: Subscription) {
        members.withLock { members in members.removeAll { $0 === subscription } }
        if isHeld { hub.activate(self) }
    }
}
