import JSONCore

/// Every keyset the emulator holds, each with its classes, objects and the indexes over them
/// (``Keyset``), and what a new keyset starts with. Creating a keyset on first use is the only
/// change it makes itself; objects change through ``ObjectWriter``, classes through
/// ``ClassEndpoints`` and the documents, all inside a transaction (``Transactions``).
final class ObjectStore {
    private(set) var keysets: [String: Keyset] = [:]
    /// Classes every new keyset starts with (the `--classes` file), in definition order.
    var classTemplate: [ClassDefinition] = []
    /// Whether new keysets keep per-property indexes (off only to measure the full scan).
    var propertyIndexes = true
    /// Every keyset notes its changes here (for saves and for rolling back a transaction).
    let changes = ChangeLog()

    /// The keyset of `subscribeKey`, created with the built-ins and the class template on first use.
    func keyset(_ subscribeKey: String) -> Keyset {
        if let existing = keysets[subscribeKey] { return existing }
        var registry = ClassRegistry()
        for definition in classTemplate { registry.store(definition) }
        let keyset = Keyset(
            subscribeKey: subscribeKey, registry: registry, changes: changes, propertyIndexes: propertyIndexes)
        keysets[subscribeKey] = keyset
        return keyset
    }

    /// A keyset restored from the state file, with no classes yet; nil when `subscribeKey` is
    /// already held.
    func addLoadedKeyset(_ subscribeKey: String) -> Keyset? {
        guard keysets[subscribeKey] == nil else { return nil }
        let keyset = Keyset(
            subscribeKey: subscribeKey, registry: ClassRegistry(), changes: changes, propertyIndexes: propertyIndexes)
        keysets[subscribeKey] = keyset
        return keyset
    }

    /// Forgets the keyset of `subscribeKey` (an admin reset, after its objects were removed).
    func dropKeyset(_ subscribeKey: String) { keysets[subscribeKey] = nil }

    /// Applies a class document to every keyset created from now on.
    func setClassTemplate(_ document: JSONValue) throws(EmulatorError) {
        var registry = ClassRegistry()
        classTemplate = try ClassDocuments.define(document, in: &registry)
    }

    /// The projections of the stored object `id` of `collection` in `subscribeKey` (as its
    /// real-time events use them), and whether the object exists. nil projections: the class
    /// declares none (or no properties).
    func projections(subscribeKey: String, collection: ObjectCollection, id: String) -> (
        found: Bool, className: String, projections: [ChangeEvent.Projection]?
    ) {
        guard let keyset = keysets[subscribeKey], let object = keyset.object(collection.space, id) else {
            return (false, "", nil)
        }
        return (
            true, object.classKey.name,
            keyset.registry.eventProjections(collection.space, object.classKey, version: object.classVersion)
        )
    }
}
