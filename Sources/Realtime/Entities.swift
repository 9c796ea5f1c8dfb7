public import PubNubCore

/// Something a subscription can be made for: a channel, a channel group, or the metadata channel
/// of a user or channel.
public protocol Subscribable: Sendable {
    /// The entity's name.
    var name: String { get }
    /// A subscription to this entity; nothing is received until it is subscribed.
    func subscription(options: any SubscriptionOption) -> Subscription
}

/// A local handle for a channel: ``subscription(options:)`` makes subscriptions to it.
///
/// ```swift
/// let room = pubnub.channel("room-1").subscription()
/// room.onMessage = { print($0.payload) }
/// room.subscribe()
/// ```
public struct ChannelEntity: Subscribable {
    /// The channel's name (a wildcard pattern such as `news.*` is allowed).
    public let name: String
    let hub: RealtimeHub

    /// A subscription to the channel.
    public func subscription(options: any SubscriptionOption = SubscriptionOptions()) -> Subscription {
        Subscription(channels: [name], groups: [], options: options.options, hub: hub)
    }
}

/// A local handle for a channel group.
public struct ChannelGroupEntity: Subscribable {
    /// The group's name.
    public let name: String
    let hub: RealtimeHub

    /// A subscription to the group (with presence: the group's `-pnpres` group too).
    public func subscription(options: any SubscriptionOption = SubscriptionOptions()) -> Subscription {
        Subscription(channels: [], groups: [name], options: options.options, hub: hub)
    }
}

/// A local handle for a user's metadata: its events come on the channel named after the user id.
public struct UserMetadataEntity: Subscribable {
    /// The user id.
    public let name: String
    let hub: RealtimeHub

    /// A subscription to the user's metadata events.
    public func subscription(options: any SubscriptionOption = SubscriptionOptions()) -> Subscription {
        Subscription(channels: [name], groups: [], options: options.options, hub: hub)
    }
}

/// A local handle for a channel's metadata: its events come on the channel itself.
public struct ChannelMetadataEntity: Subscribable {
    /// The channel id.
    public let name: String
    let hub: RealtimeHub

    /// A subscription to the channel's metadata events.
    public func subscription(options: any SubscriptionOption = SubscriptionOptions()) -> Subscription {
        Subscription(channels: [name], groups: [], options: options.options, hub: hub)
    }
}

extension PubNub {
    /// A handle for the channel `name`.
    public func channel(_ name: String) -> ChannelEntity { ChannelEntity(name: name, hub: realtime.hub) }

    /// A handle for the channel group `name`.
    public func channelGroup(_ name: String) -> ChannelGroupEntity {
        ChannelGroupEntity(name: name, hub: realtime.hub)
    }

    /// A handle for the metadata of the user `id`.
    public func userMetadata(_ id: String) -> UserMetadataEntity { UserMetadataEntity(name: id, hub: realtime.hub) }

    /// A handle for the metadata of the channel `id`.
    public func channelMetadata(_ id: String) -> ChannelMetadataEntity {
        ChannelMetadataEntity(name: id, hub: realtime.hub)
    }

    /// One subscription set over several entities, all with the same options.
    ///
    /// ```swift
    /// let set = pubnub.subscription(entities: [pubnub.channel("a"), pubnub.channelGroup("g")])
    /// set.subscribe()
    /// ```
    public func subscription(
        entities: [any Subscribable], options: any SubscriptionOption = SubscriptionOptions()
    ) -> SubscriptionSet {
        SubscriptionSet(subscriptions: entities.map { $0.subscription(options: options) }, hub: realtime.hub)
    }
}
