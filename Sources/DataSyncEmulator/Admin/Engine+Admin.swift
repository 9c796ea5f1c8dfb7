import JSONCore

/// The DataSync side of the admin routes: export in the seed format, reset, import, summaries.
/// Everything here works on the engine's in-memory state (never on the state file).
extension Engine {
    /// The collection an object of `kind` is listed and seeded in.
    static func collectionName(of kind: ObjectKind) -> String {
        switch kind {
        case .user: return "users"
        case .channel: return "channels"
        case .membership: return "memberships"
        case .relationship: return "relationships"
        default: return "entities"
        }
    }

    // MARK: Export

    /// The state of `subscribeKeys` (every keyset holding objects or custom classes when nil) as a
    /// seed document: per keyset its custom classes (parents first) and its objects, each as the
    /// `data` of its create request with the class, level and version spelled out. Expired objects
    /// are swept first. Timestamps and eTags are not part of the format: an import assigns new ones.
    func exportSeed(subscribeKeys: [String]?) -> JSONValue {
        writer.sweepAll(store)
        var keysetsOut: [String: JSONValue] = [:]
        for key in subscribeKeys ?? store.keysets.keys.sorted() {
            guard let keyset = store.keysets[key] else {
                if subscribeKeys != nil { keysetsOut[key] = [:] }
                continue
            }
            var fields: [String: JSONValue] = [:]
            for kind in [ClassKind.entity, .relationship] {
                let classes = keyset.registry.customClasses(kind).map(Self.seedClass)
                if !classes.isEmpty {
                    fields[kind == .entity ? "entityClasses" : "relationshipClasses"] = .array(classes)
                }
            }
            var collections: [String: [StoredObject]] = [:]
            for object in keyset.allObjects {
                collections[Self.collectionName(of: object.kind), default: []].append(object)
            }
            for (name, objects) in collections {
                fields[name] = .array(
                    objects.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }.map(Self.seedItem))
            }
            if fields.isEmpty, subscribeKeys == nil { continue }
            keysetsOut[key] = .object(fields)
        }
        return ["keysets": .object(keysetsOut)]
    }

    /// A class in the class-document form (without the read-only `builtIn`).
    static func seedClass(_ definition: ClassDefinition) -> JSONValue {
        var fields = definition.jsonValue.objectValue ?? [:]
        fields["builtIn"] = nil
        return .object(fields)
    }

    /// An object as the `data` of its create request.
    static func seedItem(_ object: StoredObject) -> JSONValue {
        var fields: [String: JSONValue] = ["id": .string(object.id)]
        let version = JSONValue.int(Int64(object.classVersion))
        switch object.kind {
        case .membership:
            fields["channelId"] = object.sideA.map(JSONValue.string)
            fields["userId"] = object.sideB.map(JSONValue.string)
            fields["relationshipClassVersion"] = version
        case .relationship:
            fields["entityAId"] = object.sideA.map(JSONValue.string)
            fields["entityBId"] = object.sideB.map(JSONValue.string)
            fields["relationshipClass"] = .string(object.classKey.name)
            fields["relationshipClassLevel"] = .string(object.classKey.level.rawValue)
            fields["relationshipClassVersion"] = version
        default:
            fields["entityClass"] = .string(object.classKey.name)
            fields["entityClassLevel"] = .string(object.classKey.level.rawValue)
            fields["entityClassVersion"] = version
        }
        if let status = object.status { fields["status"] = .string(status) }
        if let payload = object.payload { fields["payload"] = payload }
        return .object(fields)
    }

    // MARK: Reset and import

    /// Empties the keyset of `subscribeKey`: every object is removed (one `delete` change each,
    /// cause ``ChangeEvent/Cause/reset``, no real-time event) and its classes go back to the
    /// built-ins and the class template. Returns how many objects each collection lost.
    @discardableResult
    func resetKeyset(_ subscribeKey: String) -> [String: Int] {
        guard let keyset = store.keysets[subscribeKey] else { return [:] }
        publisher.feed.beginWrite()
        defer { publisher.feed.endWrite() }
        var removed: [String: Int] = [:]
        // Links first, so removing an entity never cascades.
        let objects = keyset.allObjects.sorted {
            ($0.kind.space == .relationship ? 0 : 1, $0.id) < ($1.kind.space == .relationship ? 0 : 1, $1.id)
        }
        let time = transactions.writeStamp(after: objects.map(\.updatedAt).max() ?? .min)
        for object in objects {
            let recipients = ChangePublisher.recipients(keyset, object, action: .delete)
            guard let gone = keyset.remove(object.kind.space, object.id) else { continue }
            publisher.publish(
                keyset, gone, action: .delete, cause: .reset, origin: .reset, sequence: transactions.nextRevision(),
                at: time,
                recipients: recipients)
            removed[Self.collectionName(of: gone.kind), default: 0] += 1
        }
        store.dropKeyset(subscribeKey)
        return removed
    }

    /// Replaces every keyset `document` (a seed document) names with what it holds, all or
    /// nothing: the document is first applied to a scratch engine (``validateSeed(_:)``; skipped
    /// when the caller already did), and only when that succeeds are the keysets reset and
    /// seeded. Returns the keysets replaced.
    ///
    /// - Throws: ``EmulatorError`` with ``EmulatorError/Code-swift.struct/invalidSeed`` and the
    ///   refused item's JSON Pointer; nothing has changed then.
    func importSeed(_ document: JSONValue, validated: Bool = false) throws(EmulatorError) -> [String] {
        if !validated { try validateSeed(document) }
        let names = document["keysets"]?.objectValue?.keys.sorted() ?? []
        publisher.feed.beginWrite()
        defer { publisher.feed.endWrite() }
        for name in names { resetKeyset(name) }
        try seeder.seed(document)
        // An empty keyset in the document still exists afterwards (as a fresh one).
        for name in names { _ = store.keyset(name) }
        return names
    }

    /// Applies `document` to a scratch engine with this engine's class template, and throws
    /// what seeding it would throw; this engine is left as it is.
    func validateSeed(_ document: JSONValue) throws(EmulatorError) {
        let scratch = Engine(filterFastConditionLimit: filterFastConditionLimit, clock: transactions.clock)
        scratch.store.classTemplate = store.classTemplate
        scratch.store.propertyIndexes = store.propertyIndexes
        try scratch.seeder.seed(document)
    }

    // MARK: Summaries

    /// Every keyset the engine holds (one is created by the first request naming it), with its
    /// object counts per collection and its classes.
    func keysetSummaries() -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (key, keyset) in store.keysets {
            var counts: [String: Int64] = [:]
            for name in ObjectCollection.all.map(\.name) { counts[name] = 0 }
            var classes: [String: JSONValue] = [:]
            for kind in [ClassKind.entity, .relationship] {
                let registry = keyset.registry
                let list = registry.classes(kind).values.sorted {
                    ($0.level.rawValue, $0.name) < ($1.level.rawValue, $1.name)
                }
                classes[kind == .entity ? "entityClasses" : "relationshipClasses"] = .array(
                    list.map { definition in
                        let count = keyset.count(kind, ofClass: definition.key)
                        let root = registry.root(kind, of: definition.key)
                        let collection: String
                        switch root {
                        case ClassDefinition.userKey: collection = "users"
                        case ClassDefinition.channelKey: collection = "channels"
                        case ClassDefinition.membershipKey: collection = "memberships"
                        default: collection = kind == .entity ? "entities" : "relationships"
                        }
                        counts[collection, default: 0] += Int64(count)
                        var fields: [String: JSONValue] = [
                            "name": .string(definition.name), "level": .string(definition.level.rawValue),
                            "builtIn": .bool(definition.isBuiltIn),
                            "latestVersion": .int(Int64(definition.latestVersion)),
                            "collection": .string(collection), "objects": .int(Int64(count)),
                        ]
                        if let parent = definition.parent { fields["extends"] = parent.jsonValue }
                        return .object(fields)
                    })
            }
            var summary = classes
            summary["objects"] = .object(counts.mapValues { .int($0) })
            result[key] = .object(summary)
        }
        return result
    }
}
