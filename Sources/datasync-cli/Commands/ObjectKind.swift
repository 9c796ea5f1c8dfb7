/// The five kinds of DataSync object, each with `create`, `get`, `list`, `set`, `update` and
/// `remove` subcommands that mirror the parameters of the SDK's calls.
enum ObjectKind: String, CaseIterable, Sendable {
    case users, channels, memberships, entities, relationships

    var singular: String {
        switch self {
        case .users: return "user"
        case .channels: return "channel"
        case .memberships: return "membership"
        case .entities: return "entity"
        case .relationships: return "relationship"
        }
    }

    /// Entities of a class (users, channels, entities) rather than links (memberships, relationships).
    var isEntity: Bool { self == .users || self == .channels || self == .entities }

    /// Whether the class name is required (custom entities and relationships) or defaults to the
    /// built-in class.
    var needsClassName: Bool { self == .entities || self == .relationships }

    var summary: String {
        switch self {
        case .users: return "users: entities of the built-in User class or its subclasses"
        case .channels: return "channels: entities of the built-in Channel class or its subclasses"
        case .memberships: return "memberships: links of a user to a channel (the built-in Membership class)"
        case .entities: return "entities: instances of your own entity classes"
        case .relationships: return "relationships: links between two entities, of your own relationship classes"
        }
    }

    /// The wire name of the class-version field, as `get` prints it.
    var classVersionKey: String { isEntity ? "entityClassVersion" : "relationshipClassVersion" }
    var classNameKey: String { isEntity ? "entityClass" : "relationshipClass" }
}
