/// One stored object behind a reference, so the id index and the class index share it and a
/// listing scan reads fields in place: the object is a `let`, so reading one field neither
/// copies the object nor needs an exclusivity check. A write replaces the box.
///
/// `@unchecked Sendable` is safe: `object` is immutable, and `getBody` is read and written only
/// by ``ObjectReads``, whose every use happens under ``DataSyncService``'s lock.
final class ObjectBox: @unchecked Sendable {
    let object: StoredObject
    /// The body of a get answer for `object` (`{"data":…}`), once one was encoded: it never goes
    /// stale, because the object never changes (a write replaces the box).
    var getBody: [UInt8]?

    init(_ object: StoredObject) { self.object = object }
}

/// A family's objects in one sort order, valid while the classes' stamps are unchanged.
struct SortSnapshot {
    var stamps: [UInt64]
    /// Nil until the family was listed twice in this sort with no write in between: building a
    /// snapshot only pays off when it is reused.
    var positions: [SortPosition]?
    /// The object behind each position: current while the stamps hold (a write replaces boxes
    /// and moves the stamps), so a walk needs no id lookups.
    var boxes: [ObjectBox] = []
}

/// One exact class of one id space: what property indexes are kept per.
struct IndexSlot: Hashable {
    var space: ClassKind
    var classKey: ClassKey
}

/// An object's place in a keyset: its id space and its id, compared by Unicode scalars.
struct ObjectKey: Hashable, Sendable {
    var space: ClassKind
    var id: ExactString

    init(_ space: ClassKind, _ id: String) {
        self.space = space
        self.id = ExactString(id)
    }
}

/// All state of one subscribe key: its classes, objects and the indexes that keep listing,
/// cascades and expiry cheap. Nothing here is ever reachable from another keyset.
///
/// Ids are keys compared by their Unicode scalars (``ExactString``), never by Swift's canonical
/// equivalence: `"\u{212B}"` and `"\u{00C5}"` are two objects.
///
/// Every change is noted in the engine's ``ChangeLog``: what to write at the next save and, while
/// a transaction is open, the state to put back if it is rolled back.
///
/// A class rather than a struct so the engine can mutate a keyset in place through a reference
/// it looked up once; it is confined to the engine (never shared across isolation domains).
final class Keyset {
    let subscribeKey: String
    /// The classes; a change (a class defined, replaced or deleted) is noted for the next save.
    var registry: ClassRegistry {
        willSet { registryWillChange() }
        didSet { syncPropertyIndexes() }
    }
    /// The entities, and the memberships and relationships: two id spaces, kept alike.
    private var entitySpace = ObjectSpace()
    private var relationshipSpace = ObjectSpace()
    /// Entity id → ids of the memberships and relationships that name it on either side.
    private(set) var links: [ExactString: Set<ExactString>] = [:]
    /// "channelId NUL userId" → membership id: one membership per pair.
    private(set) var membershipPairs: [ExactString: String] = [:]
    /// Expiry instant → objects expiring then. Expiries are whole UTC days, so buckets are few.
    private(set) var expiries: [Int64: [(space: ClassKind, id: String)]] = [:]
    private(set) var nextExpiry: Int64?
    /// Whether property indexes are kept (off only to measure the full scan they replace).
    let indexesEnabled: Bool
    /// Per exact class, an index on `status`, `createdAt`, `updatedAt` and the pointer of every
    /// property declared filterable (`simple` or `full`) on any version of the class or its
    /// ancestors. Kept by every insert, update and remove, so a rolled-back transaction (which
    /// removes and reinserts) and a loaded state leave them matching the store.
    private(set) var propertyIndexes: [IndexSlot: [IndexSource: PropertyIndex]] = [:]
    /// Sorted snapshots of class families, by family and sort (see `ObjectLister.fromSnapshot`).
    var sortCache: [String: SortSnapshot] = [:]
    var sortCacheOrder: [String] = []

