public import DataSyncModels
public import Foundation
public import JSONCore

/// The kind of object a DataSync event is about. An open set: a kind this SDK does not know
/// decodes too, holding the service's `type`.
///
/// The state of a `user`, `channel` or `custom` entity arrives in ``PubNubDataSyncEvent/entity``;
/// the state of a `membership` or `custom` relationship in ``PubNubDataSyncEvent/relationship``.
/// Dispatch on the kind, not on which container is set: each container serves several kinds.
public struct PubNubDataSyncKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The kind's name.
    public let rawValue: String
    /// Wraps a name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The kind's name.
    public var description: String { rawValue }

    /// A user: the built-in `User` class or one of its subclasses.
    public static let user = PubNubDataSyncKind(rawValue: "user")
    /// A channel: the built-in `Channel` class or one of its subclasses.
    public static let channel = PubNubDataSyncKind(rawValue: "channel")
    /// A membership: a user in a channel.
    public static let membership = PubNubDataSyncKind(rawValue: "membership")
    /// An entity or relationship of a class you registered.
    public static let custom = PubNubDataSyncKind(rawValue: "custom")
}

/// What changed, as a DataSync event names it.
public enum PubNubDataSyncChange: Hashable, Sendable {
    /// A user, channel or entity was created; its state is in ``PubNubDataSyncEvent/entity``.
    case entityCreated
    /// A user, channel or entity was written (PUT or PATCH); its full new state is in
    /// ``PubNubDataSyncEvent/entity``.
    case entityUpdated
    /// A user, channel or entity was deleted; ``PubNubDataSyncEvent/removed`` says which.
    case entityDeleted
    /// A membership or relationship was created; its state is in ``PubNubDataSyncEvent/relationship``.
    case relationshipCreated
    /// A membership or relationship was written; its full new state is in
    /// ``PubNubDataSyncEvent/relationship``.
    case relationshipUpdated
    /// A membership or relationship was deleted; ``PubNubDataSyncEvent/removed`` says which.
    case relationshipDeleted
    /// A change this SDK does not recognize, or one whose data could not be read, with what the
    /// service sent.
    case unknown(PubNubDataSyncUnknownChange)

    /// Whether this is one of the two delete changes.
    public var isDelete: Bool { self == .entityDeleted || self == .relationshipDeleted }
}

/// A DataSync change the SDK could not turn into a typed event, kept whole so nothing is lost.
public struct PubNubDataSyncUnknownChange: Hashable, Sendable {
    /// The event's `metadata` object as sent (`event`, `source`, `type`, `className`, …).
    public var metadata: JSONValue
    /// The event's `data` as sent (`.null` when absent).
    public var payload: JSONValue
    /// Why it is unknown, for logs: an unrecognized `event` or `type`, or the field that could not be read.
    public var reason: String

    /// Creates an unknown change.
    public init(metadata: JSONValue, payload: JSONValue, reason: String) {
        self.metadata = metadata
        self.payload = payload
        self.reason = reason
    }
}

/// The state of a created or updated user, channel or entity.
///
/// ```swift
/// if let state = event.entity, case .user(let user) = state.object {
///     print(user.id, user.payload ?? .null)
/// }
/// ```
public struct PubNubDataSyncEntityEvent: Hashable, Sendable {
    /// The state narrowed to the kind's own type.
    public enum Object: Hashable, Sendable {
        /// A user (kind `user`).
        case user(PubNubDataSyncUser)
        /// A channel (kind `channel`).
        case channel(PubNubDataSyncChannel)
        /// An entity of one of your classes (kind `custom`, or a kind this SDK does not know).
        case entity(PubNubDataSyncEntity)
    }

    /// `user`, `channel` or `custom`.
    public var kind: PubNubDataSyncKind
    /// The full current state in its general form (class fields from the event's metadata).
    public var entity: PubNubDataSyncEntity

    /// Creates an entity event.
    public init(kind: PubNubDataSyncKind, entity: PubNubDataSyncEntity) {
        self.kind = kind
        self.entity = entity
    }

    /// The object's id.
    public var id: String { entity.id }
    /// The object's class, such as `User`, a subclass of it, or one of your classes.
    public var className: String { entity.className }

