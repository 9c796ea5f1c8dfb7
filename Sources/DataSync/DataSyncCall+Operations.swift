import DataSyncModels
import JSONCore
import PubNubCore
import Transport

// The request bodies and queries of the five collections' operations, built here so that the
// `PubNubDataSync` facade only names its arguments: the parts every collection shares (an
// optional client-chosen id, status and payload, the paging and filter parameters) are written once.
extension DataSyncCall {
    /// `POST` for a new object: `fields` (its class and sides), then the client-chosen `id`
    /// (checked non-empty), `status` and `payload` when given.
    static func create(
        _ collection: DataSyncCollection, fields: [String: JSONValue], id: String?, status: String?,
        payload: (any JSONCodable)?
    ) throws -> DataSyncCall {
        var data = fields
        if let id {
            try requireNonEmpty(id, "id")
            data["id"] = .string(id)
        }
        try DataSyncFields.addStatusAndPayload(to: &data, status: status, payload: payload)
        return try .create(collection, data: data)
    }

    /// `POST` for a user, channel or entity.
    static func createEntity(
        _ collection: DataSyncCollection, className: String?, classVersion: Int,
        classLevel: PubNubDataSyncClassLevel?, id: String?, status: String?, payload: (any JSONCodable)?
    ) throws -> DataSyncCall {
        var fields: [String: JSONValue] = ["entityClassVersion": .int(Int64(classVersion))]
        if let className { fields["entityClass"] = .string(className) }
        if let classLevel { fields["entityClassLevel"] = .string(classLevel.rawValue) }
        return try create(collection, fields: fields, id: id, status: status, payload: payload)
    }

    /// `PUT` of an object's content: the class version under `versionKey` (`entityClassVersion`
    /// or `relationshipClassVersion`), status and payload; the class and id never change.
    static func setContent(
        _ collection: DataSyncCollection, id: String, versionKey: String, classVersion: Int, status: String?,
        payload: (any JSONCodable)?, ifMatch: String?
    ) throws -> DataSyncCall {
        var data: [String: JSONValue] = [versionKey: .int(Int64(classVersion))]
        try DataSyncFields.addStatusAndPayload(to: &data, status: status, payload: payload)
        return try .set(collection, id: id, data: data, ifMatch: ifMatch)
    }
}

extension DataSyncFields {
    /// The query items that narrow a user, channel or entity list to a class.
    static func entitySelection(
        className: String?, classVersion: Int?, classLevel: PubNubDataSyncClassLevel?
    ) -> [HTTPQueryItem] {
        var query: [HTTPQueryItem] = []
        if let className { query.append(HTTPQueryItem(name: "entity_class", value: className)) }
        if let classVersion { query.append(HTTPQueryItem(name: "entity_class_version", value: String(classVersion))) }
        if let classLevel { query.append(HTTPQueryItem(name: "entity_class_level", value: classLevel.rawValue)) }
        return query
    }
}

extension DataSyncEngine {
    /// `GET` of a list: the filters and sort keys are checked locally first, then `selection`
    /// (the collection's own narrowing items) is sent before the shared paging and filter items.
    func listCall(
        _ collection: DataSyncCollection, selection: [HTTPQueryItem], cursor: String?, limit: Int?,
        filterFast: String?, filter: String?, sort: [PubNubDataSyncSortField]
    ) throws -> DataSyncCall {
        try validate(filterFast: filterFast, filter: filter, sort: sort)
        let paging = DataSyncFields.listQuery(
            cursor: cursor, limit: limit, filterFast: filterFast, filter: filter, sort: sort)
        return .list(collection, query: selection + paging)
    }
}
