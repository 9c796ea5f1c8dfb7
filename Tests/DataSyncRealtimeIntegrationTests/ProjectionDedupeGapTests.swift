import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Realtime
import Testing

@Suite(.timeLimit(.minutes(2)))
struct ProjectionEndToEndTests {
    @Test("the base and a named projection of one object each see their own subset", arguments: HTTPBackend.allCases)
    func twoProjectionsOfOneObject(_ backend: HTTPBackend) async throws {
        try await withRig(backend) { rig in
            let entity = rig.watcher.dataSyncEntity("c1")
            let base = entity.subscription()
            let stats = try entity.subscription(projection: "stats")
            let (baseInbox, statsInbox, client) = (record(base), record(stats), record(rig.watcher))
            try await rig.connect(["c1", "__stats__c1"]) {
                base.subscribe()
                stats.subscribe()
            }

            let created = try await rig.dataSync.createEntity(
                className: "Course", classVersion: 1, id: "c1", status: "open",
                payload: ["title": "Swift", "enrolled": 3, "notes": "n", "undeclared": true] as JSONValue)
            let updated = try await rig.dataSync.updateEntity(
                id: "c1", operations: [.replace(path: "/payload/enrolled", value: 4)])
            try await rig.dataSync.removeEntity(id: "c1")
            await rig.mark("end", on: ["c1", "__stats__c1"])

            let seenBase = await baseInbox.events(until: "end")
            let seenStats = await statsInbox.events(until: "end")
            try #require(seenBase.count == 3, "\(seenBase)")
            try #require(seenStats.count == 3, "\(seenStats)")
            #expect(
                seenBase.map { $0.customEntity?.payload } == [
                    ["title": "Swift", "notes": "n"], ["title": "Swift", "notes": "n"], nil,
                ])
            #expect(seenStats.map { $0.customEntity?.payload } == [["enrolled": 3], ["enrolled": 4], nil])
            // `/status` is declared nowhere, so only the base projection carries it.
            #expect(seenBase.first?.customEntity?.status == "open")
            #expect(seenStats.first?.customEntity?.status == nil)
            #expect(
                seenBase.allSatisfy { $0.projection == PubNubDataSyncEvent.defaultProjection && $0.channel == "c1" })
            #expect(seenStats.allSatisfy { $0.projection == "stats" && $0.channel == "__stats__c1" })
            // Unfiltered fields are the same on both.
            #expect(seenBase[1].entity?.eTag == updated.eTag)
            #expect(seenStats[1].entity?.eTag == updated.eTag)
            #expect(seenStats[0].entity?.updatedAt == created.updatedAt)
            #expect(seenBase[2].removed?.deletedAt == seenStats[2].removed?.deletedAt)

            // The client sees each projection's create and update, and the (unfiltered) delete once.
            let all = await client.events(until: "end")
            #expect(all.map(\.projection) == ["__default__", "stats", "__default__", "stats", "__default__"], "\(all)")
        }
    }
}

@Suite(.timeLimit(.minutes(2)))
struct DedupeEndToEndTests {
    @Test("a client on both sides of a membership gets each change once per receiver", arguments: HTTPBackend.allCases)
    func membershipSeenOncePerListener(_ backend: HTTPBackend) async throws {
        try await withRig(backend) { rig in
            let ds = rig.dataSync
            try await rig.seed(users: ["alice"], channels: ["general"])
            let entities = [rig.watcher.dataSyncEntity("alice"), rig.watcher.dataSyncEntity("general")]
            let set = rig.watcher.subscription(entities: entities)
            let everyCopy = rig.watcher.subscription(entities: entities)
            everyCopy.dataSyncDeduplication = .off
            let setInbox = record(set)
            let copiesInbox = record(everyCopy)
            let clientInbox = record(rig.watcher)
            let objectInbox = Inbox()
            rig.watcher.addListener(InboxListener(objectInbox))
            var streamed = set.dataSyncEvents().makeAsyncIterator()
            try await rig.connect(["alice", "general"]) {
                set.subscribe()
                everyCopy.subscribe()
            }

            let created = try await ds.createMembership(channelId: "general", userId: "alice", classVersion: 1)
            let updated = try await ds.updateMembership(
                id: created.id, operations: [.add(path: "/payload/role", value: "admin")])
            try await ds.removeMembership(id: created.id)
            await rig.mark("end", on: ["general"])

            let changes: [PubNubDataSyncChange] = [.relationshipCreated, .relationshipUpdated, .relationshipDeleted]
            for (name, inbox) in [("set", setInbox), ("client", clientInbox), ("listener object", objectInbox)] {
                let events = await inbox.events(until: "end")
                #expect(events.map(\.change) == changes, "\(name): \(events)")
                #expect(events.allSatisfy { $0.objectId == created.id })
            }
            // The stream of the set is filtered like its closures.
            var fromStream: [PubNubDataSyncEvent] = []
            while fromStream.count < 3, let event = await streamed.next() { fromStream.append(event) }
            #expect(fromStream.map(\.change) == changes)
            #expect(fromStream[1].membership == updated)

            // With dedupe off every channel's copy arrives: channel side first, then the user's.
            let copies = await copiesInbox.events(until: "end")
            #expect(copies.map(\.change) == changes.flatMap { [$0, $0] }, "\(copies)")
            #expect(copies.map(\.channel) == ["general", "alice", "general", "alice", "general", "alice"])
        }
    }
}

