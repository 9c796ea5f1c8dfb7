import EmulatorHTTP
import Foundation
import JSONCore
import JSONPatch

extension Engine {
    /// The longest id, in Unicode scalars (so at most 1,020 UTF-8 bytes).
    static let maximumIdLength = 255
    /// The longest `status`, in Unicode scalars (so at most 400 UTF-8 bytes).
    static let maximumStatusLength = 100

    // MARK: Request bodies

    /// Accepts the request's Content-Type when its media type is `expected` (parameters other
    /// than `version=1` are ignored; a different version is refused).
    static func checkMediaType(_ request: ServerRequest, expected: String) throws(APIError) {
        let header = request.header("Content-Type")
        if header == expected { return }
        let expectedType = expected.split(separator: ";")[0].lowercased()
        guard let header else {
            throw APIError(
                status: 415, code: .invalidValue, message: "Content-Type must be \(expected)", path: "Content-Type")
        }
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let versionParameter = parts.dropFirst().first { $0.hasPrefix("version=") }
        guard parts.first == expectedType, versionParameter == nil || versionParameter == "version=1" else {
            throw APIError(
                status: 415, code: .invalidValue, message: "Content-Type must be \(expected), not \(header)",
                path: "Content-Type")
        }
    }

    static func parseBody(_ request: ServerRequest) throws(APIError) -> JSONValue {
        guard !request.body.isEmpty else {
            throw APIError(status: 400, code: .malformedBody, message: "the request has no body")
        }
        do {
            return try JSONValue(parsing: request.body, options: JSONParsingOptions(rejectsDuplicateKeys: true))
        } catch {
            throw APIError(status: 400, code: .malformedBody, message: "the body is not valid JSON: \(error)")
        }
    }

    /// The `data` object of a `{"data":{…}}` body.
    static func dataObject(_ request: ServerRequest) throws(APIError) -> JSONObject {
        let body = try parseBody(request)
        guard let top = body.objectValue else { throw .invalid("the body must be a JSON object", path: "") }
        for key in top.keys.sorted() where key != "data" {
            throw .invalid("unknown field '\(key)'", path: "/" + escape(key))
        }
        guard let data = top["data"], !data.isNull else { throw .missing("/data") }
        guard let object = data.objectValue else { throw .invalid("data must be an object", path: "/data") }
        return object
    }

    static func checkFields(_ data: JSONObject, allowed: Set<String>, prefix: String) throws(APIError) {
        for key in data.keys.sorted() where !allowed.contains(key) {
            throw .invalid("unknown field '\(key)'", path: prefix + "/" + escape(key))
        }
    }

    static func optionalString(_ data: JSONObject, _ key: String, prefix: String) throws(APIError) -> String? {
        guard let value = data[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .invalid("must be a string", path: prefix + "/" + key) }
        return text
    }

    static func requiredString(_ data: JSONObject, _ key: String, prefix: String) throws(APIError) -> String {
        guard let text = try optionalString(data, key, prefix: prefix) else { throw .missing(prefix + "/" + key) }
        return text
    }

    static func checkId(_ id: String, path: String) throws(APIError) {
        guard !id.isEmpty else { throw .invalid("an id must not be empty", path: path) }
        // Counted in Unicode scalars, not grapheme clusters: one "character" may hold any number
        // of combining marks, so counting characters would not bound the id's size.
        guard id.unicodeScalars.count <= maximumIdLength else {
            throw .invalid("an id is at most \(maximumIdLength) Unicode scalars", path: path)
        }
    }

    static func classVersion(
        _ data: JSONObject, field: String, definition: ClassDefinition, prefix: String
    ) throws(APIError) -> Int {
        guard let value = data[field], !value.isNull else { throw .missing(prefix + "/" + field) }
        guard let number = value.intValue else { throw .invalid("must be an integer", path: prefix + "/" + field) }
        guard definition.version(number) != nil else {
            throw .invalid("class \(definition.name) has no version \(number)", path: prefix + "/" + field)
        }
        return number
    }

