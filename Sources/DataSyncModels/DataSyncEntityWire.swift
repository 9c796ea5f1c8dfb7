package import Foundation
package import JSONCore

/// The wire form shared by users, channels and entities: they are all objects of an entity class
/// (`entityClass`, `entityClassVersion`, `entityClassLevel`) and differ only in the kind's name and
/// in whether the class may be omitted by the service.
package protocol DataSyncEntityWire: PubNubDataSyncObject, DataSyncWireConvertible {
    /// The class assumed when the service omits `entityClass`; `nil` makes the field required.
    static var defaultClassName: String? { get }

    var className: String { get }
    var classVersion: Int { get }
    var classLevel: PubNubDataSyncClassLevel? { get }

    init(
        id: String, className: String, classVersion: Int, classLevel: PubNubDataSyncClassLevel?, status: String?,
        payload: JSONValue?, createdAt: Date, updatedAt: Date, expiresAt: Date?, eTag: String)
}

extension DataSyncEntityWire {
    package static var wireKeys: DataSyncWireKeys { .entity }

    package init(wire reader: DataSyncWireReader) throws {
        let className =
            if let fallback = Self.defaultClassName {
                try reader.optionalString("entityClass") ?? fallback
            } else {
                try reader.string("entityClass")
            }
        self.init(
            id: try reader.string("id"), className: className,
            classVersion: try reader.int("entityClassVersion"), classLevel: try reader.classLevel("entityClassLevel"),
            status: try reader.optionalString("status"), payload: reader.payload(),
            createdAt: try reader.date("createdAt"), updatedAt: try reader.date("updatedAt"),
            expiresAt: try reader.optionalDate("expiresAt"), eTag: try reader.string("eTag"))
    }

    /// The same object read as another of the three entity-shaped types (an entity event's state
    /// narrowed to a user, say); no field is dropped, they all have the same ones.
    package init(sameObjectAs other: some DataSyncEntityWire) {
        self.init(
            id: other.id, className: other.className, classVersion: other.classVersion, classLevel: other.classLevel,
            status: other.status, payload: other.payload, createdAt: other.createdAt, updatedAt: other.updatedAt,
            expiresAt: other.expiresAt, eTag: other.eTag)
    }

    package var wireFields: [String: JSONValue] {
        var fields = commonWireFields
        fields["entityClass"] = .string(className)
        fields["entityClassVersion"] = .int(Int64(classVersion))
        if let classLevel { fields["entityClassLevel"] = .string(classLevel.rawValue) }
        return fields
    }
}
