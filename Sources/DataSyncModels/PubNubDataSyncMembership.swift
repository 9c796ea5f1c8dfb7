public import Foundation
public import JSONCore

/// A DataSync membership: a user belonging to a channel, of the built-in `Membership` class.
///
/// Decodes from and encodes to the service's wire form (`relationshipClass`,
/// `relationshipClassVersion`, `channelId`, `userId`, ISO 8601 timestamps).
public struct PubNubDataSyncMembership: PubNubDataSyncObject {
    /// The object's id.
    public var id: String
    /// The class: always `Membership` (the service assigns it). Defaults to `Membership` when omitted.
    public var className: String
    /// The version of the class schema the object follows.
    public var classVersion: Int
    /// The channel the user belongs to.
    public var channelId: String
    /// The user who belongs to the channel.
    public var userId: String
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
        id: String, className: String = "Membership", classVersion: Int, channelId: String, userId: String,
        status: String? = nil,
        payload: JSONValue? = nil, createdAt: Date, updatedAt: Date, expiresAt: Date? = nil, eTag: String
    ) {
        self.id = id
        self.className = className
        self.classVersion = classVersion
        self.channelId = channelId
        self.userId = userId
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

extension PubNubDataSyncMembership: DataSyncWireConvertible {
    package static var wireKind: String { "membership" }
    package static var wireKeys: DataSyncWireKeys { .membership }

    package init(wire reader: DataSyncWireReader) throws {
        // Early services shaped memberships like relationships (A side = channel, B side = user).
        let channelId = try reader.optionalString("channelId") ?? reader.optionalString("entityAId")
        let userId = try reader.optionalString("userId") ?? reader.optionalString("entityBId")
        self.init(
            id: try reader.string("id"), className: try reader.optionalString("relationshipClass") ?? "Membership",
            classVersion: try reader.int("relationshipClassVersion"),
            channelId: try channelId ?? reader.string("channelId"),
            userId: try userId ?? reader.string("userId"), status: try reader.optionalString("status"),
            payload: reader.payload(), createdAt: try reader.date("createdAt"), updatedAt: try reader.date("updatedAt"),
            expiresAt: try reader.optionalDate("expiresAt"), eTag: try reader.string("eTag"))
    }

    package var wireFields: [String: JSONValue] {
        var fields = commonWireFields
        fields["relationshipClass"] = .string(className)
        fields["relationshipClassVersion"] = .int(Int64(classVersion))
        fields["channelId"] = .string(channelId)
        fields["userId"] = .string(userId)
        return fields
    }
}