    /// `status` (a string of at most 100 characters) and `payload` (an object); absent or null
    /// means none.
    static func statusAndPayload(_ data: JSONObject, prefix: String) throws(APIError) -> (String?, JSONValue?) {
        let status = try optionalString(data, "status", prefix: prefix)
        if let status, status.unicodeScalars.count > maximumStatusLength {
            throw .invalid("status is at most \(maximumStatusLength) Unicode scalars", path: prefix + "/status")
        }
        var payload: JSONValue?
        if let value = data["payload"], !value.isNull {
            guard value.objectValue != nil else {
                throw .invalid("payload must be an object", path: prefix + "/payload")
            }
            payload = value
        }
        return (status, payload)
    }

    /// Checks the values behind the class's declared properties have the declared types.
    static func checkPropertyTypes(
        _ object: StoredObject, registry: ClassRegistry, prefix: String
    ) throws(APIError) {
        let properties = registry.properties(object.kind.space, object.classKey, version: object.classVersion)
        for property in properties.values.sorted(by: { $0.name < $1.name }) {
            guard let tokens = PointerLookup.tokens(property.pointer),
                let value = object.value(atPointerTokens: tokens), !value.isNull
            else { continue }
            guard property.type.accepts(value) else {
                throw .invalid(
                    "property '\(property.name)' must be of type \(property.type.rawValue)",
                    path: prefix + property.pointer)
            }
        }
    }

    static func checkIfMatch(_ request: ServerRequest, _ object: StoredObject) throws(APIError) {
        guard let expected = request.header("If-Match") else { return }
        let trimmed = expected.trimmingCharacters(in: .whitespaces)
        guard trimmed == "*" || trimmed == object.eTag else {
            throw APIError(
                status: 412, code: .preconditionFailed,
                message: "eTag mismatch: the object's current eTag is not '\(trimmed)'", path: "If-Match")
        }
    }

    // MARK: Create

    func create(_ context: RequestContext) throws(APIError) -> ServerResponse {
        try Self.checkMediaType(context.request, expected: context.collection.mediaType)
        let data = try Self.dataObject(context.request)
        let object = try createObject(context.keyset, context.collection, data: data, prefix: "/data")
        return Self.dataResponse(object.jsonValue, status: 201, mediaType: context.collection.mediaType)
    }

    /// Validates and commits a new object from a create body's `data`.
    @discardableResult
    func createObject(
        _ keyset: Keyset, _ collection: ObjectCollection, data: JSONObject, prefix: String
    ) throws(APIError) -> StoredObject {
        var object =
            collection.space == .entity
            ? try draftEntity(keyset, collection, data: data, prefix: prefix)
            : try draftRelationship(keyset, collection, data: data, prefix: prefix)
        try Self.checkPropertyTypes(object, registry: keyset.registry, prefix: prefix)
        if keyset.object(collection.space, object.id) != nil {
            throw .conflict(
                collection.space == .entity
                    ? "Entity already exists: \(object.id)" : "Relationship '\(object.id)' already exists",
                path: prefix + "/id")
        }
        if object.kind.space == .relationship {
            try checkLinks(keyset, collection, &object, prefix: prefix)
        }
        let revision = nextRevision()
        object.revision = revision
        object.eTag = Self.eTag(for: revision)
        keyset.insert(object)
        publish(keyset, object, action: .create, cause: .request, sequence: revision, at: object.createdAt)
        return object
    }

    private func draftEntity(
        _ keyset: Keyset, _ collection: ObjectCollection, data: JSONObject, prefix: String
    ) throws(APIError) -> StoredObject {
        try Self.checkFields(
            data, allowed: ["id", "entityClass", "entityClassVersion", "entityClassLevel", "status", "payload"],
            prefix: prefix)
        let id = try Self.optionalString(data, "id", prefix: prefix) ?? UUID().uuidString.lowercased()
        try Self.checkId(id, path: prefix + "/id")
        guard
            let className = try Self.optionalString(data, "entityClass", prefix: prefix) ?? collection.familyRoot?.name
        else { throw .missing(prefix + "/entityClass") }
        let level = try Self.level(data, "entityClassLevel", prefix: prefix)
        guard let definition = keyset.registry.resolve(.entity, name: className, level: level) else {
            throw .notFound("class definition not found: \(className)", path: prefix + "/entityClass")
        }
        if let root = collection.familyRoot, !keyset.registry.isKind(.entity, definition.key, of: root) {
            throw APIError(
                status: 400, code: .notSubclass, message: "\(className) is not \(root.name) or a subclass of it",
                path: prefix + "/entityClass")
        }
        let version = try Self.classVersion(
            data, field: "entityClassVersion", definition: definition, prefix: prefix)
        let (status, payload) = try Self.statusAndPayload(data, prefix: prefix)
        let kind = collection.fixedKind ?? Self.entityKind(keyset.registry, definition.key)
        let created = writeStamp()
        let ttl = Int64(definition.ttlDays ?? 31) * Timestamp.microsecondsPerDay
        return StoredObject(
            id: id, kind: kind, classKey: definition.key, classVersion: version, status: status, payload: payload,
            createdAt: created, updatedAt: created, expiresAt: Timestamp.roundUpToDay(created + ttl), eTag: "",
            revision: 0, sideA: nil, sideB: nil)
    }

