public import Foundation
public import JSONCore

/// A DataSync user: an object of the built-in `User` class or one of its subclasses.
///
/// Decodes from and encodes to the service's wire form (`entityClass`, `entityClassVersion`,
/// `entityClassLevel`, ISO 8601 timestamps), so it can be cached with any `Codable` coder.
public struct PubNubDataSyncUser: PubNubDataSyncObject {
    /// The object's id.
    public var id: String
    /// The class: `User` or a subclass such as `Employee`. Defaults to `User` when the service omits it.
    public var className: String
    /// The version of the class schema the object follows.
    public var classVersion: Int
    /// Where the class is registered (`Global` for built-in classes, `SubKey` for your own).
    public var classLevel: PubNubDataSyncClassLevel?
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
        id: String, className: String = "User", classVersion: Int, classLevel: PubNubDataSyncClassLevel? = nil,
        status: String? = nil, payload: JSONValue? = nil, createdAt: Date, updatedAt: Date, expiresAt: Date? = nil,
        eTag: String
    ) {
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

    /// Decodes the wire form.
    public init(from decoder: any Decoder) throws {
        try self.init(decodingWireFrom: decoder)
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        try encodeWire(to: encoder)
    }
}

extension PubNubDataSyncUser: DataSyncEntityWire {
    package static var wireKind: String { "user" }
    package static var defaultClassName: String? { "User" }
}
