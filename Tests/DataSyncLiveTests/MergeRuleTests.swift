import DataSyncLive
import DataSyncModels
import Foundation
import Testing

@Suite("Merge rules: newest version wins, deletes leave bounded tombstones, reads are the truth")
struct MergeRuleTests {
    typealias Store = LiveViewStore<PubNubDataSyncMembership>

    @Test("a newer updatedAt replaces; an older one or the same version is ignored; the eTag breaks a tie")
    func versionOrder() {
        var store = Store(tombstoneCapacity: 10)
        let v1 = membership("m1", user: "u1", created: 1, updated: 1, eTag: "b")
        let v2 = membership("m1", user: "u1", created: 1, updated: 2, eTag: "a", status: "two")
        store.apply(.upsert(v2))
        store.apply(.upsert(v1))
        #expect(store.objects["m1"] == v2, "an older version never moves the value back")
        store.apply(.upsert(v2))
        #expect(store.takeChange() == PubNubLiveChange(inserted: ["m1"]), "a duplicate changes nothing")

        let tieLow = membership("m1", user: "u1", created: 1, updated: 2, eTag: "0", status: "low")
        let tieHigh = membership("m1", user: "u1", created: 1, updated: 2, eTag: "z", status: "high")
        store.apply(.upsert(tieHigh))
        store.apply(.upsert(tieLow))
        #expect(store.objects["m1"]?.status == "high", "same updatedAt: the larger eTag wins, in any order")
        #expect(store.takeChange() == PubNubLiveChange(updated: ["m1"]))
        #expect(PubNubLiveVersion.isNewer(tieHigh, than: tieLow))
        #expect(!PubNubLiveVersion.isNewer(tieLow, than: tieHigh))
        #expect(!PubNubLiveVersion.isNewer(v1, than: v2))
    }

    @Test("a delete removes the object; a late copy of the deleted incarnation cannot bring it back")
    func tombstones() {
        var store = Store(tombstoneCapacity: 10)
        store.apply(.upsert(membership("m1", user: "u1", created: 1, updated: 3)))
        _ = store.takeChange()
        store.apply(.delete(id: "m1", deletedAt: at(5)))
        #expect(store.objects["m1"] == nil)
        #expect(store.tombstone("m1") == at(5))
        // An update of the same incarnation, even one newer than anything the view held.
        store.apply(.upsert(membership("m1", user: "u1", created: 1, updated: 4)))
        #expect(store.objects["m1"] == nil, "a replayed update of a deleted object stays deleted")
        // A delete for an id the view never held still blocks a late create of it.
        store.apply(.delete(id: "m2", deletedAt: at(6)))
        store.apply(.upsert(membership("m2", user: "u2", created: 2, updated: 2)))
        #expect(store.objects["m2"] == nil)
        #expect(store.takeChange() == PubNubLiveChange(removed: ["m1"]), "m2 was never shown")

        // The id created again after the delete is a new incarnation: it is shown.
        let again = membership("m1", user: "u1", created: 7, updated: 7)
        store.apply(.upsert(again))
        #expect(store.objects["m1"] == again)
        #expect(store.tombstone("m1") == nil)
        // A late delete of the old incarnation does not remove the new one.
        store.apply(.delete(id: "m1", deletedAt: at(5)))
        #expect(store.objects["m1"] == again)
        #expect(store.takeChange() == PubNubLiveChange(inserted: ["m1"]))
    }

    @Test("tombstones are bounded: the oldest are forgotten first, a rewritten one keeps the later bound")
    func tombstoneBound() {
        var store = Store(tombstoneCapacity: 3)
        for index in 0..<10 { store.apply(.delete(id: "m\(index)", deletedAt: at(Double(index)))) }
        #expect(store.tombstoneCount == 3)
        #expect(store.tombstone("m9") == at(9))
        #expect(store.tombstone("m6") == nil)
        store.apply(.delete(id: "m7", deletedAt: at(2)))
        #expect(store.tombstone("m7") == at(7), "the later of two bounds")
        store.apply(.delete(id: "m10", deletedAt: at(10)))
        #expect(store.tombstone("m8") == nil, "m7 was rewritten, so m8 is now the oldest")
        #expect(store.tombstone("m7") == at(7))
        var none = Store(tombstoneCapacity: 0)
        none.apply(.delete(id: "m1", deletedAt: at(1)))
        #expect(none.tombstoneCount == 0)
    }

