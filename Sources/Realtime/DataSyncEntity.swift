public import DataSyncModels
public import PubNubCore

/// How DataSync names the channels its events are published on: an object's own
/// id carries the base projection, `__<projection>__<id>` a named one.
package enum DataSyncChannelName {
    /// The marker that starts and ends a projection name in a channel name.
    package static let marker = "__"

    /// The channel carrying `projection` of the object `id`. `nil`, `default` and `__default__`
    /// name the base projection (the bare id).
    ///
    /// - Throws: `PubNubError` `.missingRequiredParameter` for an empty id or projection,
    ///   `.invalidArguments` for a projection that does not start with a letter or a digit (such
    ///   as `__admin__`).
    package static func channel(id: String, projection: String?) throws(PubNubError) -> String {
        guard !id.isEmpty else { throw PubNubError.missingRequiredParameter("id") }
        guard let projection else { return id }
        guard !projection.isEmpty else { throw PubNubError.missingRequiredParameter("projection") }
        if projection == PubNubDataSyncEvent.defaultProjection || projection == "default" { return id }
        guard let first = projection.unicodeScalars.first, first.properties.isAlphabetic || ("0"..."9").contains(first)
        else {
            throw PubNubError(
                reason: .invalidArguments,
                message:
                    "projection \"\(projection)\" must start with a letter or a digit; pass the bare name "
                    + "(\"admin\", not \"__admin__\"), or \"__default__\" for the base projection")
        }
        return marker + projection + marker + id
    }

    /// The projection a channel carries: `P` for `__P__<id>` (with a non-empty id), `nil` for a
    /// plain id (the base projection).
    package static func projection(ofChannel channel: String) -> String? {
        let bytes = Array(channel.utf8)
        let underscore = UInt8(ascii: "_")
        guard bytes.count > 4, bytes[0] == underscore, bytes[1] == underscore else { return nil }
        var index = 3
        while index + 1 < bytes.count {
            if bytes[index] == underscore, bytes[index + 1] == underscore {
                // The name ends at the first `__` after it; an id must follow.
                guard index + 2 < bytes.count else { return nil }
                return String(decoding: bytes[2..<index], as: UTF8.self)
            }
            index += 1
        }
        return nil
    }
}

/// A local handle for the DataSync events of one user, channel or entity: they are published on
/// the channel named after its id, and each named projection on `__<projection>__<id>`.
///
/// Memberships and relationships have no channel of their own: their events come on the channels
/// of both objects they link, so subscribe to a user to see its memberships come and go.
///
/// ```swift
/// let alice = pubnub.dataSyncEntity("alice")
/// let base = alice.subscription()
/// let admin = try alice.subscription(projection: "admin")
/// base.onDataSync = { print($0.change, $0.objectId ?? "?") }
/// base.subscribe()
/// ```
public struct DataSyncEntity: Subscribable {
    /// The object's id, which is also the name of its base channel.
    public let name: String
    let hub: RealtimeHub

    /// The object's id.
    public var id: String { name }

    /// A subscription to the base projection (`__default__`): the channel named after the id.
    public func subscription(options: any SubscriptionOption = SubscriptionOptions()) -> Subscription {
        Subscription(channels: [name], groups: [], options: options.options, hub: hub)
    }

    /// A subscription to a named projection, on `__<projection>__<id>`; `__default__` and
    /// `default` give the base channel.
    ///
    /// - Parameters:
    ///   - projection: the projection's name as the class declares it (`admin`, not `__admin__`).
    ///   - options: the subscription's options.
    /// - Throws: `PubNubError` `.missingRequiredParameter` for an empty id or projection,
    ///   `.invalidArguments` for a projection that does not start with a letter or a digit.
    public func subscription(
        projection: String, options: any SubscriptionOption = SubscriptionOptions()
    ) throws(PubNubError) -> Subscription {
        let channel = try DataSyncChannelName.channel(id: name, projection: projection)
        return Subscription(channels: [channel], groups: [], options: options.options, hub: hub)
    }

    /// The channel a projection's events come on, without subscribing (for grants and logs).
    ///
    /// - Throws: the errors of ``subscription(projection:options:)``.
    public func channelName(projection: String = PubNubDataSyncEvent.defaultProjection) throws(PubNubError)
        -> String
    {
        try Self.channelName(id: name, projection: projection)
    }

    /// The channel on which the events of `projection` of the user, channel or entity `id` come,
    /// without a client: the bare id for the base projection (`__default__` or `default`),
    /// `__<projection>__<id>` for a named one. Build on it to route events into a cache of your
    /// own, or to name the channels in a grant.
    ///
    /// ```swift
    /// let channel = try DataSyncEntity.channelName(id: "alice", projection: "admin")  // "__admin__alice"
    /// ```
    ///
    /// - Throws: `PubNubError` `.missingRequiredParameter` for an empty id or projection,
    ///   `.invalidArguments` for a projection that does not start with a letter or a digit (such
    ///   as `__admin__`: pass the bare name).
    public static func channelName(
        id: String, projection: String = PubNubDataSyncEvent.defaultProjection
    ) throws(PubNubError) -> String {
        try DataSyncChannelName.channel(id: id, projection: projection)
    }
}

extension PubNub {
    /// A handle for the DataSync events of the user, channel or entity `id`.
    ///
    /// ```swift
    /// let subscription = pubnub.dataSyncEntity("course-swift-basics").subscription()
    /// for await event in subscription.dataSyncEvents() { print(event.change) }
    /// ```
    public func dataSyncEntity(_ id: String) -> DataSyncEntity { DataSyncEntity(name: id, hub: realtime.hub) }
}
