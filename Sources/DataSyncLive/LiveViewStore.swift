package import DataSyncModels
package import Foundation
import PubNubBase

/// What one event (or one part of one) does to a view.
package enum LiveViewAction<Element: PubNubDataSyncObject>: Sendable {
    /// A created or updated object that belongs in the view.
    case upsert(Element)
    /// The object `id` was deleted at `deletedAt`.
    case delete(id: String, deletedAt: Date)
    /// An object the view's links point at was deleted at `deletedAt`: the service removed every
    /// link to it, so every held object `linked` picks goes too (its own delete events may come
    /// later, or never when they were missed).
    case deleteLinked(deletedAt: Date, linked: @Sendable (Element) -> Bool)
    /// An event about the view's objects left out what applying it needs (a timestamp, the eTag,
    /// the class; `detail` says which): the view keeps what it holds and reads again rather than
    /// guess. The store itself ignores it.
    case reread(detail: String)
}

/// The objects of one view and the rules that decide what a read or an event changes.
///
/// - An upsert replaces what is held only when it is newer (``PubNubLiveVersion``): a late or
///   duplicated event never moves a value back.
/// - A delete removes the held object unless that object was created after the delete (a later
///   incarnation of the same id). It leaves a *tombstone*: "every incarnation created at or before
///   this instant is gone", so a late upsert of the deleted incarnation (a catch-up replay, a
///   duplicate) cannot bring it back, while a re-created object (created later) can.
/// - A read is the service's state after every tombstone the view holds was recorded: what it
///   returns clears their tombstones; an object held before it and missing from it was deleted
///   while the view could not see it, and its tombstone covers its own incarnation (its
///   `createdAt`), which every version of it shares.
///
/// Tombstones are kept in a bounded memory (the newest `tombstoneCapacity`); the objects in
/// ascending id order. The change since the last ``takeChange()`` accumulates as it happens.
package struct LiveViewStore<Element: PubNubDataSyncObject>: Sendable {
    package private(set) var objects = ViewObjects<Element>()
    /// The ids of ``objects``, ascending.
    package private(set) var ids: [String] = []
    private var tombstones: TombstoneMemory
    private var change = ChangeAccumulator()
    /// How many object changes (inserts, updates, removals) the store has taken, ever: the view
    /// numbers its states with it, so a reader can tell when it missed some.
    package private(set) var revision: UInt64 = 0

    package init(tombstoneCapacity: Int) {
        tombstones = TombstoneMemory(capacity: tombstoneCapacity)
    }

    package var count: Int { objects.count }
    /// Whether something changed since the last ``takeChange()``.
    package var hasChange: Bool { !change.isEmpty }
    /// How many tombstones are kept.
    package var tombstoneCount: Int { tombstones.count }

    /// The tombstone of `id`: incarnations created at or before it are gone.
    package func tombstone(_ id: String) -> Date? { tombstones[id] }

    /// The change since the last call, and starts a new one; a snapshot shares the objects now.
    package mutating func takeChange() -> PubNubLiveChange {
        defer { change.reset() }
        var taken = change.change
        // Everything held is new (a first read): the list is the ids themselves, so share them
        // rather than keep a second array of every id for as long as the snapshot lives.
        if taken.inserted.count == ids.count { taken.inserted = ids }
        return taken
    }

    package mutating func apply(_ action: LiveViewAction<Element>) {
        switch action {
        case .upsert(let object):
            upsert(object)
        case .delete(let id, let deletedAt):
            delete(id: id, at: deletedAt)
        case .deleteLinked(let deletedAt, let linked):
            let doomed = ids.filter { id in objects[id].map(linked) ?? false }
            for id in doomed { delete(id: id, at: deletedAt) }
        case .reread:
            break
        }
    }

    private mutating func upsert(_ object: Element) {
        if let bound = tombstones[object.id] {
            // A version of an incarnation that was deleted: created before (or at) the delete.
            guard object.createdAt > bound else { return }
            tombstones.remove(object.id)
        }
        if keep(object) == .inserted { ids.insert(object.id, at: insertionPoint(object.id)) }
    }

    private enum Kept {
        case inserted
        case replaced
        case older
    }

    /// Holds `object` unless the view has a newer version of it; an inserted id still needs its
    /// place in `ids`.
    private mutating func keep(_ object: Element) -> Kept {
        if let slot = objects.slot(of: object.id) {
            // Compared where the held version lies, not copied out (see `withObject`).
            let isNewer = objects.withObject(inSlot: slot) { held in
                held.map { PubNubLiveVersion.isNewer(object, than: $0) }
            }
            if let isNewer {
                guard isNewer else { return .older }
                objects[slot: slot] = object
                change.updated(object.id)
                revision &+= 1
                return .replaced
            }
        }
        objects.insert(object, id: object.id)
        change.inserted(object.id)
        revision &+= 1
        return .inserted
    }

    private mutating func delete(id: String, at deletedAt: Date) {
        if let held = objects[id] {
            // Created after the delete: a later incarnation the delete cannot be about.
            guard held.createdAt <= deletedAt else { return }
            remove(id)
        }
        tombstones.record(id, bound: deletedAt)
    }

    /// Merges a complete read: the objects the service holds for the view now.
    ///
    /// Works from the read's positions sorted by id rather than a dictionary of it, so merging a
    /// read of n objects allocates n integers beside what the view keeps (a first read of 10,000
    /// used to build a 10,000-entry dictionary of whole objects only to throw it away).
    package mutating func applyRead(_ read: [Element]) {
        // The read's newest version of each id, ascending by id (a duplicate keeps the newer).
        var order = Array(read.indices)
        if !zip(read, read.dropFirst()).allSatisfy({ $0.id < $1.id }) {
            // Ties by position, so that of two equal versions the first read is kept.
            order.sort { (read[$0].id, $0) < (read[$1].id, $1) }
        }
        var fresh: [Int] = []
        fresh.reserveCapacity(order.count)
        for position in order {
            if let last = fresh.last, read[last].id == read[position].id {
                if PubNubLiveVersion.isNewer(read[position], than: read[last]) { fresh[fresh.count - 1] = position }
            } else {
                fresh.append(position)
            }
        }
        order = []
        // Held ids the read lacks, by walking both ascending lists together.
        var missing: [String] = []
        var cursor = 0
        for id in ids {
            while cursor < fresh.count, read[fresh[cursor]].id < id { cursor += 1 }
            if cursor < fresh.count, read[fresh[cursor]].id == id { continue }
            missing.append(id)
        }
        for id in missing {
            guard let held = objects[id] else { continue }
            tombstones.record(id, bound: held.createdAt)
        }
        objects.reserveCapacity(fresh.count)
        var inserted = false
        for position in fresh {
            let object = read[position]
            tombstones.remove(object.id)
            if keep(object) == .inserted { inserted = true }
        }
        for id in missing {
            objects.remove(id)
            change.removed(id)
            revision &+= 1
        }
        guard inserted || !missing.isEmpty else { return }
        // Every id held now is in the read: its ids, in the order already established.
        ids = fresh.map { read[$0].id }
    }

    private mutating func remove(_ id: String) {
        objects.remove(id)
        let index = insertionPoint(id)
        if index < ids.count, ids[index] == id { ids.remove(at: index) }
        change.removed(id)
        revision &+= 1
    }

    /// The first position whose id is not less than `id`.
    private func insertionPoint(_ id: String) -> Int {
        var low = 0
        var high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A view's objects by id, stored so that a snapshot shares them and the changes after it copy
/// little.
///
/// Each held object sits in a slot that stays its own while it is held; slots are grouped in
/// chunks of ``chunkSize``, each chunk an array of its own, and ``slots`` maps ids to slots. A
/// snapshot shares all of it. The first change to a chunk after a snapshot copies that chunk and
/// the list of chunks (`count / chunkSize` references); an update never touches the id index, so
/// only an insertion or a removal copies it (as it copies the view's id list, which is O(n)
/// either way). With a snapshot every k changes that is about `chunkSize + n / (chunkSize · k)`
/// copied entries per change, against the O(n) of copying one dictionary.
///
/// Memory: one `Element` per object (chunks are allocated at their full size once), plus the
/// index (an id and a 32-bit slot per entry). A `[String: Element]` would keep the whole element
/// in each of its hash buckets, a third or more of them empty.
package struct ViewObjects<Element: Sendable>: Sendable {
    /// Objects per chunk: small enough that copying one on the first change after a snapshot is
    /// cheap, large enough that the chunk list and the chunks' headers stay small. Measured on
    /// 10,000 memberships with a snapshot every 100 events: 8 applied events 1.4–1.8× as fast as
    /// 16 for about 4 more bytes per object (a chunk's array header and malloc's share).
    package static var chunkSize: Int { 1 << chunkShift }
    private static var chunkShift: Int { 3 }

    private var chunks: [[Element?]] = []
    /// The slot of each held id.
    private var slots: [String: UInt32] = [:]
    /// Slots freed by removals, reused first.
    private var free: [Int] = []
    /// Slots ever handed out (held or free).
    private var slotCount = 0
    /// Entries copied because a snapshot shared the chunk or the chunk list being written: the work
    /// a snapshot costs the changes after it (tests count it; it is not a clock).
    package private(set) var copiedEntries = 0

    package init() {}

    package var count: Int { slots.count }

    package subscript(id: String) -> Element? {
        guard let slot = slots[id] else { return nil }
        return self[slot: Int(slot)]
    }

    /// The slot `id` is held in, or `nil`.
    package func slot(of id: String) -> Int? {
        slots[id].map { Int($0) }
    }

    /// The object in `slot` (from ``slot(of:)``); `nil` for a free slot.
    package subscript(slot slot: Int) -> Element? {
        get { chunks[slot >> Self.chunkShift][slot & (Self.chunkSize - 1)] }
        set {
            let chunk = slot >> Self.chunkShift
            let before = addresses(ofChunk: chunk)
            chunks[chunk][slot & (Self.chunkSize - 1)] = newValue
            // A moved buffer is a copy made because a snapshot still shares the old one.
            let after = addresses(ofChunk: chunk)
            if after.list != before.list { copiedEntries += chunks.count }
            if after.chunk != before.chunk { copiedEntries += chunks[chunk].count }
        }
    }

    /// Where the chunk list and chunk `chunk` keep their entries, read in place: taking the chunk
    /// out as an array value (as `chunks[chunk]` does) would retain and release it around every
    /// write.
    private func addresses(ofChunk chunk: Int) -> (list: UnsafeRawPointer?, chunk: UnsafeRawPointer?) {
        chunks.withUnsafeBufferPointer { list in
            let entries = list[chunk].withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            return (UnsafeRawPointer(list.baseAddress), entries)
        }
    }

    /// Calls `body` with the object in `slot` (`nil` for a free slot) where it lies: reading a
    /// field or two that way costs no copy of the whole element (an upsert compares versions on
    /// every event, and copying a membership out retains each of its fields).
    package func withObject<Result>(inSlot slot: Int, _ body: (Element?) -> Result) -> Result {
        chunks[slot >> Self.chunkShift].withUnsafeBufferPointer { body($0[slot & (Self.chunkSize - 1)]) }
    }

    /// Bytes the storage has allocated for its entries (capacity, not count; object headers and
    /// what the elements point to left out), so a test can hold it to one element per object.
    package var allocatedBytes: Int {
        let chunkBytes = chunks.reduce(0) { $0 + $1.capacity * MemoryLayout<Element?>.stride }
        // A dictionary fills at most three quarters of its buckets.
        let indexBytes = slots.capacity * 4 / 3 * (MemoryLayout<String>.stride + MemoryLayout<UInt32>.stride)
        return chunkBytes + chunks.capacity * MemoryLayout<[Element?]>.stride + indexBytes
            + free.capacity * MemoryLayout<Int>.stride
    }

    /// Holds `object` under `id`, which must not be held yet.
    package mutating func insert(_ object: Element, id: String) {
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            self[slot: slot] = object
        } else {
            slot = slotCount
            slotCount += 1
            if slot & (Self.chunkSize - 1) == 0 {
                var chunk: [Element?] = []
                chunk.reserveCapacity(Self.chunkSize)
                chunks.append(chunk)
            }
            chunks[slot >> Self.chunkShift].append(object)
        }
        slots[id] = UInt32(truncatingIfNeeded: slot)
    }

    /// Drops the object held under `id`, if any.
    package mutating func remove(_ id: String) {
        guard let slot = slots.removeValue(forKey: id).map({ Int($0) }) else { return }
        self[slot: slot] = nil
        free.append(slot)
        // Many removals leave many free slots: pack the held objects again, once the free ones
        // outnumber them (so the O(n) repacking is paid once per n/2 removals at most).
        if free.count > 64, free.count > slots.count { repack() }
    }

    /// Makes room for `additional` more objects without growing the index on the way.
    package mutating func reserveCapacity(_ additional: Int) {
        slots.reserveCapacity(slots.count + additional)
        chunks.reserveCapacity((slotCount + additional + Self.chunkSize - 1) >> Self.chunkShift)
    }

    private mutating func repack() {
        let held = slots
        var packed = ViewObjects()
        packed.reserveCapacity(held.count)
        for (id, slot) in held {
            guard let object = self[slot: Int(slot)] else { continue }
            packed.insert(object, id: id)
        }
        self = packed
    }
}

/// The ids inserted, updated and removed since a point, folded so that the result compares the
/// state now with the state then.
package struct ChangeAccumulator: Sendable {
    private var inserted: Set<String> = []
    /// The ids updated since the point, in the order they were, repeats included: the common
    /// event (an update of a held object) then costs an append rather than a hash and a set
    /// insert. Repeats, and ids that a later removal (or insertion) accounts for, are dropped when
    /// ``change`` is read.
    private var updatedLog: [String] = []
    /// The length at which ``updatedLog`` is folded down to its distinct ids, so that a view whose
    /// change nobody takes keeps at most about twice as many ids as it holds.
    private var foldAt = 1024
    private var removed: Set<String> = []

    package init() {}

    package var isEmpty: Bool { inserted.isEmpty && updatedLog.isEmpty && removed.isEmpty }

    /// Empties the change; a small one keeps its storage, as the next snapshot's changes usually
    /// number about the same, while a large one (a first read's) lets it go.
    package mutating func reset() {
        inserted.removeAll(keepingCapacity: inserted.count <= 1024)
        updatedLog.removeAll(keepingCapacity: updatedLog.count <= 1024)
        removed.removeAll(keepingCapacity: removed.count <= 1024)
        foldAt = 1024
    }

    package mutating func inserted(_ id: String) {
        if removed.remove(id) != nil { logUpdate(id) } else { inserted.insert(id) }
    }

    package mutating func updated(_ id: String) {
        if inserted.isEmpty || !inserted.contains(id) { logUpdate(id) }
    }

    package mutating func removed(_ id: String) {
        if inserted.remove(id) != nil { return }
        // Its updates stay in the log: ``change`` leaves out the ids it finds in `removed`.
        removed.insert(id)
    }

    /// How many ids the update log holds, repeats included (tests hold it to its bound).
    package var loggedUpdates: Int { updatedLog.count }

    private mutating func logUpdate(_ id: String) {
        updatedLog.append(id)
        if updatedLog.count >= foldAt {
            updatedLog = updatedIDs()
            foldAt = max(1024, 2 * updatedLog.count)
        }
    }

    /// The distinct updated ids, ascending, less those inserted or removed since the point.
    ///
    /// An id enters the log only while it is held and was held at the point; it can leave that
    /// state only by a removal (which puts it in `removed`), and it comes back by an insertion that
    /// logs it again. So an id belongs in `updated` exactly when it was logged and is in neither
    /// set now, which is what the eager bookkeeping this replaces kept.
    private func updatedIDs() -> [String] {
        var ids: [String] = []
        ids.reserveCapacity(updatedLog.count)
        for id in updatedLog.sorted() where id != ids.last {
            if !removed.isEmpty, removed.contains(id) { continue }
            if !inserted.isEmpty, inserted.contains(id) { continue }
            ids.append(id)
        }
        return ids
    }

    package var change: PubNubLiveChange {
        PubNubLiveChange(inserted: inserted.sorted(), updated: updatedIDs(), removed: removed.sorted())
    }
}

/// The newest `capacity` tombstones by id; recording one again keeps the later bound and makes it
/// the newest. Amortized O(1).
package struct TombstoneMemory: Sendable {
    private var bounds: BoundedRecentMap<String, Date>

    package init(capacity: Int) {
        bounds = BoundedRecentMap(capacity: capacity)
    }

    package var capacity: Int { bounds.capacity }

    package var count: Int { bounds.count }

    package subscript(id: String) -> Date? {
        // Most views hold no tombstone; every upsert asks.
        bounds.isEmpty ? nil : bounds[id]
    }

    package mutating func record(_ id: String, bound: Date) {
        bounds.set(max(bound, bounds[id] ?? bound), for: id)
    }

    package mutating func remove(_ id: String) {
        guard !bounds.isEmpty else { return }
        bounds.remove(id)
    }
}