@Suite(.timeLimit(.minutes(2)))
struct GapEndToEndTests {
    @Test(
        "more events while disconnected than the catch-up buffer holds raise the gap signal",
        arguments: HTTPBackend.allCases)
    func catchUpOverflowRaisesGap(_ backend: HTTPBackend) async throws {
        let smallBuffer = PubSubConfiguration(catchUpBufferSize: 6)
        let lowThreshold: (inout PubNubConfiguration) -> Void = { $0.requestMessageCountThreshold = 5 }
        try await withRig(backend, pubSub: smallBuffer, configure: lowThreshold) { rig in
            let client = record(rig.watcher)
            let inbox = try #require(try await rig.watch(["alice"]).first)
            _ = try await rig.dataSync.createUser(classVersion: 1, id: "alice", payload: ["n": 0])
            await rig.mark("created", on: ["alice"])
            #expect((await inbox.events(until: "created")).map(\.change) == [.entityCreated])

            rig.watcher.disconnect()
            try await rig.status(.disconnected)
            for n in 1...10 {
                _ = try await rig.dataSync.updateUser(
                    id: "alice", operations: [.replace(path: "/payload/n", value: .int(Int64(n)))])
            }
            rig.watcher.reconnect()

            // The catch-up answer is delivered, then the signal that it may not be complete.
            let heard = await inbox.throughGap()
            #expect(heard.last?.gap?.reason == .tooManyEvents, "\(heard)")
            // The buffer kept only the latest updates: the first ones were lost, and the signal says so.
            let numbers = heard.compactMap { $0.event?.user?.payload?["n"]?.intValue }
            let first = try #require(numbers.first, "\(heard)")
            #expect(first > 1, "nothing was lost: \(heard)")
            #expect(numbers == Array(first...10), "\(heard)")
            #expect((await client.throughGap()).last?.gap?.reason == .tooManyEvents)

            // After the signal, events flow again with nothing else in between.
            _ = try await rig.dataSync.updateUser(id: "alice", operations: [.replace(path: "/payload/n", value: 11)])
            await rig.mark("end", on: ["alice"])
            let after = await inbox.events(until: "end")
            #expect(after.map { $0.user?.payload?["n"]?.intValue } == [11])
        }
    }

    @Test("a reconnection that cannot resume (restore off) raises the gap signal", arguments: HTTPBackend.allCases)
    func reconnectWithoutRestoreRaisesGap(_ backend: HTTPBackend) async throws {
        let noRestore: (inout PubNubConfiguration) -> Void = { $0.restore = false }
        try await withRig(backend, configure: noRestore) { rig in
            let subscription = rig.watcher.dataSyncEntity("alice").subscription()
            var updates = subscription.dataSyncUpdates().makeAsyncIterator()
            try await rig.connect(["alice"]) { subscription.subscribe() }
            _ = try await rig.dataSync.createUser(classVersion: 1, id: "alice")
            guard case .event(let created)? = await updates.next() else { throw RigFailure("no create event") }
            #expect(created.change == .entityCreated)

            rig.watcher.disconnect()
            try await rig.status(.disconnected)
            let missed = try await rig.dataSync.updateUser(
                id: "alice", operations: [.add(path: "/status", value: "away")])
            rig.watcher.reconnect()
            try await rig.status(.connected)
            let seen = try await rig.dataSync.updateUser(
                id: "alice", operations: [.add(path: "/status", value: "back")])

            guard case .gap(let gap)? = await updates.next() else { throw RigFailure("no gap signal") }
            #expect(gap.reason == .couldNotResume)
            #expect(gap.lastKnownTimetoken.map { $0 >= created.timetoken } == true)
            guard case .event(let next)? = await updates.next() else { throw RigFailure("no event after the gap") }
            #expect(next.entity?.eTag == seen.eTag)
            #expect(next.entity?.eTag != missed.eTag)
        }
    }
}
