package import DataSyncModels
package import JSONCore
package import JSONPatch
package import PubNubCore
package import Transport

/// A DataSync collection: its path component and the media type of its request bodies.
package struct DataSyncCollection: Sendable, Hashable {
    /// `users`, `channels`, `memberships`, `entities` or `relationships`.
    package let pathComponent: String
    /// The resource name inside the vendor media type (`user`, …).
    package let resource: String

    /// `application/vnd.pubnub.objects.<resource>+json;version=1`.
    package var mediaType: String { "application/vnd.pubnub.objects.\(resource)+json;version=1" }

    package static let users = DataSyncCollection(pathComponent: "users", resource: "user")
    package static let channels = DataSyncCollection(pathComponent: "channels", resource: "channel")
    package static let memberships = DataSyncCollection(pathComponent: "memberships", resource: "membership")
    package static let entities = DataSyncCollection(pathComponent: "entities", resource: "entity")
    package static let relationships = DataSyncCollection(pathComponent: "relationships", resource: "relationship")
}

/// One DataSync request before the client adds origin, identity and credentials: method,
/// collection, object id, operation query, headers and body.
package struct DataSyncCall: Sendable, Hashable {
    package var method: HTTPMethod
    package var collection: DataSyncCollection
    package var objectId: String?
    package var query: [HTTPQueryItem]
    package var headers: HTTPHeaders
    package var body: [UInt8]?

    /// The percent-encoded path under `subscribeKey`.
    package func path(subscribeKey: String) -> String {
        let key = HTTPRequest.encodePathSegment(subscribeKey)
        let id = objectId.map(HTTPRequest.encodePathSegment)
        // Sized once and appended in place: each `+` of the chain this replaces made a new string.
        var path = "/v1/datasync/subkeys/"
        path.reserveCapacity(
            path.utf8.count + key.utf8.count + 2 + collection.pathComponent.utf8.count + (id?.utf8.count ?? 0))
        path += key
        path += "/"
        path += collection.pathComponent
        if let id {
            path += "/"
            path += id
        }
        return path
    }

    /// The call as the shared pipeline takes it.
    package func serviceCall(subscribeKey: String) -> ServicePipeline.Call {
        ServicePipeline.Call(
            method: method, path: path(subscribeKey: subscribeKey), query: query, headers: headers, body: body)
    }

    static let patchMediaType = "application/json-patch+json"

    /// `POST /{collection}` with `{"data": data}`.
    package static func create(_ collection: DataSyncCollection, data: [String: JSONValue]) throws -> DataSyncCall {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: collection.mediaType)
        return DataSyncCall(
            method: .post, collection: collection, objectId: nil, query: [], headers: headers,
            body: try encode(["data": .object(data)]))
    }

    /// `GET /{collection}/{id}`.
    package static func get(_ collection: DataSyncCollection, id: String) throws -> DataSyncCall {
        try requireNonEmpty(id, "id")
        return DataSyncCall(method: .get, collection: collection, objectId: id, query: [], headers: [:], body: nil)
    }

    /// `GET /{collection}` with `query`.
    package static func list(_ collection: DataSyncCollection, query: [HTTPQueryItem]) -> DataSyncCall {
        DataSyncCall(method: .get, collection: collection, objectId: nil, query: query, headers: [:], body: nil)
    }

    /// `PUT /{collection}/{id}` with `{"data": data}` and `If-Match` when given.
    package static func set(
        _ collection: DataSyncCollection, id: String, data: [String: JSONValue], ifMatch: String?
    ) throws -> DataSyncCall {
        try requireNonEmpty(id, "id")
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: collection.mediaType)
        if let ifMatch { headers.add(name: "If-Match", value: ifMatch) }
        return DataSyncCall(
            method: .put, collection: collection, objectId: id, query: [], headers: headers,
            body: try encode(["data": .object(data)]))
    }

    /// `PATCH /{collection}/{id}` with a JSON Patch array and `If-Match` when given.
    package static func update(
        _ collection: DataSyncCollection, id: String, operations: [PatchOperation], ifMatch: String?
    ) throws -> DataSyncCall {
        try requireNonEmpty(id, "id")
        guard !operations.isEmpty else { throw PubNubError.missingRequiredParameter("operations") }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: patchMediaType)
        if let ifMatch { headers.add(name: "If-Match", value: ifMatch) }
        // JSONPatch's Codable conformance is the wire form of a PATCH body: `remove` carries no `value`.
        let wire: [JSONValue]
        do {
            wire = try operations.map { try $0.jsonValue() }
        } catch {
            throw PubNubError(
                reason: .invalidArguments, message: "a patch operation cannot be encoded as JSON: \(error)",
                underlying: error)
        }
        let body = try encode(.array(wire))
        return DataSyncCall(
            method: .patch, collection: collection, objectId: id, query: [], headers: headers, body: body)
    }

    /// `DELETE /{collection}/{id}` with `If-Match` when given.
    package static func remove(_ collection: DataSyncCollection, id: String, ifMatch: String?) throws -> DataSyncCall {
        try requireNonEmpty(id, "id")
        var headers = HTTPHeaders()
        if let ifMatch { headers.add(name: "If-Match", value: ifMatch) }
        return DataSyncCall(
            method: .delete, collection: collection, objectId: id, query: [], headers: headers, body: nil)
    }

    package static func requireNonEmpty(_ value: String, _ name: String) throws {
        if value.isEmpty { throw PubNubError.missingRequiredParameter(name) }
    }

    private static func encode(_ value: JSONValue) throws -> [UInt8] {
        do {
            return try value.jsonBytes(sortedKeys: true)
        } catch {
            throw PubNubError(
                reason: .invalidArguments, message: "the request body cannot be encoded as JSON: \(error)",
                underlying: error)
        }
    }
}

/// Builders of the JSON fields and query items the operations share.
package enum DataSyncFields {
    /// The payload argument as JSON, or `.invalidArguments` when it cannot be encoded.
    package static func payload(_ payload: (any JSONCodable)?) throws -> JSONValue? {
        guard let payload else { return nil }
        do {
            return try payload.jsonValue()
        } catch {
            throw PubNubError(
                reason: .invalidArguments, message: "the payload cannot be encoded as JSON: \(error)",
                underlying: error)
        }
    }

    /// `status` and `payload` added to `fields` when present.
    package static func addStatusAndPayload(
        to fields: inout [String: JSONValue], status: String?, payload: (any JSONCodable)?
    ) throws {
        if let status { fields["status"] = .string(status) }
        if let payload = try Self.payload(payload) { fields["payload"] = payload }
    }

    /// The listing parameters every list shares: `cursor`, `limit`, `filter_fast`, `filter`, `sort`.
    package static func listQuery(
        cursor: String?, limit: Int?, filterFast: String?, filter: String?, sort: [PubNubDataSyncSortField]
    ) -> [HTTPQueryItem] {
        var items: [HTTPQueryItem] = []
        if let cursor { items.append(HTTPQueryItem(name: "cursor", value: cursor)) }
        if let limit { items.append(HTTPQueryItem(name: "limit", value: String(limit))) }
        if let filterFast { items.append(HTTPQueryItem(name: "filter_fast", value: filterFast)) }
        if let filter { items.append(HTTPQueryItem(name: "filter", value: filter)) }
        if let sort = PubNubDataSyncSortField.queryValue(for: sort) {
            items.append(HTTPQueryItem(name: "sort", value: sort))
        }
        return items
    }
}
