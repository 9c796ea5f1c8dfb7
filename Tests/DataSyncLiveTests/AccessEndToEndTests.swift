import DataSync
import DataSyncEmulator
import DataSyncLive
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Realtime
import Testing

@Suite(.serialized, .timeLimit(.minutes(3)))
struct AccessEndToEndTests {
    static let keyset = PubSubKeyset.protected(publishKey: "pub-live", subscribeKey: "sub-live", secretKey: "sec-live")

    /// Everything, for the writers.
    static let everything: [String: [String: Int]] = [
        "channels": ["^.*$": 255], "uuids": ["^.*$": 255], "datasync:entities": ["^.*$": 255],
        "datasync:relationships": ["^.*$": 255], "datasync:memberships": ["^.*$": 255],
    ]

    /// What the watcher may do: subscribe to every channel and read channels, memberships and
    /// entities; users too when `users` is set. Reads of `course` show its `stats` projection.
    static func watcherGrant(users: Bool) -> [String: [String: Int]] {
        var grant: [String: [String: Int]] = [
            "channels": ["^.*$": 1 | 32], "datasync:memberships": ["^.*$": 32], "datasync:entities": ["^.*$": 32],
        ]
        if users { grant["uuids"] = ["^.*$": 32] }
        return grant
    }

    static let projections: JSONValue = ["pn-projections": ["res": ["datasync:entities:course": "stats"]]]

    @Test(
        "403 to the subscribe loop and to reads, then a new token: stale, read again, converged, never backwards",
        arguments: HTTPBackend.allCases)
    func deniedThenNewToken(_ backend: HTTPBackend) async throws {
        try await withLiveRig(backend, keyset: Self.keyset) { rig in
            let server = try rig.accessManager(secretKey: Self.keyset.secretKey)
            let writerToken = try await server.grantToken(ttlMinutes: 60, patterns: Self.everything)
            for writer in rig.writers { writer.set(token: writerToken) }
            let first = try await server.grantToken(
                ttlMinutes: 60, patterns: Self.watcherGrant(users: false), meta: Self.projections)
            rig.watcher.set(token: first)
            try await World.seed(rig)
            await rig.tick()
            _ = try await rig.dataSync.createEntity(
                className: "Course", classVersion: 1, id: "course",
                payload: ["title": "Swift", "enrolled": 1] as JSONValue)

            let views = rig.watcher.liveViews
            let members = Probe("memberships of general", try views.memberships(ofChannel: "general")) {
                try await World.memberships($0, channel: "general")
            }
            let user = Probe("user u1", try views.user("u1")) { try await World.user($0, "u1") }
            let stats = SnapshotLog(try views.entity("course", projection: "stats"))
            #expect(await members.waitForFirst())
            #expect(await stats.waitForLast { $0.isCurrent })
            #expect(stats.last?.value?.payload == ["enrolled": 1], "the read shows the token's projection")
            // The token may subscribe to u1 but not read users: the read is refused.
            #expect(await user.waitForStaleness(.accessDenied), "\(user.trail())")
            #expect(user.trail().first == "accessDenied:Forbidden", "\(user.trail())")

            try await server.revokeToken(first)
            await World.randomWrites(rig, by: rig.writers[0], seed: 41, count: 20)
            #expect(await rig.statuses.wait(for: .accessDenied), "the revoked token reaches the subscribe loop")
            await World.randomWrites(rig, by: rig.writers[1], seed: 42, count: 30)
            for enrolled in 2...4 {
                await rig.tick()
                _ = try await rig.dataSync.updateEntity(
                    id: "course", operations: [.replace(path: "/payload/enrolled", value: .int(Int64(enrolled)))])
            }

            let second = try await server.grantToken(
                ttlMinutes: 60, patterns: Self.watcherGrant(users: true), meta: Self.projections)
            rig.watcher.set(token: second)
            try await members.expectConverged(rig.dataSync, "\(backend)")
            try await user.expectConverged(rig.dataSync, "\(backend)")
            #expect(members.trail().contains { $0.hasPrefix("accessDenied") }, "\(members.trail())")
            // The user view's retry timer never fired (its clock never moved): the new token did it.
            #expect(rig.watcherClock.now == ManualClock.Instant(offset: .zero))

            // The projection view converges to what the watcher's own token reads: stats only.
            let projected = try await rig.watcher.dataSync.getEntity(id: "course")
            #expect(projected.payload == ["enrolled": 4])
            #expect(await stats.waitForConvergence(to: [projected]), "\(stats.stalenessTrail)")
            #expect(stats.regressions.isEmpty, "\(stats.regressions)")
            #expect(stats.snapshots.allSatisfy { $0.projection == "stats" })
            #expect(
                stats.snapshots.allSatisfy { snapshot in snapshot.allSatisfy { $0.payload?["title"] == nil } },
                "no snapshot shows a field outside the projection")
            #expect(stats.stalenessTrail.contains { $0.hasPrefix("accessDenied") }, "\(stats.stalenessTrail)")
        }
    }
}
