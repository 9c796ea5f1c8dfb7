package import DataSyncModels
package import Foundation

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
    package private(set) var objects = LayeredObjects<Element>()
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
        defer { change = ChangeAccumulator() }
        objects.shared()
        return change.change
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
        if let held = objects[object.id] {
            guard PubNubLiveVersion.isNewer(object, than: held) else { return }
            objects[object.id] = object
            change.updated(object.id)
            revision &+= 1
        } else {
            objects[object.id] = object
            ids.insert(object.id, at: insertionPoint(object.id))
            change.inserted(object.id)
            revision &+= 1
        }
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
    package mutating func applyRead(_ read: [Element]) {
        var fresh: [String: Element] = [:]
        fresh.reserveCapacity(read.count)
        for object in read {
            if let other = fresh[object.id], !PubNubLiveVersion.isNewer(object, than: other) { continue }
            fresh[object.id] = object
        }
        let missing = ids.filter { fresh[$0] == nil }
        for id in missing {
            guard let held = objects[id] else { continue }
            tombstones.record(id, bound: held.createdAt)
        }
        var inserted: [String] = []
        for (id, object) in fresh {
            tombstones.remove(id)
            if let held = objects[id] {
                guard PubNubLiveVersion.isNewer(object, than: held) else { continue }
                objects[id] = object
                change.updated(id)
                revision &+= 1
            } else {
                objects[id] = object
                change.inserted(id)
                revision &+= 1
                inserted.append(id)
            }
        }
        for id in missing {
            objects[id] = nil
            change.removed(id)
            revision &+= 1
        }
        guard !inserted.isEmpty || !missing.isEmpty else { return }
        let gone = Set(missing)
        ids = (ids.filter { !gone.contains($0) } + inserted).sorted()
    }

    private mutating func remove(_ id: String) {
        objects[id] = nil
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

/// A view's objects by id, in two layers so that a snapshot shares them for the cost of the
/// recent layer: a large `base`, rewritten only when the `recent` changes are folded into it, and
/// the `recent` changes (`nil`: removed).
///
/// While a snapshot holds the layers, the next change copies the recent layer (R entries) and a
/// fold copies the base (n entries). With a snapshot every k changes that costs about R/k + n/R
/// entries per change, least at R = √(n·k): the layer follows the snapshot rate it observes
/// (``shared()``), from 64 entries up to half the objects. A reader taking every snapshot then
/// costs O(√n) per change instead of the O(n) of copying one dictionary.
package struct LayeredObjects<Element: Sendable>: Sendable {
    private var base: [String: Element] = [:]
    private var recent: [String: Element?] = [:]
    package private(set) var count = 0
    private var changesSinceShared = 0
    /// Changes between two snapshots, smoothed.
    private var sharePeriod = 1.0

    package init() {}

    package subscript(id: String) -> Element? {
        get {
            if let entry = recent[id] { return entry }
            return base[id]
        }
        set {
            let had = self[id] != nil
            count += (newValue == nil ? 0 : 1) - (had ? 1 : 0)
            recent.updateValue(newValue, forKey: id)
            changesSinceShared += 1
            if recent.count > recentLimit { fold() }
        }
    }

    /// Notes that a snapshot now shares the layers.
    package mutating func shared() {
        sharePeriod = (sharePeriod * 3 + Double(max(1, changesSinceShared))) / 4
        changesSinceShared = 0
    }

    private var recentLimit: Int {
        let best = Int((Double(count) * sharePeriod).squareRoot())
        return max(64, min(best, count / 2))
    }

    private mutating func fold() {
        base.reserveCapacity(count)
        for (id, entry) in recent { base[id] = entry }
        recent = [:]
    }
}

/// The ids inserted, updated and removed since a point, folded so that the result compares the
/// state now with the state then.
package struct ChangeAccumulator: Sendable {
    private var inserted: Set<String> = []
    private var updated: Set<String> = []
    private var removed: Set<String> = []

    package init() {}

    package var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && removed.isEmpty }

    package mutating func inserted(_ id: String) {
        if removed.remove(id) != nil { updated.insert(id) } else { inserted.insert(id) }
    }

    package mutating func updated(_ id: String) {
        if !inserted.contains(id) { updated.insert(id) }
    }

    package mutating func removed(_ id: String) {
        if inserted.remove(id) != nil { return }
        updated.remove(id)
        removed.insert(id)
    }

    package var change: PubNubLiveChange {
        PubNubLiveChange(inserted: inserted.sorted(), updated: updated.sorted(), removed: removed.sorted())
    }
}

/// The newest `capacity` tombstones by id; recording one again keeps the later bound and makes it
/// the newest. Amortized O(1).
package struct TombstoneMemory: Sendable {
    private struct Entry: Sendable {
        var bound: Date
        var stamp: UInt64
    }

    package let capacity: Int
    private var entries: [String: Entry] = [:]
    private var order: [(id: String, stamp: UInt64)] = []
    private var head = 0
    private var nextStamp: UInt64 = 0

    package init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    package var count: Int { entries.count }

    package subscript(id: String) -> Date? { entries[id]?.bound }

    package mutating func record(_ id: String, bound: Date) {
        guard capacity > 0 else { return }
        nextStamp &+= 1
        let kept = max(bound, entries[id]?.bound ?? bound)
        entries[id] = Entry(bound: kept, stamp: nextStamp)
        order.append((id, nextStamp))
        while entries.count > capacity, head < order.count {
            let oldest = order[head]
            head += 1
            if entries[oldest.id]?.stamp == oldest.stamp { entries[oldest.id] = nil }
        }
        compact()
    }

    package mutating func remove(_ id: String) {
        entries[id] = nil
    }

    /// Drops order records of rewritten or removed ids once they outnumber the live ones.
    private mutating func compact() {
        if order.count - head > 2 * capacity + 16 {
            order = order[head...].filter { entries[$0.id]?.stamp == $0.stamp }
            head = 0
        } else if head > 64, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
