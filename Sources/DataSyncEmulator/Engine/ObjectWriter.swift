import EmulatorHTTP
import Foundation
import JSONCore

/// The write side of the object endpoints: creates (with their class, link and cardinality
/// checks), replacements, patches, deletes with their cascades, and expiry sweeps. Every write
/// takes its revision and timestamp from ``Transactions`` and goes to the change feed through
/// ``ChangePublisher``; reads and lists never come through here.
struct ObjectWriter {
    let transactions: Transactions
    var publisher: ChangePublisher { transactions.publisher }

    // MARK: Create

    func create(_ context: RequestContext) throws(APIError) -> ServerResponse {
        try RequestBody.checkMediaType(context.request, expected: context.collection.mediaType)
        let data = try RequestBody.dataObject(context.request)
        let object = try createObject(context.keyset, context.collection, data: data, prefix: "/data")
        return DataSyncResponse.data(object.jsonValue, status: 201, mediaType: context.collection.mediaType)
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
        try RequestBody.checkPropertyTypes(object, registry: keyset.registry, prefix: prefix)
        if keyset.object(collection.space, object.id) != nil {
            throw .conflict(
                collection.space == .entity
                    ? "Entity already exists: \(object.id)" : "Relationship '\(object.id)' already exists",
                path: prefix + "/id")
        }
        if object.kind.space == .relationship {
            try checkLinks(keyset, collection, &object, prefix: prefix)
        }
        let revision = transactions.nextRevision()
        object.revision = revision
        object.eTag = Transactions.eTag(for: revision)
        keyset.insert(object)
        publisher.publish(keyset, object, action: .create, cause: .request, sequence: revision, at: object.createdAt)
        return object
    }

    private func draftEntity(
        _ keyset: Keyset, _ collection: ObjectCollection, data: JSONObject, prefix: String
    ) throws(APIError) -> StoredObject {
        try RequestBody.checkFields(
            data, allowed: ["id", "entityClass", "entityClassVersion", "entityClassLevel", "status", "payload"],
            prefix: prefix)
        let id = try RequestBody.optionalString(data, "id", prefix: prefix) ?? UUID().uuidString.lowercased()
        try RequestBody.checkId(id, path: prefix + "/id")
        guard
            let className = try RequestBody.optionalString(data, "entityClass", prefix: prefix)
                ?? collection.familyRoot?.name
        else { throw .missing(prefix + "/entityClass") }
        let level = try RequestBody.level(data, "entityClassLevel", prefix: prefix)
        guard let definition = keyset.registry.resolve(.entity, name: className, level: level) else {
            throw .notFound("class definition not found: \(className)", path: prefix + "/entityClass")
        }
        if let root = collection.familyRoot, !keyset.registry.isKind(.entity, definition.key, of: root) {
            throw APIError(
                status: 400, code: .notSubclass, message: "\(className) is not \(root.name) or a subclass of it",
                path: prefix + "/entityClass")
        }
        let version = try RequestBody.classVersion(
            data, field: "entityClassVersion", definition: definition, prefix: prefix)
        let (status, payload) = try RequestBody.statusAndPayload(data, prefix: prefix)
        let kind = collection.fixedKind ?? keyset.registry.entityKind(definition.key)
        let created = transactions.writeStamp()
        let ttl = Int64(definition.ttlDays ?? 31) * Timestamp.microsecondsPerDay
        return StoredObject(
            id: id, kind: kind, classKey: definition.key, classVersion: version, status: status, payload: payload,
            createdAt: created, updatedAt: created, expiresAt: Timestamp.roundUpToDay(created + ttl), eTag: "",
            revision: 0, sideA: nil, sideB: nil)
    }

    private func draftRelationship(
        _ keyset: Keyset, _ collection: ObjectCollection, data: JSONObject, prefix: String
    ) throws(APIError) -> StoredObject {
        guard let sides = collection.sideFields else { throw .invalid("not a relationship collection") }
        var allowed: Set<String> = [
            "id", sides.a, sides.b, "relationshipClass", "relationshipClassVersion", "status", "payload",
        ]
        if collection.familyRoot == nil { allowed.insert("relationshipClassLevel") }
        try RequestBody.checkFields(data, allowed: allowed, prefix: prefix)
        let id = try RequestBody.optionalString(data, "id", prefix: prefix) ?? UUID().uuidString.lowercased()
        try RequestBody.checkId(id, path: prefix + "/id")
        let definition: ClassDefinition
        if let root = collection.familyRoot {
            if let named = try RequestBody.optionalString(data, "relationshipClass", prefix: prefix), named != root.name
            {
                throw .invalid("the class of a membership is always \(root.name)", path: prefix + "/relationshipClass")
            }
            guard let found = keyset.registry.definition(.relationship, root) else {
                throw .notFound("class definition not found: \(root.name)")
            }
            definition = found
        } else {
            let className = try RequestBody.requiredString(data, "relationshipClass", prefix: prefix)
            let level = try RequestBody.level(data, "relationshipClassLevel", prefix: prefix)
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
        let version = try RequestBody.classVersion(
            data, field: "relationshipClassVersion", definition: definition, prefix: prefix)
        let sideA = try RequestBody.requiredString(data, sides.a, prefix: prefix)
        let sideB = try RequestBody.requiredString(data, sides.b, prefix: prefix)
        let (status, payload) = try RequestBody.statusAndPayload(data, prefix: prefix)
        let created = transactions.writeStamp()
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
}
