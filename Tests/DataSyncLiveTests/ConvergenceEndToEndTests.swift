import Auth
import DataSync
import DataSyncEmulator
import DataSyncLive
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Realtime
import Testing

/// One running view and the fresh REST read it must end up equal to.
struct Probe: Sendable {
    let name: String
    let converge: @Sendable (PubNubDataSync) async throws -> Bool
    let regressions: @Sendable () -> [String]
    let trail: @Sendable () -> [String]
    let ending: @Sendable () -> String?
    let snapshotCount: @Sendable () -> Int
    let cancel: @Sendable () -> Void

    init<Object: PubNubDataSyncObject>(
        _ name: String, _ view: PubNubLiveView<Object>,
        truth: @escaping @Sendable (PubNubDataSync) async throws -> [Object]
    ) {
        let log = SnapshotLog(view)
        self.name = name
        converge = { ds in await log.waitForConvergence(to: try await truth(ds)) }
        regressions = { log.regressions }
        trail = { log.stalenessTrail }
        ending = { log.ending }
        snapshotCount = { log.snapshots.count }
        cancel = { log.cancel() }
        waitForFirst = { await log.waitForAny { $0.isCurrent } }
        waitForStaleness = { reason in await log.waitForAny { $0.staleness?.reason == reason } }
    }

    /// Waits until a snapshot was current.
    let waitForFirst: @Sendable () async -> Bool
    /// Waits until a snapshot was stale for `reason`.
    let waitForStaleness: @Sendable (PubNubLiveStaleness.Reason) async -> Bool

    /// Waits until the view holds what a fresh read says, then checks no snapshot went back.
    func expectConverged(_ ds: PubNubDataSync, _ context: String) async throws {
        #expect(try await converge(ds), "\(context): \(name) never converged (\(trail()))")
        #expect(regressions().isEmpty, "\(context): \(name) showed an older value after a newer one: \(regressions())")
        #expect(ending() == nil, "\(context): \(name) ended: \(ending() ?? "")")
    }
}

extension LiveRig {
    /// Every kind of view, on the objects ``World`` writes.
    func probes(_ views: PubNubLiveViews) throws -> (early: [Probe], late: [Probe]) {
        let early = [
            Probe("user u1", try views.user("u1")) { try await World.user($0, "u1") },
            Probe("channel general", try views.channel("general")) { try await World.channel($0, "general") },
            Probe("entity p1", try views.entity("p1")) { try await World.entity($0, "p1") },
            Probe("memberships of channel general", try views.memberships(ofChannel: "general")) {
                try await World.memberships($0, channel: "general")
            },
        ]
        let late = [
            Probe("memberships of user u1", try views.memberships(ofUser: "u1")) {
                try await World.memberships($0, user: "u1")
            },
            Probe("Related relationships of p1", try views.relationships(of: "p1", className: "Related")) {
                try await World.relationships($0, of: "p1", className: "Related", side: .either)
            },
            Probe("Bought relationships of u1 (A)", try views.relationships(of: "u1", className: "Bought", side: .a)) {
                try await World.relationships($0, of: "u1", className: "Bought", side: .a)
            },
            Probe("Related relationships of p2 (B)", try views.relationships(of: "p2", className: "Related", side: .b))
            {
                try await World.relationships($0, of: "p2", className: "Related", side: .b)
            },
        ]
        return (early, late)
    }
}

@Suite(.serialized, .timeLimit(.minutes(3)))
struct ConvergenceEndToEndTests {
    @Test(
        "every kind of view converges to the service after random writes by two concurrent writers",
        arguments: HTTPBackend.allCases)
    func randomWrites(_ backend: HTTPBackend) async throws {
        try await withSeededLiveRig(backend) { rig in
            let (early, late) = try rig.probes(rig.watcher.liveViews)
            for probe in early {
                #expect(await probe.waitForFirst(), "\(probe.name) never became current")
            }
            // Two writers at once; the late views start while they write, so their first read
            // overlaps the writes and the events held back during it.
            async let first: Void = World.randomWrites(rig, by: rig.writers[0], seed: 11, count: 90)
            async let second: Void = World.randomWrites(rig, by: rig.writers[1], seed: 23, count: 90)
            for probe in late {
                #expect(await probe.waitForFirst(), "\(probe.name) never became current")
            }
            _ = await (first, second)
            for probe in early + late { try await probe.expectConverged(rig.dataSync, "\(backend)") }
            #expect(early[3].snapshotCount() > 1, "the memberships of general changed")
        }
    }