    /// The state as a `PubNubDataSyncUser`, `PubNubDataSyncChannel` or `PubNubDataSyncEntity`,
    /// by ``kind``.
    public var object: Object {
        let value = entity
        switch kind {
        case .user:
            return .user(
                PubNubDataSyncUser(
                    id: value.id, className: value.className, classVersion: value.classVersion,
                    classLevel: value.classLevel, status: value.status, payload: value.payload,
                    createdAt: value.createdAt, updatedAt: value.updatedAt, expiresAt: value.expiresAt,
                    eTag: value.eTag))
        case .channel:
            return .channel(
                PubNubDataSyncChannel(
                    id: value.id, className: value.className, classVersion: value.classVersion,
                    classLevel: value.classLevel, status: value.status, payload: value.payload,
                    createdAt: value.createdAt, updatedAt: value.updatedAt, expiresAt: value.expiresAt,
                    eTag: value.eTag))
        default:
            return .entity(value)
        }
    }
}

/// The state of a created or updated membership or relationship.
///
/// One `PubNubDataSyncRelationship` serves both: for a membership ``entityAId`` is the channel id
/// and ``entityBId`` the user id, and ``object`` gives them back as `channelId` and `userId`.
public struct PubNubDataSyncRelationshipEvent: Hashable, Sendable {
    /// The state narrowed to the kind's own type.
    public enum Object: Hashable, Sendable {
        /// A membership (kind `membership`).
        case membership(PubNubDataSyncMembership)
        /// A relationship of one of your classes (kind `custom`, or a kind this SDK does not know).
        case relationship(PubNubDataSyncRelationship)
    }

    /// `membership` or `custom`.
    public var kind: PubNubDataSyncKind
    /// The full current state in its general form.
    public var relationship: PubNubDataSyncRelationship

    /// Creates a relationship event.
    public init(kind: PubNubDataSyncKind, relationship: PubNubDataSyncRelationship) {
        self.kind = kind
        self.relationship = relationship
    }

    /// The object's id.
    public var id: String { relationship.id }
    /// The object's class, such as `Membership` or one of your relationship classes.
    public var className: String { relationship.className }
    /// The A side: the channel id of a membership.
    public var entityAId: String { relationship.entityAId }
    /// The B side: the user id of a membership.
    public var entityBId: String { relationship.entityBId }

    /// The state as a `PubNubDataSyncMembership` or `PubNubDataSyncRelationship`, by ``kind``.
    public var object: Object {
        let value = relationship
        guard kind == .membership else { return .relationship(value) }
        return .membership(
            PubNubDataSyncMembership(
                id: value.id, className: value.className, classVersion: value.classVersion,
                channelId: value.entityAId, userId: value.entityBId, status: value.status, payload: value.payload,
                createdAt: value.createdAt, updatedAt: value.updatedAt, expiresAt: value.expiresAt,
                eTag: value.eTag))
    }
}

/// Which two objects a deleted membership or relationship linked.
///
/// Delete events carry only an id. The client remembers the endpoints of the memberships and
/// relationships it has seen in create and update events (a bounded memory, see
/// Documentation/DataSyncRealtime.md), so it can say which two objects a deleted link joined.
public enum PubNubDataSyncEndpoints: Hashable, Sendable {
    /// The link's two sides, from an earlier event: for a membership A is the channel and B the user.
    case known(entityAId: String, entityBId: String)
    /// This client has not seen the link (or forgot it); read your own copy to find its sides.
    case unknown
}

/// What a delete event says about the object it removed.
public struct PubNubDataSyncRemovedObject: Hashable, Sendable {
    /// The removed object's id.
    public var id: String
    /// Its class, when the event named it.
    public var className: String?
    /// Where its class is registered, when the event said.
    public var classLevel: PubNubDataSyncClassLevel?
    /// Its class version, when the event said.
    public var classVersion: Int?
    /// When it was deleted.
    public var deletedAt: Date
    /// For a membership or relationship, which two objects it linked (when this client knows);
    /// `nil` for users, channels and entities.
    public var endpoints: PubNubDataSyncEndpoints?

