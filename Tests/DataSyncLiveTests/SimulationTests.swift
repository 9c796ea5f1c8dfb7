import DataSyncLive
import DataSyncModels
import DataSyncTestSupport
import Foundation
import PubNubCore
import Realtime
import Testing

/// A model of the service for the memberships of `general`: random writes (creates, re-creates,
/// updates, deletes, user deletes that cascade), each producing the events the channel would get.
struct ModelService {
    var memberships: [String: PubNubDataSyncMembership] = [:]
    var now = 0.0
    var revision = 0
    var rng: SeededRandomNumberGenerator
    let users = ["u0", "u1", "u2", "u3", "u4"]

    init(seed: UInt64) { rng = SeededRandomNumberGenerator(seed: seed) }

    /// One random write and the events it publishes on `general`, in order.
    mutating func write() -> [PubNubDataSyncEvent] {
        now += 0.001
        revision += 1
        let eTag = String(format: "%06d", revision)
        let roll = Int.random(in: 0..<10, using: &rng)
        let existing = memberships.keys.sorted()
        if roll < 4 || existing.isEmpty {
            // Create, sometimes reusing an id that was deleted before (a new incarnation).
            let id = "m\(Int.random(in: 0..<12, using: &rng))"
            guard memberships[id] == nil else { return [] }
            let user = World.pick(users, &rng)
            let created = membership(id, user: user, created: now, eTag: eTag)
            memberships[id] = created
            return [Events.upsert(created, created: true)]
        }
        let id = World.pick(existing, &rng)
        guard let held = memberships[id] else { return [] }
        switch roll {
        case 4..<8:
            var updated = held
            updated.updatedAt = at(now)
            updated.eTag = eTag
            updated.status = "s\(revision)"
            memberships[id] = updated
            return [Events.upsert(updated)]
        case 8:
            memberships[id] = nil
            return [Events.deleteMembership(id, at: now)]
        default:
            // Removing a user removes its memberships: the user's delete fans out to the channel,
            // then one delete per cascaded membership.
            let user = held.userId
            let cascaded = memberships.values.filter { $0.userId == user }.map(\.id).sorted()
            for gone in cascaded { memberships[gone] = nil }
            return [Events.deleteEntity(user, kind: .user, at: now)]
                + cascaded.map { Events.deleteMembership($0, at: now) }
        }
    }
}

@Suite("Merge and ordering rules against a model service: duplicates, replays, losses and reads")
struct SimulationTests {
    @Test("the view converges to the service and never shows an older version", arguments: Array(UInt64(1)...24))
    func converges(seed: UInt64) throws {
        var service = ModelService(seed: seed)
        var rng = SeededRandomNumberGenerator(seed: seed &* 7919)
        var driver = try Driver()
        var delivered: [PubNubDataSyncEvent] = []
        var pendingRead = driver.readGeneration(driver.send(.started(isReceiving: true)))
        var pendingReadState: [PubNubDataSyncMembership]? = Array(service.memberships.values)

        func answerRead() {
            guard let generation = pendingRead, let state = pendingReadState else { return }
            pendingRead = nil
            pendingReadState = nil
            if let next = driver.readGeneration(driver.send(.readSucceeded(generation: generation, state))) {
                pendingRead = next
                pendingReadState = Array(service.memberships.values)
            }
        }

        for _ in 0..<400 {
            let events = service.write()
            let lose = Int.random(in: 0..<40, using: &rng) == 0
            if lose {
                // Lost in transit; the loop notices and says so.
                if let next = driver.readGeneration(driver.send(.gap(Events.gap()))) {
                    pendingRead = next
                    pendingReadState = nil
                }
            } else {
                for event in events {
                    driver.send(.event(event))
                    delivered.append(event)
                    if Int.random(in: 0..<12, using: &rng) == 0 {
                        driver.send(.event(event))  // a copy at once
                    }
                }
            }
            // A read in flight sees the state at some moment after it began.
            if pendingRead != nil, pendingReadState == nil || Bool.random(using: &rng) {
                pendingReadState = Array(service.memberships.values)
            }
            if pendingRead != nil, Int.random(in: 0..<3, using: &rng) == 0 { answerRead() }
            switch Int.random(in: 0..<30, using: &rng) {
            case 0:
                // A reconnection: a read, and the catch-up replays what came since an older cursor.
                driver.send(.status(Events.status(.unexpectedDisconnect, isError: true), isReceiving: false))
                if let next = driver.readGeneration(
                    driver.send(.status(Events.status(.reconnected), isReceiving: true)))
                {
                    pendingRead = next
                    pendingReadState = Array(service.memberships.values)
                }
                let back = Int.random(in: 0...min(30, delivered.count), using: &rng)
                for event in delivered.suffix(back) { driver.send(.event(event)) }
            case 1:
                // A late copy of something long past.
                if let old = delivered.randomElement(using: &rng) { driver.send(.event(old)) }
            default:
                break
            }
        }
        // Let every read finish, with the final state.
        while pendingRead != nil {
            pendingReadState = Array(service.memberships.values)
            answerRead()
        }
        let last = try #require(driver.last)
        #expect(last.isCurrent, "seed \(seed): \(String(describing: last.staleness))")
        #expect(last.values == service.memberships.values.sorted { $0.id < $1.id }, "seed \(seed)")
        #expect(regressions(driver.snapshots).isEmpty, "seed \(seed): \(regressions(driver.snapshots))")
    }

    func regressions(_ snapshots: [PubNubLiveSnapshot<PubNubDataSyncMembership>]) -> [String] {
        var newest: [String: PubNubDataSyncMembership] = [:]
        var found: [String] = []
        for snapshot in snapshots {
            for object in snapshot {
                if let seen = newest[object.id], PubNubLiveVersion.isNewer(seen, than: object) {
                    found.append("\(snapshot.sequence): \(object.id) \(seen.eTag) → \(object.eTag)")
                }
                if newest[object.id].map({ PubNubLiveVersion.isNewer(object, than: $0) }) ?? true {
                    newest[object.id] = object
                }
            }
        }
        return found
    }
}
