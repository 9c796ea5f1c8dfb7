import DataSyncTestSupport
import EmulatorHTTP
import PubNubBase
import Testing

/// The file-descriptor check a server makes at start against its connection limit, with the
/// process's limits injected: no test here opens thousands of sockets.
@Suite("HTTP server: file-descriptor limit against the connection limit")
struct DescriptorBudgetTests {
    /// Records the soft limits a plan asks for, granting those up to `grantUpTo`.
    final class Raises: Sendable {
        let asked = Locked<[UInt64]>([])
        let grantUpTo: UInt64
        init(grantUpTo: UInt64) { self.grantUpTo = grantUpTo }
        func raise(_ target: UInt64) -> Bool {
            asked.withLock { $0.append(target) }
            return target <= grantUpTo
        }
    }

    @Test func aLimitThatHoldsTheCapIsLeftAlone() {
        let raises = Raises(grantUpTo: .max)
        let budget = DescriptorBudget.plan(
            maximumConnections: 16_384, limits: .init(soft: 20_000, hard: 20_000), raise: raises.raise)
        #expect(budget.maximumConnections == 16_384)
        #expect(budget.warning == nil)
        #expect(budget.raisedFrom == nil)
        #expect(raises.asked.withLock { $0 }.isEmpty)
    }

    @Test func aLowSoftLimitIsRaisedToWhatTheCapNeedsWithinTheHardLimit() {
        let raises = Raises(grantUpTo: .max)
        let budget = DescriptorBudget.plan(
            maximumConnections: 16_384, limits: .init(soft: 1024, hard: 524_288), raise: raises.raise)
        // Each connection, a sixteenth more for refusals answering 503, and the reserve.
        let needed: UInt64 = 16_384 + 1024 + 64
        #expect(DescriptorBudget.needed(maximumConnections: 16_384) == needed)
        #expect(raises.asked.withLock { $0 } == [needed])
        #expect(budget.softLimit == needed)
        #expect(budget.raisedFrom == 1024)
        #expect(budget.maximumConnections == 16_384)
        #expect(budget.warning == nil)
    }

    @Test func aHardLimitTooLowLowersTheCapToFitAndSaysWhy() throws {
        let raises = Raises(grantUpTo: .max)
        let budget = DescriptorBudget.plan(
            maximumConnections: 16_384, limits: .init(soft: 1024, hard: 4096), raise: raises.raise)
        #expect(raises.asked.withLock { $0 } == [4096])
        #expect(budget.softLimit == 4096)
        #expect(budget.maximumConnections < 16_384)
        // The largest cap that fits: its needs within the limit, one more would not be.
        #expect(DescriptorBudget.needed(maximumConnections: budget.maximumConnections) <= 4096)
        #expect(DescriptorBudget.needed(maximumConnections: budget.maximumConnections + 1) > 4096)
        let warning = try #require(budget.warning)
        #expect(warning.contains("16384"))
        #expect(warning.contains("4096"))
        #expect(warning.contains("at most \(budget.maximumConnections) connections"))
        #expect(warning.contains("ulimit -n"))
    }

    @Test func aRefusedRaiseLowersTheCapToTheSoftLimit() {
        let raises = Raises(grantUpTo: 0)
        let budget = DescriptorBudget.plan(
            maximumConnections: 2000, limits: .init(soft: 1024, hard: 1_000_000), raise: raises.raise)
        #expect(budget.softLimit == 1024)
        #expect(budget.raisedFrom == nil)
        #expect(DescriptorBudget.needed(maximumConnections: budget.maximumConnections) <= 1024)
        #expect(budget.maximumConnections > 800)
        #expect(budget.warning != nil)
    }

    @Test func aTinyLimitStillServesOneConnection() {
        let budget = DescriptorBudget.plan(
            maximumConnections: 100, limits: .init(soft: 20, hard: 20), raise: { _ in false })
        #expect(budget.maximumConnections == 1)
        #expect(budget.warning != nil)
    }

    @Test func theDefaultCapHoldsTenThousandHeldRequests() {
        #expect(HTTPServer.Configuration().maximumConnections >= 10_000)
    }

    /// A server started under a limit too small for its cap serves the lowered cap: the
    /// connection past it is refused with a 503 naming that cap, and the warning was reported.
    @Test func aServerUnderASmallLimitServesTheLoweredCap() async throws {
        let reports = Locked<[String]>([])
        let environment = DescriptorEnvironment(
            read: { (DescriptorBudget.Limits(soft: 100, hard: 100), { _ in false }) },
            report: { message in reports.withLock { $0.append(message) } })
        // The held connections stay mid-request while the test fills the cap; on a loaded machine
        // that can outlast the default 30 s request deadline, whose 408s would empty the cap.
        let configuration = serverConfiguration {
            $0.maximumConnections = 1000
            $0.requestTimeout = .seconds(600)
            $0.idleTimeout = .seconds(600)
        }
        let server = HTTPServer(configuration: configuration, handler: HTTPTestingHandler(), descriptors: environment)
        try await server.start()
        defer { Task { await server.stop() } }
        let port = try #require(server.port)
        let cap = try #require(server.connectionLimit)
        #expect(cap == 100 - 16 - 64)
        #expect(reports.withLock { $0 }.count == 1)
        // Fill the cap with connections that are mid-request (so none is idle to give up).
        let partial = "GET /bytes/1 HTTP/1.1\r\n"
        var clients: [RawClient] = []
        for _ in 0..<cap {
            let client = try await RawClient.connect(port: port)
            try await client.send(partial)
            clients.append(client)
        }
        #expect(await eventually { server.statistics.bufferedRequestBytes == cap * partial.utf8.count })
        let extra = try await RawClient.connect(port: port)
        let refusal = try await extra.response()
        #expect(refusal.status == 503)
        #expect(refusal.text.contains("limit is \(cap)"))
        for client in clients { await client.close() }
        await extra.close()
        await server.stop()
    }

    @Test func aServerWhoseLimitFitsKeepsItsCapAndReportsNothing() async throws {
        let reports = Locked<[String]>([])
        let environment = DescriptorEnvironment(
            read: { (DescriptorBudget.Limits(soft: 100_000, hard: 100_000), { _ in false }) },
            report: { message in reports.withLock { $0.append(message) } })
        let server = HTTPServer(configuration: .init(), handler: HTTPTestingHandler(), descriptors: environment)
        try await server.start()
        #expect(server.connectionLimit == 16_384)
        #expect(reports.withLock { $0 }.isEmpty)
        await server.stop()
    }
}
