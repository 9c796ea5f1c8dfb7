public import Foundation
public import JSONCore

/// One committed change to a keyset, as the emulator's ordered change feed delivers it.
///
/// Sequence numbers start at 1, increase by one per committed change across all keysets and
/// never repeat within one state (they continue after a restart from a state file). Every write
/// the REST API answers with success produces exactly one event; a remove also produces one
/// delete event per membership or relationship it cascaded to, and an expiry one per object.
public struct ChangeEvent: Sendable, Hashable {
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
    }

    /// Position in the feed.
    public var sequence: UInt64
    /// The keyset the object lives in.
    public var subscribeKey: String
    /// Create, update or delete.
    public var action: Action
    /// Request, cascade or expiry.
    public var cause: Cause
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
    /// When the change was committed, on the emulator's clock.
    public var time: Date
}
