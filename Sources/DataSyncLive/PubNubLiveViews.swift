import DataSync
public import DataSyncModels
public import PubNubCore
import Realtime

extension PubNub {
    /// Live views of this client's DataSync objects: one object by id, the memberships of a channel
    /// or a user, the relationships of an entity, each kept current through the subscribe loop.
    ///
    /// Cheap to call: a value over the client's DataSync API and subscribe loop.
    ///
    /// ```swift
    /// let members = try pubnub.liveViews.memberships(ofChannel: "general")
    /// for try await snapshot in members { render(snapshot.values, stale: !snapshot.isCurrent) }
    /// ```
    public var liveViews: PubNubLiveViews { PubNubLiveViews(context: LiveViewContext(self)) }
}

/// Makes live views (see ``PubNubLiveView``), reached as `pubnub.liveViews`.
///
/// Each kind of view is the one the DataSync routing rules allow: a view whose every change is
/// published on a single channel. An object's own changes come on its id (or a projection
/// channel); a membership's on both its channel's and its user's id; a relationship's on both
/// sides' ids. So each view subscribes to exactly one channel.
///
/// The factories only check their arguments; nothing is subscribed or read until a view is
/// iterated (or observed), and each iteration is a run of its own.
public struct PubNubLiveViews: Sendable {
    private let context: LiveViewContext

    package init(context: LiveViewContext) {
        self.context = context
    }

    /// One user, by id, on its channel or on the channel of a named projection.
    ///
    /// A snapshot holds the user, or nothing while it does not exist (it may be created later).
    ///
    /// - Parameters:
    ///   - id: The user's id.
    ///   - projection: A projection of the user's class (`stats`, not `__stats__`); `nil`,
    ///     `default` or `__default__` for the base projection.
    ///   - options: Limits and recovery settings.
    /// - Throws: `PubNubError` `.missingRequiredParameter` for an empty id or projection,
    ///   `.invalidArguments` for a projection that does not start with a letter or a digit.
    public func user(
        _ id: String, projection: String? = nil, options: PubNubLiveViewOptions = PubNubLiveViewOptions()
    ) throws(PubNubError) -> PubNubLiveView<PubNubDataSyncUser> {
        let definition = try LiveViewDefinition<PubNubDataSyncUser>.object(
            id: id, kind: .user, kindName: "user", projection: projection,
            narrow: { state in
                guard case .user(let user) = state.object else { return nil }
                return user
            },
            get: { dataSync, id in try await dataSync.getUser(id: id) })
        return PubNubLiveView(definition: definition, context: context, options: options)
    }

    /// One channel object, by id, on its channel or on the channel of a named projection.
    ///
    /// - Parameters:
    ///   - id: The channel's id.
    ///   - projection: A projection of the channel's class; `nil` for the base projection.
    ///   - options: Limits and recovery settings.
    /// - Throws: as ``user(_:projection:options:)``.
    public func channel(
        _ id: String, projection: String? = nil, options: PubNubLiveViewOptions = PubNubLiveViewOptions()
    ) throws(PubNubError) -> PubNubLiveView<PubNubDataSyncChannel> {
        let definition = try LiveViewDefinition<PubNubDataSyncChannel>.object(
            id: id, kind: .channel, kindName: "channel", projection: projection,
            narrow: { state in
                guard case .channel(let channel) = state.object else { return nil }
                return channel
            },
            get: { dataSync, id in try await dataSync.getChannel(id: id) })
        return PubNubLiveView(definition: definition, context: context, options: options)
    }

    /// One entity of a class you registered, by id, on its channel or on the channel of a named
    /// projection.
    ///
    /// - Parameters:
    ///   - id: The entity's id.
    ///   - projection: A projection of the entity's class (`stats`); `nil` for the base projection.
    ///   - options: Limits and recovery settings.
    /// - Throws: as ``user(_:projection:options:)``.
    public func entity(
        _ id: String, projection: String? = nil, options: PubNubLiveViewOptions = PubNubLiveViewOptions()
    ) throws(PubNubError) -> PubNubLiveView<PubNubDataSyncEntity> {
        let definition = try LiveViewDefinition<PubNubDataSyncEntity>.object(
            id: id, kind: .custom, kindName: "entity", projection: projection,
            narrow: { state in
                guard case .entity(let entity) = state.object else { return nil }
                return entity
            },
            get: { dataSync, id in try await dataSync.getEntity(id: id) })
        return PubNubLiveView(definition: definition, context: context, options: options)
    }

    /// The memberships of a channel (who is in it), on the channel's id.
    ///
    /// Removing the channel, or a member user, removes their memberships too, as the service does.
    ///
    /// - Parameters:
    ///   - channelId: The channel's id.
    ///   - options: Limits and recovery settings.
    /// - Throws: `PubNubError` `.missingRequiredParameter` for an empty id.
    public func memberships(
        ofChannel channelId: String, options: PubNubLiveViewOptions = PubNubLiveViewOptions()
    ) throws(PubNubError) -> PubNubLiveView<PubNubDataSyncMembership> {
        PubNubLiveView(
            definition: try .memberships(of: channelId, channelSide: true), context: context, options: options)
    }

    /// The memberships of a user (the channels they are in), on the user's id.
    ///
    /// Removing the user, or a channel they are in, removes those memberships too.
    ///
    /// - Parameters:
    ///   - userId: The user's id.
    ///   - options: Limits and recovery settings.
    /// - Throws: `PubNubError` `.missingRequiredParameter` for an empty id.
    public func memberships(
        ofUser userId: String, options: PubNubLiveViewOptions = PubNubLiveViewOptions()
    ) throws(PubNubError) -> PubNubLiveView<PubNubDataSyncMembership> {
        PubNubLiveView(
            definition: try .memberships(of: userId, channelSide: false), context: context, options: options)
    }

    /// The relationships of one class that link an entity (a user, a channel or an entity of
    /// yours), on the side or sides asked for, on the entity's id or a projection channel of it.
    ///
    /// Removing the entity, or the object at the other end, removes those relationships too.
    ///
    /// - Parameters:
    ///   - entityId: The entity's id.
    ///   - className: The relationship class (the REST list needs one).
    ///   - side: Whether the entity is the A side, the B side, or either.
    ///   - projection: A projection of the relationship class; `nil` for the base projection.
    ///   - options: Limits and recovery settings.
    /// - Throws: `PubNubError` `.missingRequiredParameter` for an empty id, class or projection,
    ///   `.invalidArguments` for a malformed projection.
    public func relationships(
        of entityId: String, className: String, side: PubNubLiveRelationshipSide = .either,
        projection: String? = nil, options: PubNubLiveViewOptions = PubNubLiveViewOptions()
    ) throws(PubNubError) -> PubNubLiveView<PubNubDataSyncRelationship> {
        PubNubLiveView(
            definition: try .relationships(of: entityId, className: className, side: side, projection: projection),
            context: context, options: options)
    }
}