    @Test(
        "cancelling a view unsubscribes what it alone held; a channel another view needs stays",
        arguments: HTTPBackend.allCases)
    func cancellation(_ backend: HTTPBackend) async throws {
        try await withSeededLiveRig(backend) { rig in
            let views = rig.watcher.liveViews
            let members = Probe("members", try views.memberships(ofChannel: "general")) {
                try await World.memberships($0, channel: "general")
            }
            let channel = Probe("channel", try views.channel("general")) { try await World.channel($0, "general") }
            let user = Probe("user", try views.user("u1")) { try await World.user($0, "u1") }
            for probe in [members, channel, user] { #expect(await probe.waitForFirst()) }
            // The client's own subscription to the same channel is a holder too.
            rig.watcher.subscribe(to: ["u1"])
            #expect(Set(rig.watcher.subscribedChannels) == ["general", "u1"])

            members.cancel()
            await rig.tick()
            _ = try await rig.dataSync.updateChannel(id: "general", operations: [.add(path: "/payload/n", value: 1)])
            try await channel.expectConverged(rig.dataSync, "after cancelling the other view of general")
            #expect(Set(rig.watcher.subscribedChannels) == ["general", "u1"], "the channel view still holds general")
            channel.cancel()
            #expect(await eventually { rig.watcher.subscribedChannels == ["u1"] }, "\(rig.watcher.subscribedChannels)")
            user.cancel()
            #expect(await eventually { rig.watcher.liveViewsRegistrations == 0 })
            #expect(rig.watcher.subscribedChannels == ["u1"], "the client-level subscription still holds u1")
            rig.watcher.unsubscribe(from: ["u1"])
            #expect(rig.watcher.subscribedChannels.isEmpty)
        }
    }

    @Test("the closure form delivers the same snapshots, in order, until cancelled", arguments: HTTPBackend.allCases)
    func closureForm(_ backend: HTTPBackend) async throws {
        try await withSeededLiveRig(backend) { rig in
            let received = Waitable<[PubNubLiveSnapshot<PubNubDataSyncUser>]>([])
            let ended = Waitable<Bool>(false)
            let observation = try rig.watcher.liveViews.user("u1").observe(
                { snapshot in received.update { $0.append(snapshot) } }, onEnd: { _ in ended.update { $0 = true } })
            #expect(await received.wait { $0.last?.isCurrent == true })
            await rig.tick()
            let updated = try await rig.dataSync.updateUser(id: "u1", operations: [.add(path: "/payload/n", value: 5)])
            #expect(await received.wait { $0.last?.value == updated })
            #expect(received.value.last?.change == PubNubLiveChange(updated: ["u1"]))
            await rig.tick()
            try await rig.dataSync.removeUser(id: "u1")
            #expect(await received.wait { $0.last?.value == nil })
            #expect(received.value.last?.change == PubNubLiveChange(removed: ["u1"]))
            #expect(received.value.map(\.sequence) == Array(1...received.value.count))
            observation.cancel()
            #expect(await ended.wait { $0 })
            #expect(observation.isCancelled)
            #expect(await eventually { rig.watcher.subscribedChannels.isEmpty })
        }
    }

    @Test("a projection view names its projection and shows only that projection's fields from events")
    func projectionEvents() async throws {
        try await withLiveRig(.curl) { rig in
            await rig.tick()
            _ = try await rig.dataSync.createEntity(
                className: "Course", classVersion: 1, id: "course",
                payload: ["title": "Swift", "enrolled": 1] as JSONValue)
            let view = try rig.watcher.liveViews.entity("course", projection: "stats")
            #expect(view.channel == "__stats__course")
            #expect(view.projection == "stats")
            let log = SnapshotLog(view)
            #expect(await log.waitForLast { $0.isCurrent })
            #expect(log.last?.projection == "stats")
            await rig.tick()
            let updated = try await rig.dataSync.updateEntity(
                id: "course", operations: [.replace(path: "/payload/enrolled", value: 2)])
            #expect(await log.waitForLast { $0.value?.eTag == updated.eTag })
            #expect(log.last?.value?.payload == ["enrolled": 2], "the title is not part of the stats projection")
        }
    }

    @Test("releasing the client ends its views; unsubscribeAll() ends them too", arguments: HTTPBackend.allCases)
    func endsWithTheClient(_ backend: HTTPBackend) async throws {
        try await withSeededLiveRig(backend) { rig in
            var client: PubNub? = PubNub(configuration: rig.watcher.configuration)
            let released = SnapshotLog(try #require(client).liveViews.user("u1"))
            #expect(await released.waitForLast { $0.isCurrent })
            client = nil
            #expect(await released.waitUntilEnded() == "finished")

            let unsubscribed = SnapshotLog(try rig.watcher.liveViews.memberships(ofUser: "u1"))
            #expect(await unsubscribed.waitForLast { $0.isCurrent })
            rig.watcher.unsubscribeAll()
            #expect(await unsubscribed.waitUntilEnded() == "finished")
            #expect(rig.watcher.subscribedChannels.isEmpty)
        }
    }

    @Test("arguments are checked when the view is made")
    func arguments() throws {
        let pubnub = PubNub(
            configuration: PubNubConfiguration(publishKey: nil, subscribeKey: "demo", userId: "me"))
        let views = pubnub.liveViews
        #expect(throws: PubNubError.self) { try views.user("") }
        #expect(throws: PubNubError.self) { try views.entity("e", projection: "__admin__") }
        #expect(throws: PubNubError.self) { try views.relationships(of: "e", className: "") }
        #expect(throws: PubNubError.self) { try views.memberships(ofChannel: "") }
        #expect(try views.user("u", projection: "__default__").channel == "u")
        #expect(try views.relationships(of: "p1", className: "Related", side: .a).description.contains("side A"))
        #expect(try views.memberships(ofUser: "alice").description == "PubNubLiveView(memberships of user alice)")
    }
}

extension PubNub {
    /// How many running views listen for token changes (each run registers once).
    var liveViewsRegistrations: Int { liveViewsComponent.registeredCount }
}
