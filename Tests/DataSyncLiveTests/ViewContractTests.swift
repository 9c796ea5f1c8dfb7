import DataSyncLive
import DataSyncModels
import Foundation
import PubNubCore
import Realtime
import Testing

/// A membership update that carries only the link's id and sides, as some senders publish it.
private func sidesOnlyUpdate(_ id: String, user: String) -> PubNubDataSyncEvent {
    PubNubDataSyncEvent(
        change: .relationshipUpdated, kind: .membership,
        relationship: PubNubDataSyncRelationshipEvent(
            kind: .membership, id: id, entityAId: "general", entityBId: user, className: "Membership",
            classVersion: 1),
        className: "Membership", channel: "general", timetoken: 9)
}

/// A machine for the memberships of `general` that has read `objects` and is current.
private func currentMachine(_ objects: [PubNubDataSyncMembership]) throws -> Driver {
    var driver = try Driver()
    let effects = driver.send(.status(Events.status(.connected), isReceiving: true))
    let read = try #require(driver.readGeneration(effects))
    driver.send(.readSucceeded(generation: read, objects))
    return driver
}

@Suite("Live views: what sequence numbers and incomplete events mean")
struct ViewContractTests {
    @Test("a reader that takes every state sees 1, 2, 3, …; a slow one sees jumps over the states it missed")
    func sequenceCountsStates() throws {
        let updates = (1...9).map { step in
            Events.upsert(membership("m1", user: "u1", created: 1, updated: 1 + Double(step)))
        }
        // Fast: a snapshot after every input.
        var fast = try currentMachine([membership("m1", user: "u1", created: 1)])
        for event in updates { fast.send(.event(event)) }
        #expect(fast.snapshots.map(\.sequence) == Array(1...10), "the read, then one state per update")

        // Slow: the same inputs, a snapshot after every third.
        var slow = try Driver()
        var taken: [Int] = []
        let effects = slow.machine.handle(.status(Events.status(.connected), isReceiving: true))
        let read = try #require(slow.readGeneration(effects))
        _ = slow.machine.handle(.readSucceeded(generation: read, [membership("m1", user: "u1", created: 1)]))
        taken.append(slow.machine.takeSnapshot().sequence)
        for (index, event) in updates.enumerated() {
            _ = slow.machine.handle(.event(event))
            if index % 3 == 2, slow.machine.hasNews { taken.append(slow.machine.takeSnapshot().sequence) }
        }
        #expect(taken == [1, 4, 7, 10], "each jump of 3 says two states were merged into the snapshot")
        // Inputs that change nothing (an old version again) make no state.
        _ = slow.machine.handle(.event(updates[0]))
        #expect(!slow.machine.hasNews)
        _ = slow.machine.handle(.event(Events.upsert(membership("m1", user: "u1", created: 1, updated: 20))))
        #expect(slow.machine.takeSnapshot().sequence == 11)
    }

    @Test("an event that left out timestamps and eTag never invents them: the view keeps its values and reads again")
    func incompleteEventRereads() throws {
        let held = membership("m1", user: "u1", created: 1, updated: 2, status: "here")
        var driver = try currentMachine([held])
        let effects = driver.send(.event(sidesOnlyUpdate("m1", user: "u1")))
        let reread = try #require(driver.readGeneration(effects), "the view reads again")
        let stale = try #require(driver.last)
        #expect(stale.staleness?.reason == .incompleteEvent)
        #expect(stale.staleness?.detail.contains("createdAt, updatedAt, eTag") == true)
        #expect(stale.values == [held], "nothing was filled in with a guess")
        let current = membership("m1", user: "u1", created: 1, updated: 3, status: "away")
        driver.send(.readSucceeded(generation: reread, [current]))
        #expect(driver.last?.staleness == nil)
        #expect(driver.last?.values == [current])
        // One about another channel's memberships is not the view's business.
        let other = PubNubDataSyncEvent(
            change: .relationshipUpdated, kind: .membership,
            relationship: PubNubDataSyncRelationshipEvent(
                kind: .membership, id: "x1", entityAId: "random", entityBId: "u1"),
            channel: "general", timetoken: 10)
        #expect(driver.send(.event(other)).isEmpty)
        #expect(driver.last?.staleness == nil)
    }

    @Test("a delete without deletedAt makes the view read again rather than guess a tombstone")
    func deleteWithoutDate() throws {
        var driver = try currentMachine([membership("m1", user: "u1", created: 1)])
        let delete = PubNubDataSyncEvent(
            change: .relationshipDeleted, kind: .membership,
            removed: PubNubDataSyncRemovedObject(id: "m1", deletedAt: nil, endpoints: .unknown),
            channel: "general", timetoken: 11)
        let effects = driver.send(.event(delete))
        let reread = try #require(driver.readGeneration(effects))
        #expect(driver.last?.staleness?.detail.contains("deletedAt") == true)
        driver.send(.readSucceeded(generation: reread, []))
        #expect(driver.last?.values.isEmpty == true)
        #expect(driver.last?.staleness == nil)
    }

    @Test("an incomplete event held during a read owes one more read once it is merged")
    func incompleteDuringRead() throws {
        var driver = try Driver()
        let effects = driver.send(.status(Events.status(.connected), isReceiving: true))
        let first = try #require(driver.readGeneration(effects))
        driver.send(.event(sidesOnlyUpdate("m1", user: "u1")))
        let merged = driver.send(.readSucceeded(generation: first, [membership("m1", user: "u1", created: 1)]))
        let second = try #require(driver.readGeneration(merged), "the held event may be newer than the read")
        #expect(driver.last?.staleness?.reason == .incompleteEvent)
        driver.send(.readSucceeded(generation: second, [membership("m1", user: "u1", created: 1, updated: 5)]))
        #expect(driver.last?.staleness == nil)
    }
}
