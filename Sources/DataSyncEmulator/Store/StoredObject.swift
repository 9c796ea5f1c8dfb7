import JSONCore

/// The five kinds of DataSync object (the `type` of a change event).
struct ObjectKind: RawRepresentable, Hashable, Sendable {
    let rawValue: String
    init(rawValue: String) { self.rawValue = rawValue }

    static let user = ObjectKind(rawValue: "user")
    static let channel = ObjectKind(rawValue: "channel")
    static let entity = ObjectKind(rawValue: "entity")
    static let membership = ObjectKind(rawValue: "membership")
    static let relationship = ObjectKind(rawValue: "relationship")

    /// Entities (users, channels, custom entities) share one id space, relationships (memberships
    /// and custom relationships) another.
    var space: ClassKind { self == .membership || self == .relationship ? .relationship : .entity }
}

/// One stored object, in the form the store keeps it (times as microseconds since the epoch).
struct StoredObject: Sendable {
    var id: String
    var kind: ObjectKind
    var classKey: ClassKey
    var classVersion: Int
    var status: String?
    /// Always a JSON object when present.
    var payload: JSONValue?
    var createdAt: Int64
    var updatedAt: Int64
    var expiresAt: Int64
    var eTag: String
    /// The change-feed sequence number of the last write to this object.
    var revision: UInt64
    /// `channelId` of a membership or `entityAId` of a relationship.
    var sideA: String?
    /// `userId` of a membership or `entityBId` of a relationship.
    var sideB: String?

    /// The object as the REST API returns it in `data`.
    var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id),
            "createdAt": .string(Timestamp.string(micros: createdAt)),
            "updatedAt": .string(Timestamp.string(micros: updatedAt)),
            "eTag": .string(eTag),
            "expiresAt": .string(Timestamp.wholeSecondString(micros: expiresAt)),
        ]
        if let status { object["status"] = .string(status) }
        if let payload { object["payload"] = payload }
        switch kind {
        case .membership:
            object["relationshipClass"] = .string(classKey.name)
            object["relationshipClassVersion"] = .int(Int64(classVersion))
            object["channelId"] = sideA.map(JSONValue.string) ?? .null
            object["userId"] = sideB.map(JSONValue.string) ?? .null
        case .relationship:
            object["relationshipClass"] = .string(classKey.name)
            object["relationshipClassVersion"] = .int(Int64(classVersion))
            object["entityAId"] = sideA.map(JSONValue.string) ?? .null
            object["entityBId"] = sideB.map(JSONValue.string) ?? .null
        default:
            object["entityClass"] = .string(classKey.name)
            object["entityClassVersion"] = .int(Int64(classVersion))
            object["entityClassLevel"] = .string(classKey.level.rawValue)
        }
        return .object(object)
    }

    /// The name of the class-version field in the REST shape.
    var versionField: String { kind.space == .entity ? "entityClassVersion" : "relationshipClassVersion" }
}