    /// Creates a removed object.
    public init(
        id: String, className: String? = nil, classLevel: PubNubDataSyncClassLevel? = nil, classVersion: Int? = nil,
        deletedAt: Date, endpoints: PubNubDataSyncEndpoints? = nil
    ) {
        self.id = id
        self.className = className
        self.classLevel = classLevel
        self.classVersion = classVersion
        self.deletedAt = deletedAt
        self.endpoints = endpoints
    }

    /// The A side of a removed link (a membership's channel id), when known.
    public var entityAId: String? {
        if case .known(let side, _) = endpoints { return side }
        return nil
    }

    /// The B side of a removed link (a membership's user id), when known.
    public var entityBId: String? {
        if case .known(_, let side) = endpoints { return side }
        return nil
    }
}

/// A DataSync change received in real time: a user, channel, membership, entity or relationship
/// was created, updated or deleted.
///
/// ```swift
/// let alice = pubnub.dataSyncEntity("alice").subscription()
/// alice.onDataSync = { event in
///     switch event.change {
///     case .entityUpdated:
///         if case .user(let user)? = event.entity?.object { print("alice is now", user.payload ?? .null) }
///     case .relationshipCreated where event.kind == .membership:
///         print("joined", event.relationship?.entityAId ?? "?")
///     case .relationshipDeleted:
///         print("left", event.removed?.entityAId ?? "a channel this client has not seen")
///     default:
///         break
///     }
/// }
/// alice.subscribe()
/// ```
public struct PubNubDataSyncEvent: Hashable, Sendable {
    /// The projection the base channel (the object's bare id) carries.
    public static let defaultProjection = "__default__"

    /// What changed.
    public var change: PubNubDataSyncChange
    /// The kind of object that changed.
    public var kind: PubNubDataSyncKind
    /// The new state of a created or updated user, channel or entity.
    public var entity: PubNubDataSyncEntityEvent?
    /// The new state of a created or updated membership or relationship.
    public var relationship: PubNubDataSyncRelationshipEvent?
    /// What was deleted, for ``PubNubDataSyncChange/entityDeleted`` and ``PubNubDataSyncChange/relationshipDeleted``.
    public var removed: PubNubDataSyncRemovedObject?
    /// The object's class within its kind (a subclass of `User`, say), when the event named it.
    public var className: String?
    /// Where the class is registered, as the event said (or as a legacy composite class name implied).
    public var classLevel: PubNubDataSyncClassLevel?
    /// The class version, when the event said.
    public var classVersion: Int?
    /// The event format version (`version`), when sent.
    public var version: String?
    /// The channel the event came on: an object id, or a projection channel `__<projection>__<id>`.
    public var channel: String
    /// What this client subscribed to that delivered it (a group or pattern), or `nil` for the channel itself.
    public var subscription: String?
    /// When the event was published.
    public var timetoken: Timetoken

    /// Creates an event.
    public init(
        change: PubNubDataSyncChange, kind: PubNubDataSyncKind, entity: PubNubDataSyncEntityEvent? = nil,
        relationship: PubNubDataSyncRelationshipEvent? = nil, removed: PubNubDataSyncRemovedObject? = nil,
        className: String? = nil, classLevel: PubNubDataSyncClassLevel? = nil, classVersion: Int? = nil,
        version: String? = nil, channel: String, subscription: String? = nil, timetoken: Timetoken
    ) {
        self.change = change
        self.kind = kind
        self.entity = entity
        self.relationship = relationship
        self.removed = removed
        self.className = className
        self.classLevel = classLevel
        self.classVersion = classVersion
        self.version = version
        self.channel = channel
        self.subscription = subscription
        self.timetoken = timetoken
    }

    /// The id of the object that changed, whichever container holds it; `nil` for an unknown change.
    public var objectId: String? { entity?.id ?? relationship?.id ?? removed?.id }

    /// The projection whose view this event carries, read from ``channel``: ``defaultProjection``
    /// on an object's own id, `P` on `__P__<id>`.
    public var projection: String {
        DataSyncChannelName.projection(ofChannel: channel) ?? Self.defaultProjection
    }
}