    // Persistence bookkeeping (see ``ChangeLog``).
    let changes: ChangeLog
    /// Objects written since the last save: their current state (or absence) is what to save.
    private(set) var unsavedObjects: Set<ObjectKey> = []
    /// Whether the classes changed since the last save.
    private(set) var classesUnsaved = false
    /// Whether the saved state holds this keyset at all (a new keyset's first save carries its classes).
    private(set) var isSaved = false
    /// The state before the open transaction of every object it changed (nil: it did not exist).
    private var undoObjects: [ObjectKey: ObjectBox?] = [:]
    /// The classes before the open transaction, when it changed them.
    private var undoRegistry: ClassRegistry?

    init(subscribeKey: String, registry: ClassRegistry, changes: ChangeLog, propertyIndexes: Bool = true) {
        self.subscribeKey = subscribeKey
        self.registry = registry
        self.changes = changes
        self.indexesEnabled = propertyIndexes
        syncPropertyIndexes()
    }

    /// The index on `source` of exactly class `key`, when kept.
    func propertyIndex(_ space: ClassKind, ofClass key: ClassKey, _ source: IndexSource) -> PropertyIndex? {
        propertyIndexes[IndexSlot(space: space, classKey: key)]?[source]
    }

    /// Creates the indexes the classes call for (built from the objects already stored) and drops
    /// those no class calls for any more.
    private func syncPropertyIndexes() {
        guard indexesEnabled else { return }
        var wanted: [IndexSlot: Set<IndexSource>] = [:]
        for space in [ClassKind.entity, .relationship] {
            for key in registry.classes(space).keys {
                var sources: Set<IndexSource> = [.status, .createdAt, .updatedAt]
                var current: ClassKey? = key
                var steps = 0
                while let candidate = current, let definition = registry.definition(space, candidate), steps < 64 {
                    for version in definition.versions {
                        for property in version.properties where property.filtering != .none {
                            if let tokens = PointerLookup.tokens(property.pointer) { sources.insert(.pointer(tokens)) }
                        }
                    }
                    current = definition.parent
                    steps += 1
                }
                wanted[IndexSlot(space: space, classKey: key)] = sources
            }
        }
        for slot in propertyIndexes.keys where wanted[slot] == nil { propertyIndexes[slot] = nil }
        for (slot, sources) in wanted {
            var kept = propertyIndexes[slot] ?? [:]
            for source in kept.keys where !sources.contains(source) { kept[source] = nil }
            for source in sources where kept[source] == nil {
                let index = PropertyIndex(source: source)
                for box in members(slot.space, ofClass: slot.classKey).values { index.insert(box) }
                kept[source] = index
            }
            propertyIndexes[slot] = kept
        }
    }

    func object(_ space: ClassKind, _ id: String) -> StoredObject? { box(space, id)?.object }

    func box(_ space: ClassKind, _ id: String) -> ObjectBox? { self.space(space).objects[ExactString(id)] }

    /// The objects of exactly class `key`, by id.
    func members(_ space: ClassKind, ofClass key: ClassKey) -> [ExactString: ObjectBox] {
        self.space(space).members[key] ?? [:]
    }

    func stamp(_ space: ClassKind, ofClass key: ClassKey) -> UInt64 { self.space(space).stamps[key] ?? 0 }

    func order(_ space: ClassKind, ofClass key: ClassKey) -> SortedIds? { self.space(space).order[key] }

    private func space(_ kind: ClassKind) -> ObjectSpace {
        switch kind {
        case .entity: entitySpace
        case .relationship: relationshipSpace
        }
    }

    /// Changes one space in place (through `inout`, so its dictionaries are never copied).
    private func changeSpace<Result>(_ kind: ClassKind, _ change: (inout ObjectSpace) -> Result) -> Result {
        switch kind {
        case .entity: change(&entitySpace)
        case .relationship: change(&relationshipSpace)
        }
    }

    /// The ids of exactly class `key`, in ascending UTF-8 byte order.
    func ids(_ space: ClassKind, ofClass key: ClassKey) -> [String] {
        members(space, ofClass: key).keys.map(\.text).sorted(by: SortedIds.less)
    }

    func count(_ space: ClassKind, ofClass key: ClassKey) -> Int { members(space, ofClass: key).count }

