import DataSync
import DataSyncTestSupport
import Foundation
import Testing
import Transport

@Suite("Wire fixtures and the testing configuration")
struct FixtureTests {
    @Test("every object fixture decodes through the SDK as the service's answer would")
    func objectsDecode() async throws {
        let user = DataSyncWireFixtures.user(id: "u1", status: "active", payload: ["name": "Ada"])
        let pubnub = PubNub(
            configuration: .testing(transport: MockHTTPClient.success(body: DataSyncWireFixtures.envelope(user))))
        let decoded = try await pubnub.dataSync.getUser(id: "u1")
        #expect(decoded.id == "u1")
        #expect(decoded.status == "active")
        #expect(decoded.payload?["name"] == "Ada")
        #expect(decoded.eTag == "e1")

        let membership = DataSyncWireFixtures.membership(id: "m1", channelId: "c1", userId: "u1")
        let members = PubNub(
            configuration: .testing(transport: MockHTTPClient.success(body: DataSyncWireFixtures.envelope(membership))))
        let decodedMembership = try await members.dataSync.getMembership(id: "m1")
        #expect(decodedMembership.channelId == "c1")
        #expect(decodedMembership.userId == "u1")

        let relationship = DataSyncWireFixtures.relationship(
            id: "r1", className: "Bought", entityAId: "u1", entityBId: "p1")
        let related = PubNub(
            configuration: .testing(
                transport: MockHTTPClient.success(body: DataSyncWireFixtures.envelope(relationship))))
        let decodedRelationship = try await related.dataSync.getRelationship(id: "r1")
        #expect(decodedRelationship.entityAId == "u1")
        #expect(decodedRelationship.entityBId == "p1")
    }

    @Test("pages say whether more follow; error bodies become PubNubError details")
    func pagesAndErrors() async throws {
        let first = DataSyncWireFixtures.page(
            [DataSyncWireFixtures.channel(id: "c1"), DataSyncWireFixtures.channel(id: "c2")], cursor: "next")
        let pubnub = PubNub(configuration: .testing(transport: MockHTTPClient.success(body: first)))
        let (channels, page) = try await pubnub.dataSync.getChannels()
        #expect(channels.map(\.id) == ["c1", "c2"])
        #expect(page?.hasNext == true)
        #expect(page?.cursor == "next")

        let body = DataSyncWireFixtures.errorBody("DS-0100", "Entity not found: u9", path: "id")
        let failing = PubNub(
            configuration: .testing(
                transport: MockHTTPClient { _ in HTTPResponse(status: 404, body: body) }, retryPolicy: .none))
        let error = await #expect(throws: PubNubError.self) { _ = try await failing.dataSync.getUser(id: "u9") }
        #expect(error?.reason == .resourceNotFound)
        #expect(error?.errorCode == "DS-0100")
        #expect(error?.details.first?.path == "id")
    }

    @Test("four 503s under the default retry policy finish without real waiting")
    func retriesDoNotWait() async throws {
        let clock = ImmediateClock()
        let scripted = ScriptedHTTPClient(
            Array(repeating: .success(HTTPResponse(status: 503, body: [])), count: 4))
        let pubnub = PubNub(configuration: .testing(transport: scripted, clock: clock))
        let error = await #expect(throws: PubNubError.self) { _ = try await pubnub.dataSync.getUser(id: "u1") }
        #expect(error?.reason == .serviceUnavailable)
        #expect(scripted.requestCount == 4)
        #expect(clock.requestedSleeps.count == 3)
        #expect(clock.requestedSleeps.allSatisfy { $0 >= .seconds(1) })
    }
}

/// `ChildProcess` hands a child its standard input, output and error and nothing else, so a
/// socket or pipe of the test process never stays open in a child after the test closed it.
@Suite("Child processes inherit nothing else")
struct ChildProcessInheritanceTests {
    @Test("a descriptor left inheritable is not open in the child")
    func noStrayDescriptors() async throws {
        // A pipe of its own (never a fixed descriptor number: dup2 onto one would close whatever
        // another test running in this process has open there), without close-on-exec.
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let stray = ends[0]
        try #require(stray > 3, "the child's own descriptors are 0 to 3")
        try #require(fcntl(stray, F_GETFD) & FD_CLOEXEC == 0)
        let child = try ChildProcess(executable: "sh", arguments: ["-c", "ls /proc/self/fd 2>/dev/null || ls /dev/fd"])
        let result = try await child.finish(timeout: .seconds(30))
        #expect(result.status == 0)
        let open = Set(result.standardOutput.split(whereSeparator: \.isNewline).map(String.init))
        #expect(open.contains("1"), "the listing looks wrong: \(open)")
        #expect(!open.contains("\(stray)"), "the child inherited descriptor \(stray): \(open)")
    }
}