    static func entityKind(_ registry: ClassRegistry, _ key: ClassKey) -> ObjectKind {
        switch registry.root(.entity, of: key) {
        case ClassDefinition.userKey: return .user
        case ClassDefinition.channelKey: return .channel
        default: return .entity
        }
    }

    static func level(_ data: JSONObject, _ field: String, prefix: String) throws(APIError) -> ClassLevel? {
        guard let text = try optionalString(data, field, prefix: prefix) else { return nil }
        let level = ClassLevel(rawValue: text)
        guard level == .global || level == .subKey else {
            throw .invalid("class level must be Global or SubKey", path: prefix + "/" + field)
        }
        return level
    }

    private func draftRelationship(
        _ keyset: Keyset, _ collection: ObjectCollection, data: JSONObject, prefix: String
    ) throws(APIError) -> StoredObject {
        guard let sides = collection.sideFields else { throw .invalid("not a relationship collection") }
        var allowed: Set<String> = [
            "id", sides.a, sides.b, "relationshipClass", "relationshipClassVersion", "status", "payload",
        ]
        if collection.familyRoot == nil { allowed.insert("relationshipClassLevel") }
        try Self.checkFields(data, allowed: allowed, prefix: prefix)
        let id = try Self.optionalString(data, "id", prefix: prefix) ?? UUID().uuidString.lowercased()
        try Self.checkId(id, path: prefix + "/id")
        let definition: ClassDefinition
        if let root = collection.familyRoot {
            if let named = try Self.optionalString(data, "relationshipClass", prefix: prefix), named != root.name {
                throw .invalid("the class of a membership is always \(root.name)", path: prefix + "/relationshipClass")
            }
            guard let found = keyset.registry.definition(.relationship, root) else {
                throw .notFound("class definition not found: \(root.name)")
            }
            definition = found
        } else {
            let className = try Self.requiredString(data, "relationshipClass", prefix: prefix)
            let level = try Self.level(data, "relationshipClassLevel", prefix: prefix)
            guard let found = keyset.registry.resolve(.relationship, name: className, level: level) else {
                throw .notFound("class definition not found: \(className)", path: prefix + "/relationshipClass")
            }
            if keyset.registry.isKind(.relationship, found.key, of: ClassDefinition.membershipKey) {
                throw APIError(
                    status: 400, code: .notSubclass, message: "memberships are created through /memberships",
                    path: prefix + "/relationshipClass")
            }
            definition = found
        }
        let version = try Self.classVersion(
            data, field: "relationshipClassVersion", definition: definition, prefix: prefix)
        let sideA = try Self.requiredString(data, sides.a, prefix: prefix)
        let sideB = try Self.requiredString(data, sides.b, prefix: prefix)
        let (status, payload) = try Self.statusAndPayload(data, prefix: prefix)
        let created = writeStamp()
        return StoredObject(
            id: id, kind: collection.fixedKind ?? .relationship, classKey: definition.key, classVersion: version,
            status: status, payload: payload, createdAt: created, updatedAt: created, expiresAt: 0, eTag: "",
            revision: 0, sideA: sideA, sideB: sideB)
    }

