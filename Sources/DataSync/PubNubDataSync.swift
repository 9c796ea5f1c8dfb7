import DataSyncModels
import JSONCore
import PubNubCore
import Transport

/// The DataSync API of a `PubNub` client, reached as `pubnub.dataSync`.
///
/// Every operation exists in two forms with the same name and parameters:
/// - `async throws` (primary): `let user = try await pubnub.dataSync.getUser(id: "u1")`;
/// - with a `completion` closure that receives a `Result`, run in the configuration's
///   `PubNub.CompletionContext` (by default directly on the concurrency thread that finished
///   the request; no main run loop is needed).
///
/// Errors are `PubNubError` values: local argument checks fail with `.missingRequiredParameter`
/// before anything is sent; service answers map to a reason that follows the HTTP status.
///
/// List operations return one page and a `PubNubDataSyncPage`; the sequences
/// (``users(className:classVersion:classLevel:pageSize:filterFast:filter:sort:custom:)-(_,_,_,_,String?,_,_,_)`` and
/// friends) fetch page after page lazily.
public struct PubNubDataSync: Sendable {
    package let engine: DataSyncEngine
}

// Calls shared by the three entity-shaped collections (users, channels, entities).
extension PubNubDataSync {
    func entityCreateCall(
        _ collection: DataSyncCollection, className: String?, classVersion: Int,
        classLevel: PubNubDataSyncClassLevel?, id: String?, status: String?, payload: (any JSONCodable)?
    ) throws -> DataSyncCall {
        var data: [String: JSONValue] = ["entityClassVersion": .int(Int64(classVersion))]
        if let id {
            try DataSyncCall.requireNonEmpty(id, "id")
            data["id"] = .string(id)
        }
        if let className { data["entityClass"] = .string(className) }
        if let classLevel { data["entityClassLevel"] = .string(classLevel.rawValue) }
        try DataSyncFields.addStatusAndPayload(to: &data, status: status, payload: payload)
        return try .create(collection, data: data)
    }

    func entityListCall(
        _ collection: DataSyncCollection, className: String?, classVersion: Int?,
        classLevel: PubNubDataSyncClassLevel?, cursor: String?, limit: Int?, filterFast: String?, filter: String?,
        sort: [PubNubDataSyncSortField]
    ) throws -> DataSyncCall {
        try engine.validate(filterFast: filterFast, filter: filter, sort: sort)
        var query: [HTTPQueryItem] = []
        if let className { query.append(HTTPQueryItem(name: "entity_class", value: className)) }
        if let classVersion { query.append(HTTPQueryItem(name: "entity_class_version", value: String(classVersion))) }
        if let classLevel { query.append(HTTPQueryItem(name: "entity_class_level", value: classLevel.rawValue)) }
        query += DataSyncFields.listQuery(
            cursor: cursor, limit: limit, filterFast: filterFast, filter: filter, sort: sort)
        return .list(collection, query: query)
    }

    func entitySetCall(
        _ collection: DataSyncCollection, id: String, classVersion: Int, status: String?,
        payload: (any JSONCodable)?, ifMatchesEtag: String?
    ) throws -> DataSyncCall {
        var data: [String: JSONValue] = ["entityClassVersion": .int(Int64(classVersion))]
        try DataSyncFields.addStatusAndPayload(to: &data, status: status, payload: payload)
        return try .set(collection, id: id, data: data, ifMatch: ifMatchesEtag)
    }

    func relationshipSetCall(
        _ collection: DataSyncCollection, id: String, classVersion: Int, status: String?,
        payload: (any JSONCodable)?, ifMatchesEtag: String?
    ) throws -> DataSyncCall {
        var data: [String: JSONValue] = ["relationshipClassVersion": .int(Int64(classVersion))]
        try DataSyncFields.addStatusAndPayload(to: &data, status: status, payload: payload)
        return try .set(collection, id: id, data: data, ifMatch: ifMatchesEtag)
    }
}
