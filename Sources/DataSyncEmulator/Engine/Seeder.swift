import JSONCore

/// Loading a seed document (format in `Documentation/Emulator.md`) and the class document of one
/// keyset: every object is created through ``ObjectWriter``, exactly as a create request would.
struct Seeder {
    let store: ObjectStore
    let writer: ObjectWriter

    /// Defines the classes of `document` in one keyset.
    func defineClasses(_ document: JSONValue, subscribeKey: String) throws(EmulatorError) {
        if let refusal = KeysetName.refusal(subscribeKey) {
            throw EmulatorError(code: .invalidClasses, message: refusal)
        }
        let keyset = store.keyset(subscribeKey)
        var registry = keyset.registry
        _ = try ClassDocuments.define(document, in: &registry)
        keyset.registry = registry
    }

    /// The class lists a keyset of a seed document may hold besides its collections.
    static let seedClassFields = ["entityClasses", "relationshipClasses"]

    /// Creates the objects of `{"keysets":{"<sub>":{"users":[…],"channels":[…],"entities":[…],
    /// "memberships":[…],"relationships":[…]}}}`; each item is the `data` of a create request,
    /// where the class version may be left out (the class's latest version is used). A keyset may
    /// also hold `entityClasses` and `relationshipClasses` (the class-document lists), defined
    /// before its objects are created (the form ``exportSeed(subscribeKeys:)`` writes).
    func seed(_ document: JSONValue) throws(EmulatorError) {
        guard let keysets = document["keysets"]?.objectValue, document.objectValue?.count == 1 else {
            throw EmulatorError(
                code: .invalidSeed, message: "a seed document is {\"keysets\":{\"<subscribeKey>\":{…}}}")
        }
        for subscribeKey in keysets.keys.sorted() {
            if let refusal = KeysetName.refusal(subscribeKey) {
                throw EmulatorError(code: .invalidSeed, message: "/keysets/\(escape(subscribeKey)): \(refusal)")
            }
            let keyset = store.keyset(subscribeKey)
            guard let collections = keysets[subscribeKey]?.objectValue else {
                throw EmulatorError(code: .invalidSeed, message: "/keysets/\(escape(subscribeKey)) must be an object")
            }
            let order = ObjectCollection.all.map(\.name)
            for name in collections.keys.sorted() where !order.contains(name) && !Self.seedClassFields.contains(name) {
                if name == "pushRegistrations" {
                    throw EmulatorError(
                        code: .invalidSeed,
                        message: "/keysets/\(escape(subscribeKey))/\(name): mobile push registrations are restored by "
                            + "the admin import (POST /_emulator/v1/import, datasync admin import), not by a seed")
                }
                throw EmulatorError(
                    code: .invalidSeed, message: "/keysets/\(escape(subscribeKey))/\(name): unknown collection")
            }
            try seedClasses(keyset, collections, path: "/keysets/\(escape(subscribeKey))")
            for collection in [ObjectCollection.users, .channels, .entities, .memberships, .relationships] {
                for (index, item) in (collections[collection.name]?.arrayValue ?? []).enumerated() {
                    let path = "/keysets/\(escape(subscribeKey))/\(collection.name)/\(index)"
                    guard var data = item.objectValue else {
                        throw EmulatorError(code: .invalidSeed, message: "\(path) must be an object")
                    }
                    if data[collection.versionField] == nil,
                        let definition = seedClass(keyset, collection, data)
                    {
                        data[collection.versionField] = .int(Int64(definition.latestVersion))
                    }
                    do {
                        try writer.createObject(keyset, collection, data: data, prefix: path)
                    } catch {
                        throw EmulatorError(code: .invalidSeed, message: "\(error.path ?? path): \(error.message)")
                    }
                }
            }
        }
    }

    /// Defines the `entityClasses` and `relationshipClasses` of one seed keyset, in order. A class
    /// already defined the same way (the `--classes` template) is left alone; one defined
    /// otherwise is replaced while no object uses it.
    private func seedClasses(_ keyset: Keyset, _ fields: JSONObject, path: String) throws(EmulatorError) {
        try ClassDocuments.forEachDraft(in: fields, path: path, code: .invalidSeed) {
            (draft, itemPath) throws(APIError) in
            let key = ClassKey(name: draft.name, level: .subKey)
            let current = keyset.registry.definition(draft.kind, key)
            let definition = try keyset.registry.resolveDraft(draft, replacing: current, path: itemPath)
            if definition == current { return }
            if current != nil, keyset.count(draft.kind, ofClass: key) > 0 {
                throw APIError.conflict(
                    "class \(draft.name) is already defined otherwise and has objects", path: itemPath + "/name")
            }
            keyset.registry.store(definition)
        }
    }

    private func seedClass(_ keyset: Keyset, _ collection: ObjectCollection, _ data: JSONObject)
        -> ClassDefinition?
    {
        if let root = collection.familyRoot, data[collection.classField] == nil {
            return keyset.registry.definition(collection.space, root)
        }
        guard let name = data[collection.classField]?.stringValue else { return nil }
        let level = data[collection.levelField]?.stringValue.map(ClassLevel.init(rawValue:))
        return keyset.registry.resolve(collection.space, name: name, level: level)
    }
}