    /// Linked objects must exist (with the right class), a user and channel have at most one
    /// membership, the class's cardinality holds; sets the expiry to the earlier side's.
    private func checkLinks(
        _ keyset: Keyset, _ collection: ObjectCollection, _ object: inout StoredObject, prefix: String
    ) throws(APIError) {
        guard let fields = collection.sideFields, let sideA = object.sideA, let sideB = object.sideB,
            let definition = keyset.registry.definition(.relationship, object.classKey)
        else { return }
        func endpoint(_ id: String, field: String, required: ClassKey?) throws(APIError) -> StoredObject {
            guard let found = keyset.object(.entity, id) else {
                throw .notFound("Entity not found: \(id)", path: prefix + "/" + field)
            }
            if let required, !keyset.registry.isKind(.entity, found.classKey, of: required) {
                if collection.familyRoot != nil {
                    throw .notFound("Entity not found: \(id)", path: prefix + "/" + field)
                }
                throw APIError(
                    status: 400, code: .notSubclass, message: "\(id) is not a \(required.name)",
                    path: prefix + "/" + field)
            }
            return found
        }
        let a = try endpoint(sideA, field: fields.a, required: definition.entityAClass)
        let b = try endpoint(sideB, field: fields.b, required: definition.entityBClass)
        if object.kind == .membership, let existing = keyset.membershipId(channelId: sideA, userId: sideB) {
            throw .conflict("a membership of user \(sideB) in channel \(sideA) already exists: \(existing)")
        }
        let cardinality = definition.cardinality ?? .manyToMany
        if cardinality != .manyToMany {
            let classKey = object.classKey
            let sameClass = { (id: String) -> StoredObject? in
                keyset.object(.relationship, id).flatMap { $0.classKey == classKey ? $0 : nil }
            }
            let bTaken = keyset.linkedRelationshipIds(of: sideB).contains {
                sameClass($0)?.sideB.isExactly(sideB) == true
            }
            let aTaken = keyset.linkedRelationshipIds(of: sideA).contains {
                sameClass($0)?.sideA.isExactly(sideA) == true
            }
            if bTaken || (cardinality == .oneToOne && aTaken) {
                throw APIError(
                    status: 409, code: .cardinality,
                    message: "\(definition.name) is \(cardinality.rawValue): "
                        + (bTaken ? "\(sideB) already has one" : "\(sideA) already has one"),
                    path: prefix + "/" + (bTaken ? fields.b : fields.a))
            }
        }
        var expiry = min(a.expiresAt, b.expiresAt)
        if let days = definition.ttlDays {
            expiry = min(expiry, Timestamp.roundUpToDay(object.createdAt + Int64(days) * Timestamp.microsecondsPerDay))
        }
        object.expiresAt = expiry
    }

    // MARK: Get, set, update, remove

    func find(_ context: RequestContext, id: String) throws(APIError) -> StoredObject {
        guard let object = context.keyset.object(context.collection.space, id), context.collection.contains(object),
            object.expiresAt > now()
        else { throw context.collection.notFound(id) }
        return object
    }

    /// The answer ``get(_:id:)`` gives for `id` when the object is there, unexpired at `now`,
    /// and its encoded body is already kept with it; nil otherwise (not found, expired, or not
    /// encoded yet: ``get(_:id:)`` answers those). Reads nothing else and changes nothing.
    func cachedGet(_ keyset: Keyset, collection: ObjectCollection, id: String, now: Int64) -> ServerResponse? {
        guard let box = keyset.box(collection.space, id), let body = box.getBody, box.object.expiresAt > now,
            collection.contains(box.object)
        else { return nil }
        return ServerResponse(status: 200, headers: collection.contentTypeHeaders, body: body)
    }

    func get(_ context: RequestContext, id: String) throws(APIError) -> ServerResponse {
        guard let box = context.keyset.box(context.collection.space, id), context.collection.contains(box.object),
            box.object.expiresAt > now()
        else { throw context.collection.notFound(id) }
        // The same bytes `dataResponse` encodes, kept with the box (which a write replaces).
        if let body = box.getBody {
            return ServerResponse(status: 200, headers: context.collection.contentTypeHeaders, body: body)
        }
        let response = Self.dataResponse(box.object.jsonValue, mediaType: context.collection.mediaType)
        if response.status == 200 { box.getBody = response.body }
        return response
    }