    static func pairKey(channelId: String, userId: String) -> ExactString {
        ExactString(channelId + "\u{0}" + userId)
    }

    func membershipId(channelId: String, userId: String) -> String? {
        membershipPairs[Self.pairKey(channelId: channelId, userId: userId)]
    }

    /// The ids of the memberships and relationships naming `entityId`, in ascending UTF-8 byte order.
    func linkedRelationshipIds(of entityId: String) -> [String] {
        (links[ExactString(entityId)] ?? []).map(\.text).sorted(by: SortedIds.less)
    }

    /// Adds a new object (its id must be free in its space).
    func insert(_ object: StoredObject) {
        let space = object.kind.space
        let key = ExactString(object.id)
        willChange(ObjectKey(space, object.id))
        let box = ObjectBox(object)
        for index in classIndexes(space, object.classKey) { index.insert(box) }
        changeSpace(space) { $0.put(box, key: key, isNew: true) }
        if space == .relationship {
            if let sideA = object.sideA { links[ExactString(sideA), default: []].insert(key) }
            if let sideB = object.sideB { links[ExactString(sideB), default: []].insert(key) }
            if object.kind == .membership, let channelId = object.sideA, let userId = object.sideB {
                membershipPairs[Self.pairKey(channelId: channelId, userId: userId)] = object.id
            }
        }
        expiries[object.expiresAt, default: []].append((space, object.id))
        if nextExpiry.map({ object.expiresAt < $0 }) ?? true { nextExpiry = object.expiresAt }
    }

    /// Replaces an existing object's mutable state (class, sides, expiry never change).
    func update(_ object: StoredObject) {
        let key = ExactString(object.id)
        willChange(ObjectKey(object.kind.space, object.id))
        let box = ObjectBox(object)
        let old = self.box(object.kind.space, object.id)?.object
        for index in classIndexes(object.kind.space, object.classKey) {
            if let old { index.replace(old, with: box) } else { index.insert(box) }
        }
        changeSpace(object.kind.space) { $0.put(box, key: key, isNew: false) }
    }

    /// Removes an object and its index entries; returns it.
    @discardableResult
    func remove(_ space: ClassKind, _ id: String) -> StoredObject? {
        let key = ExactString(id)
        guard self.space(space).objects[key] != nil else { return nil }
        willChange(ObjectKey(space, id))
        guard let object = changeSpace(space, { $0.take(key, id: id) }) else { return nil }
        removeFromIndexes(space, object)
        if space == .relationship {
            for side in [object.sideA, object.sideB].compactMap({ $0 }) {
                let sideKey = ExactString(side)
                links[sideKey]?.remove(key)
                if links[sideKey]?.isEmpty == true { links[sideKey] = nil }
            }
            if object.kind == .membership, let channelId = object.sideA, let userId = object.sideB {
                let pair = Self.pairKey(channelId: channelId, userId: userId)
                if membershipPairs[pair]?.isExactly(id) == true { membershipPairs[pair] = nil }
            }
        }
        return object
    }

    private func removeFromIndexes(_ space: ClassKind, _ object: StoredObject) {
        for index in classIndexes(space, object.classKey) { index.remove(object) }
    }

    private func classIndexes(_ space: ClassKind, _ key: ClassKey) -> [PropertyIndex] {
        propertyIndexes[IndexSlot(space: space, classKey: key)].map { Array($0.values) } ?? []
    }

    /// Takes every expiry entry due at or before `now`; entries may name objects already removed
    /// or recreated, so callers re-check each object's own `expiresAt`.
    func takeDueExpiries(now: Int64) -> [(space: ClassKind, id: String)] {
        guard let next = nextExpiry, next <= now else { return [] }
        var due: [(space: ClassKind, id: String)] = []
        for instant in expiries.keys.sorted() where instant <= now {
            due += expiries.removeValue(forKey: instant) ?? []
        }
        nextExpiry = expiries.keys.min()
        return due
    }

    var allObjects: [StoredObject] {
        entitySpace.objects.values.map(\.object) + relationshipSpace.objects.values.map(\.object)
    }

