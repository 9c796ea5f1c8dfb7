import DataSyncLive
import DataSyncModels
import DataSyncTestSupport
import Foundation
import Testing

@Suite("View storage: one element per object, and a snapshot costs the changes after it a chunk each")
struct ViewStorageTests {
    typealias Store = LiveViewStore<PubNubDataSyncMembership>

    static let size = 10_000

    /// `count` memberships with ids `m00000`, `m00001`, … (ascending as strings).
    static func read(_ count: Int, updated: Double = 1) -> [PubNubDataSyncMembership] {
        (0..<count).map { index in
            membership(id(index), user: "user-\(index)", created: 1, updated: updated)
        }
    }

    static func id(_ index: Int) -> String {
        let digits = String(index)
        return "m" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }

    @Test("a read of 10,000 keeps one element per object plus a small index, not a hash table of elements")
    func memoryPerObject() {
        var store = Store(tombstoneCapacity: 10)
        var shuffler = SeededRandomNumberGenerator(seed: 3)
        store.applyRead(Self.read(Self.size).shuffled(using: &shuffler))
        #expect(store.count == Self.size)
        let perObject = Double(store.objects.allocatedBytes) / Double(Self.size)
        let element = Double(MemoryLayout<PubNubDataSyncMembership>.stride)
        // A `[String: Element]` holds a key and an element in every bucket, and at most three
        // quarters of the buckets are full: 1.64 × (16 + element) at 10,000.
        #expect(perObject <= element + 48, "bytes per object: \(perObject), element: \(element)")

        // The same held by events, one at a time.
        var byEvents = Store(tombstoneCapacity: 10)
        for object in Self.read(Self.size).shuffled(using: &shuffler) { byEvents.apply(.upsert(object)) }
        let eventPerObject = Double(byEvents.objects.allocatedBytes) / Double(Self.size)
        #expect(eventPerObject <= element + 48, "bytes per object: \(eventPerObject), element: \(element)")
        #expect(byEvents.ids == store.ids)
    }

    @Test("with a snapshot held every 100 updates, an update copies about one chunk, not the view")
    func snapshotCopies() {
        var store = Store(tombstoneCapacity: 10)
        store.applyRead(Self.read(Self.size))
        _ = store.takeChange()
        var generator = SeededRandomNumberGenerator(seed: 7)
        let copiedBefore = store.objects.copiedEntries
        var held: [Store] = []
        let updates = 2_000
        for step in 1...updates {
            let index = Int.random(in: 0..<Self.size, using: &generator)
            store.apply(
                .upsert(membership(Self.id(index), user: "user-\(index)", created: 1, updated: 1 + Double(step))))
            if step % 100 == 0 {
                _ = store.takeChange()
                // The reader keeps the snapshot it has while the view moves on.
                held = [store]
            }
        }
        withExtendedLifetime(held) {}
        let perUpdate = Double(store.objects.copiedEntries - copiedBefore) / Double(updates)
        let chunk = Double(ViewObjects<PubNubDataSyncMembership>.chunkSize)
        // One chunk per update at most, plus the chunk list once per snapshot.
        let bound = chunk + Double(Self.size) / chunk / 100
        #expect(perUpdate > 0, "the held snapshots were shared, so something was copied")
        #expect(perUpdate <= bound, "entries copied per update: \(perUpdate), bound \(bound)")
    }

    @Test("a snapshot keeps the state it was taken in while the store changes, removes and repacks")
    func snapshotsAreStable() {
        var store = Store(tombstoneCapacity: 0)
        store.applyRead(Self.read(1_000))
        _ = store.takeChange()
        let before = store
        for index in stride(from: 0, to: 1_000, by: 2) {
            store.apply(.delete(id: Self.id(index), deletedAt: at(5)))
        }
        for index in stride(from: 1, to: 1_000, by: 4) {
            store.apply(.upsert(membership(Self.id(index), user: "moved", created: 1, updated: 6)))
        }
        store.apply(.upsert(membership("n1", user: "new", created: 7)))
        // The removals freed half the slots, so the storage was packed again on the way.
        #expect(before.count == 1_000)
        #expect(before.objects[Self.id(0)]?.userId == "user-0")
        #expect(before.objects[Self.id(1)]?.userId == "user-1")
        #expect(store.count == 501)
        #expect(store.objects[Self.id(0)] == nil)
        #expect(store.objects[Self.id(1)]?.userId == "moved")
        #expect(store.objects[Self.id(3)]?.userId == "user-3")
        #expect(store.objects["n1"]?.userId == "new")
        #expect(store.ids.count == 501 && store.ids.allSatisfy { store.objects[$0] != nil })
        #expect(store.ids == store.ids.sorted())
        let change = store.takeChange()
        #expect(change.removed.count == 500 && change.updated.count == 250 && change.inserted == ["n1"])
    }