    func set(_ context: RequestContext, id: String) throws(APIError) -> ServerResponse {
        let collection = context.collection
        try Self.checkMediaType(context.request, expected: collection.mediaType)
        let data = try Self.dataObject(context.request)
        var object = try find(context, id: id)
        try Self.checkIfMatch(context.request, object)
        var immutable: [String: JSONValue] = [
            "id": .string(object.id), collection.classField: .string(object.classKey.name),
        ]
        if collection.space == .entity { immutable["entityClassLevel"] = .string(object.classKey.level.rawValue) }
        if let sides = collection.sideFields {
            immutable[sides.a] = object.sideA.map(JSONValue.string) ?? .null
            immutable[sides.b] = object.sideB.map(JSONValue.string) ?? .null
        }
        try Self.checkFields(
            data, allowed: Set(immutable.keys).union([collection.versionField, "status", "payload"]), prefix: "/data")
        for (field, stored) in immutable.sorted(by: { $0.key < $1.key }) {
            if let sent = data[field], !sent.isNull, sent != stored {
                throw .invalid("\(field) is immutable", path: "/data/" + field)
            }
        }
        guard let definition = context.keyset.registry.definition(collection.space, object.classKey) else {
            throw .notFound("class definition not found: \(object.classKey.name)")
        }
        object.classVersion = try Self.classVersion(
            data, field: collection.versionField, definition: definition, prefix: "/data")
        (object.status, object.payload) = try Self.statusAndPayload(data, prefix: "/data")
        try Self.checkPropertyTypes(object, registry: context.keyset.registry, prefix: "/data")
        return Self.dataResponse(commitUpdate(context.keyset, object).jsonValue, mediaType: collection.mediaType)
    }

    /// Stamps and stores a changed object: new eTag and revision, `updatedAt` strictly later.
    func commitUpdate(_ keyset: Keyset, _ changed: StoredObject) -> StoredObject {
        var object = changed
        let revision = nextRevision()
        object.revision = revision
        object.eTag = Self.eTag(for: revision)
        object.updatedAt = writeStamp(after: object.updatedAt)
        keyset.update(object)
        publish(keyset, object, action: .update, cause: .request, sequence: revision, at: object.updatedAt)
        return object
    }

    func update(_ context: RequestContext, id: String) throws(APIError) -> ServerResponse {
        let collection = context.collection
        try Self.checkMediaType(context.request, expected: "application/json-patch+json")
        let operations = try PatchBody.operations(from: try Self.parseBody(context.request))
        var object = try find(context, id: id)
        try Self.checkIfMatch(context.request, object)
        let mutable: Set<String> = ["status", "payload", object.versionField]
        for (index, operation) in operations.enumerated() {
            var written = [operation.path]
            switch operation {
            case .move(let from, _): written.append(from)
            case .test: written = []
            default: break
            }
            for pointer in written {
                let first = PointerLookup.tokens(pointer)?.first
                guard let first, mutable.contains(first) else {
                    let what = first.map { "\($0) is immutable" } ?? "the whole object cannot be replaced"
                    throw .invalid(
                        "\(what); a patch may change status, payload and \(object.versionField)", path: "/\(index)/path"
                    )
                }
                if first == object.versionField, PointerLookup.tokens(pointer)?.count != 1 {
                    throw .invalid("\(object.versionField) is a number", path: "/\(index)/path")
                }
            }
        }
        // An object without a payload is patched as if it had an empty one, so `add
        // /payload/name` works on it; an empty payload that the patch leaves empty stays absent.
        var document = object.jsonValue
        let hadPayload = object.payload != nil
        if !hadPayload,
            operations.contains(where: { $0.path.hasPrefix("/payload/") || $0.from?.hasPrefix("/payload/") == true })
        {
            document["payload"] = [:]
        }
        let patched = try PatchApplication.apply(operations, to: document)
        guard var fields = patched.objectValue else { throw .invalid("the patch must leave an object") }
        if !hadPayload, fields["payload"] == [:] { fields["payload"] = nil }
        guard let definition = context.keyset.registry.definition(collection.space, object.classKey) else {
            throw .notFound("class definition not found: \(object.classKey.name)")
        }
        object.classVersion = try Self.classVersion(
            fields, field: object.versionField, definition: definition, prefix: "")
        (object.status, object.payload) = try Self.statusAndPayload(fields, prefix: "")
        try Self.checkPropertyTypes(object, registry: context.keyset.registry, prefix: "")
        return Self.dataResponse(commitUpdate(context.keyset, object).jsonValue, mediaType: collection.mediaType)
    }

    func remove(_ context: RequestContext, id: String) throws(APIError) -> ServerResponse {
        let object = try find(context, id: id)
        try Self.checkIfMatch(context.request, object)
        removeWithCascade(context.keyset, object.kind.space, object.id, cause: .request)
        return ServerResponse(status: 200)
    }
}