    // MARK: Changes, saves and transactions

    private func willChange(_ key: ObjectKey) {
        guard changes.isEnabled else { return }
        unsavedObjects.insert(key)
        changes.noteUnsaved(self)
        if changes.isRecording, undoObjects.index(forKey: key) == nil {
            let prior = space(key.space).objects[key.id]
            undoObjects.updateValue(prior, forKey: key)
            changes.noteInTransaction(self)
        }
    }

    private func registryWillChange() {
        guard changes.isEnabled else { return }
        classesUnsaved = true
        changes.noteUnsaved(self)
        if changes.isRecording, undoRegistry == nil {
            undoRegistry = registry
            changes.noteInTransaction(self)
        }
    }

    /// What the next save must write for this keyset: the current state of every object written
    /// since the last save (those still present), the keys of those now gone, and whether the
    /// classes must be written (changed, or the keyset is new to the saved state).
    func unsavedState() -> (objects: [StoredObject], removed: [ObjectKey], classes: Bool) {
        var objects: [StoredObject] = []
        var removed: [ObjectKey] = []
        let ordered = unsavedObjects.sorted { left, right in
            left.space != right.space
                ? left.space.rawValue < right.space.rawValue : SortedIds.less(left.id.text, right.id.text)
        }
        for key in ordered {
            if let box = space(key.space).objects[key.id] {
                objects.append(box.object)
            } else {
                removed.append(key)
            }
        }
        return (objects, removed, classesUnsaved || !isSaved)
    }

    /// Whether anything must be written for this keyset at the next save.
    var hasUnsavedState: Bool { !unsavedObjects.isEmpty || classesUnsaved }

    /// Everything written so far is saved.
    func markSaved() {
        unsavedObjects = []
        classesUnsaved = false
        isSaved = true
    }

    /// Forgets the open transaction's undo records: its changes stay.
    func commitTransaction() {
        undoObjects = [:]
        undoRegistry = nil
    }

    /// Puts back the state from before the open transaction (the change log is not recording).
    func rollBackTransaction() {
        let priors = undoObjects
        undoObjects = [:]
        if let saved = undoRegistry {
            undoRegistry = nil
            registry = saved
        }
        // Everything the transaction touched leaves first, so the prior objects go back into
        // indexes (membership pairs, links) free of what replaced them.
        for key in priors.keys {
            let current = space(key.space).objects[key.id]
            if current != nil { remove(key.space, key.id.text) }
        }
        for case let prior? in priors.values {
            insert(prior.object)
        }
    }
}

/// One id space of a keyset (its entities, or its memberships and relationships) and what is kept
/// of its objects per exact class.
struct ObjectSpace {
    var objects: [ExactString: ObjectBox] = [:]
    /// Objects by exact class: a class's family is the union of its members'.
    var members: [ClassKey: [ExactString: ObjectBox]] = [:]
    /// The same ids per class in ascending order, for pages in the default (`id`) order.
    var order: [ClassKey: SortedIds] = [:]
    /// Bumped by every insert, update and remove of an object of the class: a sorted snapshot
    /// of a family stays valid while none of its classes' stamps moved.
    var stamps: [ClassKey: UInt64] = [:]

    /// Stores `box` as the object of id `key`; `isNew` when the id was free (an update keeps
    /// the object's class, so its place in `order` stays).
    mutating func put(_ box: ObjectBox, key: ExactString, isNew: Bool) {
        let classKey = box.object.classKey
        stamps[classKey, default: 0] += 1
        objects[key] = box
        members[classKey, default: [:]][key] = box
        if isNew { order[classKey, default: SortedIds()].insert(box.object.id) }
    }

    /// Removes the object of id `key` (`id` as text) and returns it.
    mutating func take(_ key: ExactString, id: String) -> StoredObject? {
        guard let object = objects.removeValue(forKey: key)?.object else { return nil }
        stamps[object.classKey, default: 0] += 1
        members[object.classKey]?[key] = nil
        order[object.classKey]?.remove(id)
        return object
    }
}