    @Test("a read inserts, refreshes older held values, keeps newer ones, removes what it lacks")
    func readMerge() {
        var store = Store(tombstoneCapacity: 10)
        store.apply(.upsert(membership("a", user: "u1", created: 1, updated: 1)))
        store.apply(.upsert(membership("b", user: "u2", created: 1, updated: 9)))
        store.apply(.upsert(membership("c", user: "u3", created: 2, updated: 2)))
        _ = store.takeChange()
        store.apply(.delete(id: "d", deletedAt: at(3)))
        store.applyRead([
            membership("a", user: "u1", created: 1, updated: 5),
            membership("b", user: "u2", created: 1, updated: 4),
            membership("d", user: "u4", created: 8, updated: 8),
            membership("e", user: "u5", created: 1, updated: 1),
        ])
        #expect(store.ids == ["a", "b", "d", "e"])
        #expect(store.objects["a"]?.updatedAt == at(5))
        #expect(store.objects["b"]?.updatedAt == at(9), "the held version is newer than the read's")
        #expect(store.objects["d"] != nil, "what the read returns clears the tombstones recorded before it")
        #expect(store.takeChange() == PubNubLiveChange(inserted: ["d", "e"], updated: ["a"], removed: ["c"]))
        // c was deleted while the view could not see it: a replayed update of it cannot bring it back…
        store.apply(.upsert(membership("c", user: "u3", created: 2, updated: 3)))
        #expect(store.objects["c"] == nil)
        // …but c created again later is shown.
        store.apply(.upsert(membership("c", user: "u3", created: 10, updated: 10)))
        #expect(store.objects["c"] != nil)
    }

    @Test("a deleted endpoint takes the links the service cascades, not newer incarnations")
    func cascade() {
        var store = Store(tombstoneCapacity: 10)
        store.apply(.upsert(membership("m1", user: "alice", created: 1)))
        store.apply(.upsert(membership("m2", user: "bob", created: 1)))
        store.apply(.upsert(membership("m3", user: "alice", created: 9)))
        store.apply(.deleteLinked(deletedAt: at(5)) { $0.userId == "alice" })
        #expect(store.ids == ["m2", "m3"], "m3 was created after alice's delete")
        // The cascaded delete event arriving later changes nothing more, and a late update is blocked.
        store.apply(.delete(id: "m1", deletedAt: at(5)))
        store.apply(.upsert(membership("m1", user: "alice", created: 1, updated: 2)))
        #expect(store.ids == ["m2", "m3"])
    }

    @Test("objects are kept in ascending id order; changes fold against the last snapshot")
    func orderAndFolding() {
        var store = Store(tombstoneCapacity: 10)
        for id in ["m5", "m1", "m9", "m3"] { store.apply(.upsert(membership(id, user: id, created: 1))) }
        #expect(store.ids == ["m1", "m3", "m5", "m9"])
        _ = store.takeChange()
        store.apply(.upsert(membership("m4", user: "x", created: 1)))
        store.apply(.delete(id: "m4", deletedAt: at(2)))
        store.apply(.delete(id: "m1", deletedAt: at(2)))
        store.apply(.upsert(membership("m1", user: "y", created: 3)))
        store.apply(.upsert(membership("m3", user: "m3", created: 1, updated: 4)))
        store.apply(.delete(id: "m3", deletedAt: at(5)))
        #expect(
            store.takeChange() == PubNubLiveChange(updated: ["m1"], removed: ["m3"]),
            "m4 came and went unseen; m1 went and came back")
        #expect(store.ids == ["m1", "m5", "m9"])
    }
}