    @Test("a read with duplicates keeps the newer version, and of two equal versions the first")
    func readDuplicates() {
        var store = Store(tombstoneCapacity: 10)
        store.applyRead([
            membership("b", user: "first", created: 1, updated: 2, eTag: "x"),
            membership("a", user: "old", created: 1, updated: 1),
            membership("b", user: "second", created: 1, updated: 2, eTag: "x"),
            membership("a", user: "new", created: 1, updated: 3),
        ])
        #expect(store.ids == ["a", "b"])
        #expect(store.objects["a"]?.userId == "new")
        #expect(store.objects["b"]?.userId == "first")
    }

    /// The change bookkeeping as it was kept before updates went to a log: three sets, each
    /// operation folding into them at once. The log must report what this reports.
    struct EagerChange {
        var inserted: Set<String> = []
        var updated: Set<String> = []
        var removed: Set<String> = []

        mutating func insert(_ id: String) {
            if removed.remove(id) != nil { updated.insert(id) } else { inserted.insert(id) }
        }

        mutating func update(_ id: String) {
            if !inserted.contains(id) { updated.insert(id) }
        }

        mutating func remove(_ id: String) {
            if inserted.remove(id) != nil { return }
            updated.remove(id)
            removed.insert(id)
        }

        var change: PubNubLiveChange {
            PubNubLiveChange(inserted: inserted.sorted(), updated: updated.sorted(), removed: removed.sorted())
        }
    }

    @Test("the update log reports the same change as eager sets, over random inserts, updates and removals")
    func changeLogMatchesEagerSets() {
        var generator = SeededRandomNumberGenerator(seed: 11)
        var accumulator = ChangeAccumulator()
        var eager = EagerChange()
        // Which of 40 ids are held; the accumulator is only told what a store would tell it.
        var held = Set((0..<20).map { "i\($0)" })
        var compared = 0
        for step in 0..<20_000 {
            let id = "i\(Int.random(in: 0..<40, using: &generator))"
            if held.contains(id) {
                if Int.random(in: 0..<3, using: &generator) == 0 {
                    held.remove(id)
                    accumulator.removed(id)
                    eager.remove(id)
                } else {
                    accumulator.updated(id)
                    eager.update(id)
                }
            } else {
                held.insert(id)
                accumulator.inserted(id)
                eager.insert(id)
            }
            #expect(accumulator.isEmpty == eager.change.isEmpty)
            if Int.random(in: 0..<(step < 10_000 ? 50 : 3_000), using: &generator) == 0 {
                #expect(accumulator.change == eager.change, "step \(step)")
                accumulator.reset()
                eager = EagerChange()
                compared += 1
            }
        }
        #expect(accumulator.change == eager.change)
        #expect(compared > 100)
    }

    @Test("updates nobody takes keep the log near the ids it names, however many there are")
    func changeLogIsBounded() {
        var accumulator = ChangeAccumulator()
        for step in 0..<100_000 { accumulator.updated("u\(step % 300)") }
        // Folding keeps it under twice the distinct ids plus the fold's floor.
        #expect(accumulator.loggedUpdates <= 2 * 300 + 1_024, "logged: \(accumulator.loggedUpdates)")
        #expect(accumulator.change.updated == (0..<300).map { "u\($0)" }.sorted())
        for step in 0..<300 where step % 2 == 0 { accumulator.removed("u\(step)") }
        #expect(accumulator.change.updated == (0..<300).filter { $0 % 2 == 1 }.map { "u\($0)" }.sorted())
        #expect(accumulator.change.removed.count == 150)
    }
}
