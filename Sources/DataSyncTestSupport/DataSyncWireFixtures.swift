public import JSONCore

/// DataSync answers in wire form, for mock transports in your tests: the five object kinds, the
/// single-object and list envelopes, and the error envelope, shaped as the service sends them.
///
/// ```swift
/// let body = DataSyncWireFixtures.envelope(DataSyncWireFixtures.user(id: "u1", payload: ["name": "Ada"]))
/// let transport = MockHTTPClient.success(body: body)
/// let user = try await pubnub.dataSync.getUser(id: "u1")   // decodes the fixture
/// ```
///
/// Every factory fills the fields the service always sends (`createdAt`, `updatedAt`, `eTag`,
/// class name, version and level) with fixed values, so tests are repeatable; pass `extra` to add
/// or override any field.
public enum DataSyncWireFixtures {
    /// The timestamp every factory uses for `createdAt` and `updatedAt`.
    public static let timestamp = "2026-09-07T07:34:55.265874Z"

    /// An object with the common fields, then `fields`, then `extra` (later wins).
    public static func object(_ fields: [String: JSONValue], extra: [String: JSONValue] = [:]) -> JSONValue {
        var base: [String: JSONValue] = [
            "createdAt": .string(timestamp), "updatedAt": .string(timestamp), "eTag": "e1",
        ]
        base.merge(fields) { _, new in new }
        base.merge(extra) { _, new in new }
        return .object(base)
    }

    /// A user of class `User`, version 1, level `Global`.
    public static func user(
        id: String, status: String? = nil, payload: JSONValue? = nil, extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        entity(
            id: id, className: "User", classVersion: 1, classLevel: "Global", status: status, payload: payload,
            extra: extra)
    }

    /// A channel of class `Channel`, version 1, level `Global`.
    public static func channel(
        id: String, status: String? = nil, payload: JSONValue? = nil, extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        entity(
            id: id, className: "Channel", classVersion: 1, classLevel: "Global", status: status, payload: payload,
            extra: extra)
    }

    /// An entity of a custom class (level `SubKey` unless told otherwise).
    public static func entity(
        id: String, className: String, classVersion: Int = 1, classLevel: String = "SubKey", status: String? = nil,
        payload: JSONValue? = nil, extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id), "entityClass": .string(className), "entityClassVersion": .int(Int64(classVersion)),
            "entityClassLevel": .string(classLevel),
        ]
        if let status { fields["status"] = .string(status) }
        if let payload { fields["payload"] = payload }
        return object(fields, extra: extra)
    }

    /// A membership of `userId` in `channelId`, class `Membership`, version 1.
    public static func membership(
        id: String, channelId: String, userId: String, status: String? = nil, payload: JSONValue? = nil,
        extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id), "relationshipClass": "Membership", "relationshipClassVersion": 1,
            "channelId": .string(channelId), "userId": .string(userId),
        ]
        if let status { fields["status"] = .string(status) }
        if let payload { fields["payload"] = payload }
        return object(fields, extra: extra)
    }

    /// A relationship of a custom class between two entities.
    public static func relationship(
        id: String, className: String, classVersion: Int = 1, entityAId: String, entityBId: String,
        status: String? = nil, payload: JSONValue? = nil, extra: [String: JSONValue] = [:]
    ) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id), "relationshipClass": .string(className),
            "relationshipClassVersion": .int(Int64(classVersion)), "entityAId": .string(entityAId),
            "entityBId": .string(entityBId),
        ]
        if let status { fields["status"] = .string(status) }
        if let payload { fields["payload"] = payload }
        return object(fields, extra: extra)
    }

    /// The single-object answer `{"data": object}`, as bytes.
    public static func envelope(_ object: JSONValue) -> [UInt8] {
        Array(JSONValue.object(["data": object]).description.utf8)
    }

    /// A list answer `{"data": [...], "meta": {...}}`, as bytes. With `cursor` the page says more
    /// follow (`has_next: true`); without it, it is the last page (no cursor, as the service sends).
    ///
    /// - Parameters:
    ///   - objects: The objects of the page, such as ``user(id:status:payload:extra:)`` results.
    ///   - cursor: The cursor of the next page; `nil` (the default) makes this the last page.
    ///   - limit: The page size to report; the number of objects by default.
    public static func page(_ objects: [JSONValue], cursor: String? = nil, limit: Int? = nil) -> [UInt8] {
        var meta: [String: JSONValue] = [
            "has_next": .bool(cursor != nil), "limit": .int(Int64(limit ?? objects.count)),
        ]
        if let cursor { meta["next_cursor"] = .string(cursor) }
        return Array(JSONValue.object(["data": .array(objects), "meta": .object(meta)]).description.utf8)
    }

    /// One item of an error answer.
    public struct ErrorItem: Sendable, Hashable {
        /// The service's code, such as `DS-0100`.
        public var errorCode: String
        /// The message the service would show, such as `Missing required property`.
        public var message: String
        /// An RFC 6901 pointer or parameter name, when the error has one.
        public var path: String?

        /// Creates an item; leave `path` out for errors that concern the request as a whole.
        public init(errorCode: String, message: String, path: String? = nil) {
            self.errorCode = errorCode
            self.message = message
            self.path = path
        }
    }

    /// The error answer `{"errors":[{"errorCode","message","path"}]}`, as bytes.
    public static func errorBody(_ items: [ErrorItem]) -> [UInt8] {
        let array: [JSONValue] = items.map { item in
            var fields: [String: JSONValue] = [
                "errorCode": .string(item.errorCode), "message": .string(item.message),
            ]
            if let path = item.path { fields["path"] = .string(path) }
            return .object(fields)
        }
        return Array(JSONValue.object(["errors": .array(array)]).description.utf8)
    }

    /// The error answer with one item.
    public static func errorBody(_ errorCode: String, _ message: String, path: String? = nil) -> [UInt8] {
        errorBody([ErrorItem(errorCode: errorCode, message: message, path: path)])
    }
}
