public import Foundation
public import JSONCore

/// A DataSync relationship: a link of a class you registered between two entities (A and B).
///
/// Decodes from and encodes to the service's wire form (`relationshipClass`,
/// `relationshipClassVersion`, `entityAId`, `entityBId`, ISO 8601 timestamps).
public struct PubNubDataSyncRelationship: PubNubDataSyncObject {
    /// The object's id.
    public var id: String
    /// The relationship class.
    public var className: String
    /// The version of the class schema the object follows.
    public var classVersion: Int
    /// The id of the entity on the A side.
    public var entityAId: String
    /// The id of the entity on the B side.
    public var entityBId: String
    /// The application-defined status string.
    public var status: String?
    /// The application-defined JSON payload.
    public var payload: JSONValue?
    /// When the object was created.
    public var createdAt: Date
    /// When the object was last written.
    public var updatedAt: Date
    /// When the service will expire the object, when it reports one.
    public var expiresAt: Date?
    /// The opaque version tag to send as `ifMatchesEtag`.
    public var eTag: String

    /// Creates a value, for example to stand in for a service answer in your tests.
    public init(
        id: String, className: String, classVersion: Int, entityAId: String, entityBId: String, status: String? = nil,
        payload: JSONValue? = nil, createdAt: Date, updatedAt: Date, expiresAt: Date? = nil, eTag: String
    ) {
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

    /// Decodes the wire form.
    public init(from decoder: any Decoder) throws {
        try self.init(decodingWireFrom: decoder)
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        try encodeWire(to: encoder)
    }
}

extension PubNubDataSyncRelationship: DataSyncWireConvertible {
    package static var wireKind: String { "relationship" }
    package static var wireKeys: DataSyncWireKeys { .relationship }

    package init(wire reader: DataSyncWireReader) throws {
        self.init(
            id: try reader.string("id"), className: try reader.string("relationshipClass"),
            classVersion: try reader.int("relationshipClassVersion"), entityAId: try reader.string("entityAId"),
            entityBId: try reader.string("entityBId"), status: try reader.optionalString("status"),
            payload: reader.payload(), createdAt: try reader.date("createdAt"), updatedAt: try reader.date("updatedAt"),
            expiresAt: try reader.optionalDate("expiresAt"), eTag: try reader.string("eTag"))
    }

    package var wireFields: [String: JSONValue] {
        var fields = commonWireFields
        fields["relationshipClass"] = .string(className)
        fields["relationshipClassVersion"] = .int(Int64(classVersion))
        fields["entityAId"] = .string(entityAId)
        fields["entityBId"] = .string(entityBId)
        return fields
    }
}
