import EmulatorHTTP
import Foundation
import JSONCore
import JSONPatch

/// Changes to existing objects: replace, patch, delete (with cascades) and expiry.
extension ObjectWriter {
    func set(_ context: RequestContext, id: String) throws(APIError) -> ServerResponse {
        let collection = context.collection
        try RequestBody.checkMediaType(context.request, expected: collection.mediaType)
        let data = try RequestBody.dataObject(context.request)
        let object = try ObjectReads.find(context, id: id, now: transactions.now())
        try RequestBody.checkIfMatch(context.request, object)
        var immutable: [String: JSONValue] = [
            "id": .string(object.id), collection.classField: .string(object.classKey.name),
        ]
        if collection.space == .entity { immutable["entityClassLevel"] = .string(object.classKey.level.rawValue) }
        if let sides = collection.sideFields {
            immutable[sides.a] = object.sideA.map(JSONValue.string) ?? .null
            immutable[sides.b] = object.sideB.map(JSONValue.string) ?? .null
        }
        try RequestBody.checkFields(
            data, allowed: Set(immutable.keys).union([collection.versionField, "status", "payload"]), prefix: "/data")
        for (field, stored) in immutable.sorted(by: { $0.key < $1.key }) {
            if let sent = data[field], !sent.isNull, sent != stored {
                throw .invalid("\(field) is immutable", path: "/data/" + field)
            }
        }
        return try commitFields(context, object, data, versionField: collection.versionField, prefix: "/data")
    }

    /// The common end of a replace and a patch: the class version, status and payload that
    /// `fields` give (checked against the object's class), then the commit. `prefix` is the
    /// pointer of `fields` in the request, for error paths.
    private func commitFields(
        _ context: RequestContext, _ changed: StoredObject, _ fields: JSONObject, versionField: String, prefix: String
    ) throws(APIError) -> ServerResponse {
        let collection = context.collection
        var object = changed
        guard let definition = context.keyset.registry.definition(collection.space, object.classKey) else {
            throw .notFound("class definition not found: \(object.classKey.name)")
        }
        object.classVersion = try RequestBody.classVersion(
            fields, field: versionField, definition: definition, prefix: prefix)
        (object.status, object.payload) = try RequestBody.statusAndPayload(fields, prefix: prefix)
        try RequestBody.checkPropertyTypes(object, registry: context.keyset.registry, prefix: prefix)
        return DataSyncResponse.data(commitUpdate(context.keyset, object).jsonValue, mediaType: collection.mediaType)
    }

    /// Stamps and stores a changed object: new eTag and revision, `updatedAt` strictly later.
    func commitUpdate(_ keyset: Keyset, _ changed: StoredObject) -> StoredObject {
        var object = changed
        let revision = transactions.nextRevision()
        object.revision = revision
        object.eTag = Transactions.eTag(for: revision)
        object.updatedAt = transactions.writeStamp(after: object.updatedAt)
        keyset.update(object)
        publisher.publish(keyset, object, action: .update, cause: .request, sequence: revision, at: object.updatedAt)
        return object
    }

    func update(_ context: RequestContext, id: String) throws(APIError) -> ServerResponse {
        try RequestBody.checkMediaType(context.request, expected: "application/json-patch+json")
        let operations = try PatchBody.operations(from: try RequestBody.parseBody(context.request))
        let object = try ObjectReads.find(context, id: id, now: transactions.now())
        try RequestBody.checkIfMatch(context.request, object)
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
        return try commitFields(context, object, fields, versionField: object.versionField, prefix: "")
    }

    func remove(_ context: RequestContext, id: String) throws(APIError) -> ServerResponse {
        let object = try ObjectReads.find(context, id: id, now: transactions.now())
        try RequestBody.checkIfMatch(context.request, object)
        removeWithCascade(context.keyset, object.kind.space, object.id, cause: .request)
        return ServerResponse(status: 200)
    }

    // MARK: Removals

    /// Removes an object and, for an entity, every membership and relationship naming it; each
    /// removal is its own change, and together they are one write on the feed. The entity's
    /// recipients are taken before anything is removed (the graph at the time of the change).
    func removeWithCascade(_ keyset: Keyset, _ space: ClassKind, _ id: String, cause: ChangeEvent.Cause) {
        guard let existing = keyset.object(space, id) else { return }
        publisher.feed.beginWrite()
        defer { publisher.feed.endWrite() }
        let recipients = ChangePublisher.recipients(keyset, existing, action: .delete)
        let removedSelf = space == .entity ? ChangePublisher.recipient(keyset, id: id) : nil
        let linkedIds = removedSelf == nil ? [] : keyset.linkedRelationshipIds(of: id)
        let newestLinked = linkedIds.compactMap { keyset.object(.relationship, $0)?.updatedAt }.max() ?? .min
        guard let removed = keyset.remove(space, id) else { return }
        let time = transactions.writeStamp(after: max(removed.updatedAt, newestLinked))
        publisher.publish(
            keyset, removed, action: .delete, cause: cause, origin: cause, sequence: transactions.nextRevision(),
            at: time,
            recipients: recipients)
        guard let removedSelf else { return }
        for relationshipId in linkedIds {
            if let linked = keyset.remove(.relationship, relationshipId) {
                // The removed entity is gone from the store, but its channels still get the event.
                let sides = [linked.sideA, linked.sideB].compactMap { $0 }.reduce(into: [String]()) { kept, side in
                    if !kept.contains(where: { $0.isExactly(side) }) { kept.append(side) }
                }
                let linkedRecipients = sides.map {
                    $0.isExactly(id) ? removedSelf : ChangePublisher.recipient(keyset, id: $0)
                }
                publisher.publish(
                    keyset, linked, action: .delete, cause: .cascade, origin: cause,
                    sequence: transactions.nextRevision(),
                    at: time, recipients: linkedRecipients)
            }
        }
    }

    /// Drops every object of `keyset` whose `expiresAt` has passed (with cascades).
    func sweepExpired(_ keyset: Keyset) {
        let now = transactions.now()
        for (space, id) in keyset.takeDueExpiries(now: now) {
            guard let object = keyset.object(space, id), object.expiresAt <= now else { continue }
            removeWithCascade(keyset, space, id, cause: .expiry)
        }
    }

    /// ``sweepExpired(_:)`` for every keyset of `store`.
    func sweepAll(_ store: ObjectStore) {
        for key in store.keysets.keys.sorted() {
            if let keyset = store.keysets[key] { sweepExpired(keyset) }
        }
    }
}
