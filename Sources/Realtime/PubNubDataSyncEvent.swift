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

/// The state of a created or updated user, channel or entity, as the event carried it.
///
/// The service sends the full object, but not every sender does (older services, and the stubs in
/// PubNub's own SDK tests, leave out timestamps, the eTag or the class): the event's own fields
/// are optional and hold exactly what arrived, never a stand-in. When everything a stored object
/// has is there, ``entity`` and ``object`` give it as the model types; otherwise they are `nil`,
/// ``missingFields`` names what was left out, and the fields that did arrive are still here.
///
/// ```swift
/// if let state = event.entity {
///     if case .user(let user)? = state.object {
///         print(user.id, user.payload ?? .null)
///     } else {
///         print(state.id, "changed; the event did not say", state.missingFields)
///     }
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
    /// The object's id.
    public var id: String
    /// The object's class, such as `User`, a subclass of it, or one of your classes, when the
    /// event named it (a `user` or `channel` event that names none is of `User` or `Channel`).
    public var className: String?
    /// The class version, when the event said.
    public var classVersion: Int?
    /// Where the class is registered, when the event said.
    public var classLevel: PubNubDataSyncClassLevel?
    /// The application-defined status, when sent.
    public var status: String?
    /// The application-defined payload, when sent.
    public var payload: JSONValue?
    /// When the object was created, when the event said.
    public var createdAt: Date?
    /// When the object was last written, when the event said.
    public var updatedAt: Date?
    /// When the service will expire the object, when the event said.
    public var expiresAt: Date?
    /// The object's version tag, when the event carried it.
    public var eTag: String?

    /// Creates an entity event from a complete object.
    public init(kind: PubNubDataSyncKind, entity: PubNubDataSyncEntity) {
        self.init(
            kind: kind, id: entity.id, className: entity.className, classVersion: entity.classVersion,
            classLevel: entity.classLevel, status: entity.status, payload: entity.payload,
            createdAt: entity.createdAt, updatedAt: entity.updatedAt, expiresAt: entity.expiresAt, eTag: entity.eTag)
    }

    /// Creates an entity event from the fields an event carried; leave out what it did not.
    public init(
        kind: PubNubDataSyncKind, id: String, className: String? = nil, classVersion: Int? = nil,
        classLevel: PubNubDataSyncClassLevel? = nil, status: String? = nil, payload: JSONValue? = nil,
        createdAt: Date? = nil, updatedAt: Date? = nil, expiresAt: Date? = nil, eTag: String? = nil
    ) {
        self.kind = kind
        self.id = id
        self.className = className
        self.classVersion = classVersion
        self.classLevel = classLevel
        self.status = status
        self.payload = payload
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.eTag = eTag
    }

    /// The fields a stored object always has that this event left out, by their names in the
    /// models (`className`, `classVersion`, `createdAt`, `updatedAt`, `eTag`); empty when the
    /// event carried the whole object.
    public var missingFields: [String] { missingModelFields }

    /// Whether the event carried the whole object, so ``entity`` and ``object`` are set.
    public var isComplete: Bool { missingFields.isEmpty }

    /// The whole current state in its general form; `nil` when the event left out a field the
    /// model requires (see ``missingFields``).
    public var entity: PubNubDataSyncEntity? {
        guard let className, let classVersion, let createdAt, let updatedAt, let eTag else { return nil }
        return PubNubDataSyncEntity(
            id: id, className: className, classVersion: classVersion, classLevel: classLevel, status: status,
            payload: payload, createdAt: createdAt, updatedAt: updatedAt, expiresAt: expiresAt, eTag: eTag)
    }

    /// The state as a `PubNubDataSyncUser`, `PubNubDataSyncChannel` or `PubNubDataSyncEntity`,
    /// by ``kind``; `nil` when the event left out a field the model requires.
    public var object: Object? {
        guard let value = entity else { return nil }
        switch kind {
        case .user:
            return .user(PubNubDataSyncUser(sameObjectAs: value))
        case .channel:
            return .channel(PubNubDataSyncChannel(sameObjectAs: value))
        default:
            return .entity(value)
        }
    }
}

