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

extension LiveRig {
    /// Fires every reconnection timer the watcher's loop sets (each follows a status that says it
    /// will retry), until cancelled.
    func pumpReconnections() -> Task<Void, Never> {
        let statuses = self.statuses
        let clock = watcherClock
        return Task {
            var fired = 0
            while !Task.isCancelled {
                let next = fired + 1
                guard await statuses.wait(until: { $0.filter(\.willAutomaticallyRetry).count >= next }) else { return }
                fired = next
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(2))
            }
        }
    }
}

extension StatusLog {
    /// Waits until `condition` holds for every status so far.
    func wait(until condition: @escaping @Sendable ([PubNubStatus]) -> Bool) async -> Bool {
        await waitable.wait(until: condition)
    }
}

@Suite(.serialized, .timeLimit(.minutes(3)))
struct FaultEndToEndTests {
    @Test(
        "connections reset during long-polls: every view goes stale, reads again and converges, never backwards",
        arguments: HTTPBackend.allCases)
    func resetsDuringLongPoll(_ backend: HTTPBackend) async throws {
        try await withSeededLiveRig(backend) { rig in
            let (early, late) = try rig.probes(rig.watcher.liveViews)
            let probes = early + late
            for probe in probes { #expect(await probe.waitForFirst(), "\(probe.name)") }
            let pump = rig.pumpReconnections()
            // Three rounds, each queued while a long-poll is held and met by the next one once the
            // writes (two writers at once) answer the held one: a connection cut halfway through an
            // answer carrying events, then resets before the answer (of the long-poll and of every
            // resend the transport makes on its pooled connections; what is left meets the
            // reconnection handshakes), then a cut again.
            let faults: [(PubSubFault, Int)] = [(.resetDuringBody, 1), (.resetBeforeBody, 6), (.resetDuringBody, 1)]
            for (round, (fault, count)) in zip(1..., faults) {
                #expect(await eventually { rig.emulator.heldSubscribeCount >= 1 })
                rig.emulator.injectFault(fault, on: .subscribe, count: count)
                async let first: Void = World.randomWrites(
                    rig, by: rig.writers[0], seed: UInt64(10 + round), count: 25)
                async let second: Void = World.randomWrites(
                    rig, by: rig.writers[1], seed: UInt64(20 + round), count: 25)
                _ = await (first, second)
                #expect(await rig.statuses.wait(for: .unexpectedDisconnect, count: round), "round \(round)")
                #expect(await rig.statuses.wait(for: .reconnected, count: round), "round \(round)")
            }
            for probe in probes {
                try await probe.expectConverged(rig.dataSync, "\(backend)")
                #expect(probe.trail().contains("interrupted:unexpectedDisconnect"), "\(probe.name): \(probe.trail())")
            }
            pump.cancel()
        }
    }

    @Test(
        "more changes while away than the service's catch-up buffer holds: a gap, a read, convergence",
        arguments: HTTPBackend.allCases)
    func gapLargerThanBuffer(_ backend: HTTPBackend) async throws {
        let smallBuffer = PubSubConfiguration(catchUpBufferSize: 6)
        let lowThreshold: (inout PubNubConfiguration) -> Void = { $0.requestMessageCountThreshold = 5 }
        try await withSeededLiveRig(backend, pubSub: smallBuffer, configure: lowThreshold) { rig in
            var trusting = PubNubLiveViewOptions()
            trusting.rereadsAfterInterruption = false
            let views = rig.watcher.liveViews
            let probes = [
                // Trusts a resumed catch-up: only the gap signal makes it read again.
                Probe(
                    "memberships of general (trusts catch-ups)",
                    try views.memberships(ofChannel: "general", options: trusting)
                ) {
                    try await World.memberships($0, channel: "general")
                },
                Probe("user u1 (trusts catch-ups)", try views.user("u1", options: trusting)) {
                    try await World.user($0, "u1")
                },
                Probe("memberships of u1", try views.memberships(ofUser: "u1")) {
                    try await World.memberships($0, user: "u1")
                },
            ]
            for probe in probes { #expect(await probe.waitForFirst(), "\(probe.name)") }
            rig.watcher.disconnect()
            #expect(await rig.statuses.wait(for: .disconnected))
            let ds = rig.dataSync
            for step in 1...12 {
                await rig.tick()
                _ = try await ds.updateUser(id: "u1", operations: [.add(path: "/payload/n", value: .int(Int64(step)))])
                await rig.tick()
                await attempt {
                    _ = try await ds.updateMembership(
                        id: "general.f\(step)", operations: [.add(path: "/status", value: .string("away \(step)"))])
                }
            }
            await rig.tick()
            try await ds.removeMembership(id: "general.u1")
            await rig.tick()
            _ = try await ds.createMembership(channelId: "c1", userId: "u1", classVersion: 1, id: "c1.u1")
            rig.watcher.reconnect()
            for probe in probes {
                try await probe.expectConverged(ds, "\(backend)")
                #expect(probe.trail().contains("gap:tooManyEvents"), "\(probe.name): \(probe.trail())")
                #expect(probe.trail().contains("interrupted:disconnected"), "\(probe.name): \(probe.trail())")
            }
        }
    }

    @Test(
        "a reconnection that cannot catch up (restore off): a gap, a read, convergence (also joining a live loop)",
        arguments: HTTPBackend.allCases, [false, true])
    func reconnectionWithoutCatchUp(_ backend: HTTPBackend, loopAlreadyLive: Bool) async throws {
        let noRestore: (inout PubNubConfiguration) -> Void = { $0.restore = false }
        try await withSeededLiveRig(backend, configure: noRestore) { rig in
            if loopAlreadyLive {
                rig.watcher.subscribe(to: ["general"])
                #expect(await rig.statuses.wait(for: .connected))
            }
            var trusting = PubNubLiveViewOptions()
            trusting.rereadsAfterInterruption = false
            let probe = Probe(
                "memberships of general", try rig.watcher.liveViews.memberships(ofChannel: "general", options: trusting)
            ) {
                try await World.memberships($0, channel: "general")
            }
            #expect(await probe.waitForFirst())
            rig.watcher.disconnect()
            #expect(await rig.statuses.wait(for: .disconnected))
            await World.randomWrites(rig, by: rig.writers[0], seed: 99, count: 30)
            rig.watcher.reconnect()
            try await probe.expectConverged(rig.dataSync, "\(backend)")
            #expect(probe.trail().contains("gap:couldNotResume"), "\(probe.trail())")
        }
    }
}
