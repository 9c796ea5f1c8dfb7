/// One of the five object collections of the REST API (`users`, `channels`, `memberships`,
/// `entities`, `relationships` under `/v1/datasync/subkeys/{sub}/`; the routes are listed in
/// `Documentation/Emulator.md`, "Routes") with the rules that differ between them.
struct ObjectCollection: Sendable {
    /// The path segment, e.g. `users`.
    let name: String
    /// The resource name in the vendor media type, e.g. `user`.
    let resource: String
    let space: ClassKind
    /// The kind every object of this collection has; nil for `entities`, where the kind follows
    /// the class family (a `User` subclass reached through `/entities` is still a user).
    let fixedKind: ObjectKind?
    /// The class family this collection is restricted to (`User`, `Channel`, `Membership`).
    let familyRoot: ClassKey?

    /// The vendor media type, e.g. `application/vnd.pubnub.objects.user+json;version=1` (built
    /// once here: every answer carries it).
    let mediaType: String
    /// `Content-Type: mediaType`, the header every answer of the collection has (one array for
    /// all of them).
    let contentTypeHeaders: [(name: String, value: String)]

    init(name: String, resource: String, space: ClassKind, fixedKind: ObjectKind?, familyRoot: ClassKey?) {
        self.name = name
        self.resource = resource
        self.space = space
        self.fixedKind = fixedKind
        self.familyRoot = familyRoot
        mediaType = "application/vnd.pubnub.objects.\(resource)+json;version=1"
        contentTypeHeaders = [(name: "Content-Type", value: mediaType)]
    }

    static let users = ObjectCollection(
        name: "users", resource: "user", space: .entity, fixedKind: .user, familyRoot: ClassDefinition.userKey)
    static let channels = ObjectCollection(
        name: "channels", resource: "channel", space: .entity, fixedKind: .channel,
        familyRoot: ClassDefinition.channelKey)
    static let entities = ObjectCollection(
        name: "entities", resource: "entity", space: .entity, fixedKind: nil, familyRoot: nil)
    static let memberships = ObjectCollection(
        name: "memberships", resource: "membership", space: .relationship, fixedKind: .membership,
        familyRoot: ClassDefinition.membershipKey)
    static let relationships = ObjectCollection(
        name: "relationships", resource: "relationship", space: .relationship, fixedKind: .relationship,
        familyRoot: nil)

    static let all: [ObjectCollection] = [.users, .channels, .entities, .memberships, .relationships]

    /// The collection whose path segment is `name`, or nil.
    static func named(_ name: String) -> ObjectCollection? {
        switch name {
        case "users": users
        case "channels": channels
        case "entities": entities
        case "memberships": memberships
        case "relationships": relationships
        default: nil
        }
    }

    /// Field names of the class and version in bodies and objects.
    var classField: String { space == .entity ? "entityClass" : "relationshipClass" }
    var versionField: String { space == .entity ? "entityClassVersion" : "relationshipClassVersion" }
    var levelField: String { space == .entity ? "entityClassLevel" : "relationshipClassLevel" }
    /// Body names of the linked ids of memberships (`channelId`, `userId`) and relationships.
    var sideFields: (a: String, b: String)? {
        switch name {
        case "memberships": return ("channelId", "userId")
        case "relationships": return ("entityAId", "entityBId")
        default: return nil
        }
    }

    /// Whether an object is addressable through this collection.
    func contains(_ object: StoredObject) -> Bool {
        if let fixedKind { return object.kind == fixedKind }
        return object.kind.space == space
    }

    /// "Entity not found: x" for entities, "Relationship 'x' not found" for relationships (the
    /// service's recorded messages).
    func notFound(_ id: String) -> APIError {
        space == .entity ? .notFound("Entity not found: \(id)") : .notFound("Relationship '\(id)' not found")
    }
}