/// The state of a created or updated membership or relationship, as the event carried it.
///
/// One container serves both: for a membership ``entityAId`` is the channel id and ``entityBId``
/// the user id (the service sends them as `channelId` and `userId`; ``channelId`` and ``userId``
/// give them back), and ``object`` narrows a complete state to `PubNubDataSyncMembership`. As for
/// ``PubNubDataSyncEntityEvent``, the fields hold exactly what arrived: ``relationship`` and
/// ``object`` are `nil` when the event left out a field the models require (``missingFields``).
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
    /// The object's id.
    public var id: String
    /// The object's class, such as `Membership` or one of your relationship classes, when the
    /// event named it (a `membership` event that names none is of `Membership`).
    public var className: String?
    /// The class version, when the event said.
    public var classVersion: Int?
    /// The A side: the channel id of a membership.
    public var entityAId: String
    /// The B side: the user id of a membership.
    public var entityBId: String
    /// The application-defined status, when sent.
    public var status: String?
    /// The application-defined payload, when sent.
    public var payload: JSONValue?
    /// When the link was created, when the event said.
    public var createdAt: Date?
    /// When the link was last written, when the event said.
    public var updatedAt: Date?
    /// When the service will expire the link, when the event said.
    public var expiresAt: Date?
    /// The link's version tag, when the event carried it.
    public var eTag: String?

    /// Creates a relationship event from a complete object.
    public init(kind: PubNubDataSyncKind, relationship: PubNubDataSyncRelationship) {
        self.init(
            kind: kind, id: relationship.id, entityAId: relationship.entityAId, entityBId: relationship.entityBId,
            className: relationship.className, classVersion: relationship.classVersion, status: relationship.status,
            payload: relationship.payload, createdAt: relationship.createdAt, updatedAt: relationship.updatedAt,
            expiresAt: relationship.expiresAt, eTag: relationship.eTag)
    }

    /// Creates a relationship event from the fields an event carried; leave out what it did not.
    public init(
        kind: PubNubDataSyncKind, id: String, entityAId: String, entityBId: String, className: String? = nil,
        classVersion: Int? = nil, status: String? = nil, payload: JSONValue? = nil, createdAt: Date? = nil,
        updatedAt: Date? = nil, expiresAt: Date? = nil, eTag: String? = nil
    ) {
        self.kind = kind
        self.id = id
        self.className = className
        self.classVersion = classVersion
        self.entityAId = entityAId
        self.entityBId = entityBId
        self.status = status
        self.payload = payload
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.eTag = eTag
    }

    /// A membership's channel id (its A side); `nil` for other kinds.
    public var channelId: String? { kind == .membership ? entityAId : nil }
    /// A membership's user id (its B side); `nil` for other kinds.
    public var userId: String? { kind == .membership ? entityBId : nil }

    /// The fields a stored link always has that this event left out (`className`,
    /// `classVersion`, `createdAt`, `updatedAt`, `eTag`); empty when it carried the whole link.
    public var missingFields: [String] { missingModelFields }

    /// Whether the event carried the whole link, so ``relationship`` and ``object`` are set.
    public var isComplete: Bool { missingFields.isEmpty }

    /// The whole current state in its general form; `nil` when the event left out a field the
    /// model requires (see ``missingFields``).
    public var relationship: PubNubDataSyncRelationship? {
        guard let className, let classVersion, let createdAt, let updatedAt, let eTag else { return nil }
        return PubNubDataSyncRelationship(
            id: id, className: className, classVersion: classVersion, entityAId: entityAId, entityBId: entityBId,
            status: status, payload: payload, createdAt: createdAt, updatedAt: updatedAt, expiresAt: expiresAt,
            eTag: eTag)
    }

    /// The state as a `PubNubDataSyncMembership` or `PubNubDataSyncRelationship`, by ``kind``;
    /// `nil` when the event left out a field the models require.
    public var object: Object? {
        guard let value = relationship else { return nil }
        guard kind == .membership else { return .relationship(value) }
        return .membership(
            PubNubDataSyncMembership(
                id: value.id, className: value.className, classVersion: value.classVersion,
                channelId: value.entityAId, userId: value.entityBId, status: value.status, payload: value.payload,
                createdAt: value.createdAt, updatedAt: value.updatedAt, expiresAt: value.expiresAt,
                eTag: value.eTag))
    }
}

/// The fields the entity and relationship event containers share, so the decoder reads them and
/// the containers check them in one place.
protocol DataSyncEventState {
    var className: String? { get set }
    var classVersion: Int? { get set }
    var status: String? { get set }
    var payload: JSONValue? { get set }
    var createdAt: Date? { get set }
    var updatedAt: Date? { get set }
    var expiresAt: Date? { get set }
    var eTag: String? { get set }
}

extension DataSyncEventState {
    /// The names of the fields every stored model has that this event left out.
    var missingModelFields: [String] {
        var missing: [String] = []
        if className == nil { missing.append("className") }
        if classVersion == nil { missing.append("classVersion") }
        if createdAt == nil { missing.append("createdAt") }
        if updatedAt == nil { missing.append("updatedAt") }
        if eTag == nil { missing.append("eTag") }
        return missing
    }
}

extension PubNubDataSyncEntityEvent: DataSyncEventState {}
extension PubNubDataSyncRelationshipEvent: DataSyncEventState {}

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
    /// When it was deleted, when the event said (the service always does; some older senders
    /// did not).
    public var deletedAt: Date?
    /// For a membership or relationship, which two objects it linked (when this client knows);
    /// `nil` for users, channels and entities.
    public var endpoints: PubNubDataSyncEndpoints?

    /// Creates a removed object.
    public init(
        id: String, className: String? = nil, classLevel: PubNubDataSyncClassLevel? = nil, classVersion: Int? = nil,
        deletedAt: Date?, endpoints: PubNubDataSyncEndpoints? = nil
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
    ///
    /// A create or update that left out fields (``PubNubDataSyncEntityEvent/missingFields``) is
    /// still delivered as the change it names: its container has what arrived, and its `object`
    /// is `nil`.
    public var objectId: String? { entity?.id ?? relationship?.id ?? removed?.id }

    /// The projection whose view this event carries, read from ``channel``: ``defaultProjection``
    /// on an object's own id, `P` on `__P__<id>`.
    public var projection: String {
        DataSyncChannelName.projection(ofChannel: channel) ?? Self.defaultProjection
    }
}
