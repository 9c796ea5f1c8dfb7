import DataSync
import DataSyncLive
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import PubNubCore
import Realtime
import Testing
import Transport

/// Holds the watcher's long-polls (not its handshakes) while closed, so changes pile up at the
/// service and arrive as one burst; counts the views' reads (every other request it sees).
private final class LongPollGate: HTTPMiddleware {
    let closed = Waitable<Bool>(false)
    let held = Waitable<Int>(0)
    let reads = Waitable<Int>(0)

    func intercept(
        _ request: HTTPRequest, next: @concurrent @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        if request.path.hasPrefix("/v2/subscribe/") {
            let isLongPoll = request.queryItems.contains { $0.name == "tt" && $0.value != "0" }
            if isLongPoll, closed.value {
                held.update { $0 += 1 }
                _ = await closed.wait { !$0 }
            }
        } else if !request.path.hasPrefix("/v2/presence/") {
            reads.update { $0 += 1 }
        }
        return try await next(request)
    }
}

@Suite(.timeLimit(.minutes(2)))
struct CatchUpTests {
    @Test(
        "a burst of 130 changes while connected is applied from the events: no gap, no second read",
        arguments: HTTPBackend.allCases, [0, 100])
    func burstIsApplied(_ backend: HTTPBackend, threshold: Int) async throws {
        let gate = LongPollGate()
        let setUp: (inout PubNubConfiguration) -> Void = {
            $0.middlewares = [gate]
            $0.requestMessageCountThreshold = threshold
        }
        try await withLiveRig(backend, configure: setUp) { rig in
            let ds = rig.dataSync
            _ = try await ds.createUser(classVersion: 1, id: "u1", payload: ["n": 0])
            let log = SnapshotLog(try rig.watcher.liveViews.user("u1"))
            #expect(await log.waitForLast { $0.isCurrent && $0.value?.payload?["n"]?.intValue == 0 })
            #expect(gate.reads.value == 1)

            gate.closed.update { $0 = true }
            // The first change answers the long-poll that is out; the next one waits at the gate.
            await rig.tick()
            _ = try await ds.updateUser(id: "u1", operations: [.replace(path: "/payload/n", value: 1)])
            #expect(await gate.held.wait { $0 == 1 })
            for n in 2...130 {
                await rig.tick()
                _ = try await ds.updateUser(id: "u1", operations: [.replace(path: "/payload/n", value: .int(Int64(n)))])
            }
            gate.closed.update { $0 = false }

            // 129 changes in answers of 100 and 29, from the cursor the loop had: nothing was lost.
            #expect(await log.waitForLast { $0.isCurrent && $0.value?.payload?["n"]?.intValue == 130 })
            #expect(gate.reads.value == 1, "the caught-up events were applied, not re-read")
            #expect(log.snapshots.allSatisfy { $0.staleness?.reason != .gap }, "\(log.snapshots.map(\.staleness))")
            // With a threshold the app asked to hear of the full answer; it is still no gap.
            let exceeded = rig.statuses.all.filter { $0.category == .requestMessageCountExceeded }
            #expect(exceeded.count == (threshold == 0 ? 0 : 1), "\(rig.statuses.all)")
            log.cancel()
        }
    }
}
