public import Foundation
public import JSONCore

/// One committed change to a keyset, as the emulator's ordered change feed delivers it.
///
/// Sequence numbers start at 1, increase by one per committed change across all keysets and
/// never repeat within one state (they continue after a restart from a state file). Every write
/// the REST API answers with success produces exactly one event; a remove also produces one
/// delete event per membership or relationship it cascaded to, and an expiry one per object.
///
/// Besides the object, an event carries what a real-time consumer needs to route and filter it
/// as the graph stood when the change committed (``recipients``, ``projections``), so nobody has
/// to read the engine later, when the graph may have changed.
public struct ChangeEvent: Sendable, Hashable {
    /// An object whose channels receive the change: its id channel and, for each named projection
    /// of its class, the projection channel `__<projection>__<id>`.
    public struct Recipient: Sendable, Hashable {
        /// The object's id (a user, channel or entity: relationships never have channels).
        public var id: String
        /// The named projections of the object's class (never `__default__`), in declaration order.
        public var projections: [String]

        /// Creates a recipient.
        public init(id: String, projections: [String] = []) {
            self.id = id
            self.projections = projections
        }
    }

    /// One projection of the changed object's class, as events apply it: the JSON Pointers
    /// (`/status`, `/payload/…`) whose values an event for this projection carries.
    public struct Projection: Sendable, Hashable {
        /// The name used for the base projection.
        public static let defaultName = "__default__"
        /// `__default__` or a named projection.
        public var name: String
        /// What the projection's event carries of `status` and `payload`.
        public var pointers: [String]

        /// Creates a projection.
        public init(name: String, pointers: [String]) {
            self.name = name
            self.pointers = pointers
        }
    }

    /// What happened.
    public struct Action: RawRepresentable, Sendable, Hashable {
        /// The wire name (`create`, `update`, `delete`, as in the real-time `metadata.event`).
        public let rawValue: String
        /// Creates an action from its wire name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// An object was created.
        public static let create = Action(rawValue: "create")
        /// An object was replaced (PUT) or patched (PATCH).
        public static let update = Action(rawValue: "update")
        /// An object was removed, cascaded away or expired.
        public static let delete = Action(rawValue: "delete")
    }

    /// Why the change happened.
    public struct Cause: RawRepresentable, Sendable, Hashable {
        /// The cause name.
        public let rawValue: String
        /// Creates a cause from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A request (or a seed) wrote the object.
        public static let request = Cause(rawValue: "request")
        /// The object was removed because an object it links was removed or expired.
        public static let cascade = Cause(rawValue: "cascade")
        /// The object reached its `expiresAt`.
        public static let expiry = Cause(rawValue: "expiry")
        /// Its keyset was reset or replaced through the admin API (`/_emulator/v1/…`,
        /// ``Emulator/resetKeyset(_:)``, ``Emulator/importState(_:)``); like an expiry it
        /// publishes no real-time event.
        public static let reset = Cause(rawValue: "reset")
    }

    /// Position in the feed.
    public var sequence: UInt64
    /// The keyset the object lives in.
    public var subscribeKey: String
    /// Create, update or delete.
    public var action: Action
    /// Request, cascade, expiry or reset.
    public var cause: Cause
    /// What started the write this change belongs to: ``Cause/request`` (a request or a seed),
    /// ``Cause/expiry`` or ``Cause/reset``; a cascade carries the cause of the removal that led
    /// to it.
    public var origin: Cause
    /// `user`, `channel`, `entity`, `membership` or `relationship` (the real-time `metadata.type`).
    public var objectType: String
    /// The object's class name.
    public var className: String
    /// The class level (`Global` or `SubKey`).
    public var classLevel: String
    /// The object's class version.
    public var classVersion: Int
    /// Whether the class has events enabled (the built-ins do; custom classes opt in).
    public var eventsEnabled: Bool
    /// The object id.
    public var id: String
    /// The object in its REST shape: after the change for create/update, as it was for delete
    /// (so a consumer can route a delete to the object's endpoints).
    public var object: JSONValue
    /// When the change was committed, on the emulator's clock (for a delete: its `deletedAt`).
    public var time: Date
    /// The objects whose channels receive the change, as the graph stood when it committed, in
    /// order and without repeats: a user, channel or entity itself, then (on update and delete)
    /// every object linked to it by a membership or relationship; a membership or relationship's
    /// two sides.
    public var recipients: [Recipient]
    /// The projections of the object's class at its version, `__default__` first; nil when the
    /// class declares no properties or no projections (then one unfiltered event is published).
    public var projections: [Projection]?
}
