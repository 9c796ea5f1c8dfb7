import DataSyncTestSupport
import JSONCore
import Messaging
import Testing
import Transport

@Suite("Channel groups, presence and time on the wire")
struct ChannelGroupPresenceTimeTests {
    private let ok = #"{"status":200,"message":"OK","service":"channel-registry","error":false}"#
    private let groups = "/v1/channel-registration/sub-key/mySubKey/channel-group"
    private let presence = "/v2/presence/sub-key/mySubKey"

    // MARK: channel groups

    @Test func addAndRemoveSendCommaJoinedChannels() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded(body: ok)
        try await pubnub.add(channels: ["ch1", "ch2"], to: "TestGroup")
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(groups)/TestGroup", query: ["add": "ch1,ch2"])
        try await pubnub.remove(channels: ["ch1"], from: "TestGroup")
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(groups)/TestGroup", query: ["remove": "ch1"])
    }

    @Test func channelNamesInTheQueryAreEncodedOnTheWire() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded(body: ok)
        try await pubnub.add(channels: ["a/b", "c d", "é"], to: "g:1")
        let request = try #require(recorder.lastRequest)
        #expect(request.path == "\(groups)/g%3A1")
        #expect(request.queryValue("add") == "a/b,c d,é")
        #expect(request.encodedQuery.contains("add=a%2Fb%2Cc%20d%2C%C3%A9"))
    }

    @Test func groupLimitsAreCheckedLocally() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded(body: ok)
        let tooMany = (0...200).map { "ch\($0)" }
        let limit = await MessagingFixtures.error { try await pubnub.add(channels: tooMany, to: "g") }
        #expect(limit?.reason == .channelGroupLimitExceeded)
        let noGroup = await MessagingFixtures.error { try await pubnub.add(channels: ["a"], to: "") }
        #expect(noGroup?.reason == .missingRequiredParameter)
        let noChannels = await MessagingFixtures.error { try await pubnub.remove(channels: [], from: "g") }
        #expect(noChannels?.reason == .missingRequiredParameter)
        let comma = await MessagingFixtures.error { try await pubnub.add(channels: ["a,b"], to: "g") }
        #expect(comma?.reason == .invalidArguments)
        let empty = await MessagingFixtures.error { try await pubnub.add(channels: [""], to: "g") }
        #expect(empty?.reason == .invalidArguments)
        #expect(recorder.requests.isEmpty)
        try await pubnub.add(channels: Array(tooMany.dropLast()), to: "g")
        #expect(recorder.requests.count == 1)
    }

    @Test func listAndDeleteGroups() async throws {
        let (lister, listed) = MessagingFixtures.recorded(
            body:
                #"{"status":200,"payload":{"channels":["TestChannel","AnotherChannel"],"group":"TestGroup"},"service":"channel-registry","error":false}"#
        )
        #expect(try await lister.listChannels(for: "TestGroup") == ["TestChannel", "AnotherChannel"])
        try MessagingFixtures.expect(listed.lastRequest, method: "GET", path: "\(groups)/TestGroup")

        let (all, allListed) = MessagingFixtures.recorded(
            body:
                #"{"status":200,"payload":{"namespace":"","groups":["a","b"]},"service":"channel-registry","error":false}"#
        )
        #expect(try await all.listChannelGroups() == ["a", "b"])
        try MessagingFixtures.expect(allListed.lastRequest, method: "GET", path: groups)

        let (deleter, deleted) = MessagingFixtures.recorded(body: ok)
        try await deleter.remove(channelGroup: "TestGroup")
        try MessagingFixtures.expect(deleted.lastRequest, method: "GET", path: "\(groups)/TestGroup/remove")
    }

    @Test func anUnknownGroupListsNoChannels() async throws {
        let (pubnub, _) = MessagingFixtures.recorded(body: #"{"status":200,"payload":{},"error":false}"#)
        #expect(try await pubnub.listChannels(for: "nobody") == [])
    }

    // MARK: presence

    @Test func hereNowSendsItsParameters() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded(
            body: #"{"status":200,"message":"OK","payload":{"channels":{},"total_channels":0,"total_occupancy":0}}"#)
        _ = try await pubnub.hereNow(
            on: ["a/b", "c"], and: ["g1", "g2"], includeUUIDs: false, includeState: true, limit: 50, offset: 10)
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(presence)/channel/a%2Fb,c",
            query: ["disable_uuids": "1", "state": "1", "limit": "50", "offset": "10", "channel-group": "g1,g2"])
    }

    @Test func globalHereNowUsesTheKeysetPath() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded(
            body:
                #"{"status":200,"message":"OK","payload":{"channels":{"a":{"occupancy":2,"uuids":["u1","u2"]},"b":{"occupancy":1,"uuids":["u3"]}},"total_channels":2,"total_occupancy":3}}"#
        )
        let answer = try await pubnub.hereNow()
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET", path: presence,
            query: ["disable_uuids": "0", "state": "0", "limit": "1000"])
        #expect(answer.totalChannels == 2)
        #expect(answer.totalOccupancy == 3)
        #expect(answer.channels["a"]?.occupants.map(\.userId) == ["u1", "u2"])
    }

    @Test func groupsOnlyHereNowUsesTheCommaSegment() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded(
            body: #"{"status":200,"message":"OK","payload":{"channels":{},"total_channels":0,"total_occupancy":0}}"#)
        _ = try await pubnub.hereNow(and: ["cg1"])
        #expect(recorder.lastRequest?.path == "\(presence)/channel/,")
    }

    @Test func hereNowLimitsAreCheckedLocally() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let high = await MessagingFixtures.error { _ = try await pubnub.hereNow(on: ["a"], limit: 1001) }
        let negative = await MessagingFixtures.error { _ = try await pubnub.hereNow(on: ["a"], offset: -1) }
        let empty = await MessagingFixtures.error { _ = try await pubnub.hereNow(on: [""]) }
        #expect([high, negative, empty].map(\.?.reason) == [.invalidArguments, .invalidArguments, .invalidArguments])
        #expect(recorder.requests.isEmpty)
    }

    @Test func whereNowDefaultsToThisUser() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded(
            body: #"{"status":200,"message":"OK","payload":{"channels":["a","b"]},"service":"Presence"}"#)
        #expect(try await pubnub.whereNow() == ["a", "b"])
        try MessagingFixtures.expect(recorder.lastRequest, method: "GET", path: "\(presence)/uuid/myUUID")
        _ = try await pubnub.whereNow(for: "other user@x")
        #expect(recorder.lastRequest?.path == "\(presence)/uuid/other%20user%40x")
    }

    @Test func setStateSendsTheObjectForThisUser() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded(
            body: #"{"status":200,"message":"OK","payload":{"mood":"happy"},"service":"Presence"}"#)
        let stored = try await pubnub.setPresence(state: ["mood": "happy"], on: ["ch1", "ch 2"], and: ["g"])
        #expect(stored == ["mood": "happy"])
        try MessagingFixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(presence)/channel/ch1,ch%202/uuid/myUUID/data",
            query: ["state": #"{"mood":"happy"}"#, "channel-group": "g"])
    }

    @Test func setStateNeedsAnObjectAndATarget() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded()
        let notObject = await MessagingFixtures.error { _ = try await pubnub.setPresence(state: "happy", on: ["c"]) }
        #expect(notObject?.reason == .invalidArguments)
        let noTarget = await MessagingFixtures.error { _ = try await pubnub.setPresence(state: ["a": 1], on: []) }
        #expect(noTarget?.reason == .missingRequiredParameter)
        #expect(recorder.requests.isEmpty)
    }

    @Test func getStateReadsBothForms() async throws {
        let (single, singleRecorder) = MessagingFixtures.recorded(
            body:
                #"{"status":200,"message":"OK","payload":{"text":"hey"},"uuid":"u","channel":"c","service":"Presence"}"#
        )
        #expect(try await single.getPresenceState(for: "u", on: ["c"]) == ["c": ["text": "hey"]])
        try MessagingFixtures.expect(singleRecorder.lastRequest, method: "GET", path: "\(presence)/channel/c/uuid/u")

        let (multi, multiRecorder) = MessagingFixtures.recorded(
            body:
                #"{"status":200,"message":"OK","payload":{"channels":{"a":{"x":1},"b":{"x":2}}},"service":"Presence"}"#)
        #expect(try await multi.getPresenceState(on: ["a"], and: ["g"]) == ["a": ["x": 1], "b": ["x": 2]])
        try MessagingFixtures.expect(
            multiRecorder.lastRequest, method: "GET", path: "\(presence)/channel/a/uuid/myUUID",
            query: ["channel-group": "g"])
    }

    // MARK: time

    @Test func timeReadsTheNumber() async throws {
        let (pubnub, recorder) = MessagingFixtures.recorded(body: "[15643405135132358]")
        #expect(try await pubnub.time() == 15_643_405_135_132_358)
        // Time carries no credentials (protocol §1.3).
        try MessagingFixtures.expect(recorder.lastRequest, method: "GET", path: "/time/0", auth: nil)
    }

    @Test(arguments: ["[]", "{}", "[\"x\"]", "oops"])
    func malformedTime(body: String) async throws {
        let (pubnub, _) = MessagingFixtures.recorded(body: body)
        let error = await MessagingFixtures.error { _ = try await pubnub.time() }
        #expect(error?.reason == .malformedResponse)
    }

    @Test func completionFormsOfGroupsPresenceAndTime() async throws {
        let (pubnub, _) = MessagingFixtures.recorded(body: "[15643405135132358]")
        let time = await withCheckedContinuation { (continuation: CheckedContinuation<Timetoken?, Never>) in
            pubnub.time { continuation.resume(returning: try? $0.get()) }
        }
        #expect(time == 15_643_405_135_132_358)
        let (groupClient, _) = MessagingFixtures.recorded(body: ok)
        let added = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            groupClient.add(channels: ["a"], to: "g") { result in
                continuation.resume(returning: (try? result.get()) != nil)
            }
        }
        #expect(added)
    }
}
