import DataSync
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

/// A vector with the Swift call that reproduces it.
struct VectorCase: Sendable, CustomTestStringConvertible {
    var vector: DataSyncVector
    /// Where the Swift SDK deliberately differs from the recording (documented in the guide).
    var queryOverride: [String: String]?
    var call: @Sendable (PubNubDataSync, JSONValue) async throws -> Void

    var testDescription: String { "#\(vector.index) \(vector.operation)" }
}

private func payload(_ inputs: JSONValue) -> JSONValue? {
    inputs["data"]?["payload"] ?? inputs["payload"]
}

private func vector(
    _ index: Int, queryOverride: [String: String]? = nil,
    _ call: @escaping @Sendable (PubNubDataSync, JSONValue) async throws -> Void
) -> VectorCase? {
    DataSyncVectors.all[index].map { VectorCase(vector: $0, queryOverride: queryOverride, call: call) }
}

private typealias Sort = PubNub.DataSyncSortField

let vectorCases: [VectorCase] =
    ([VectorCase?]([
        vector(0) { api, _ in _ = try await api.getUser(id: "user-99961") },
        vector(1) { api, inputs in
            _ = try await api.createUser(classVersion: 1, id: "user-90786", status: "active", payload: payload(inputs))
        },
        vector(2) { api, inputs in
            _ = try await api.createUser(
                className: "Employee", classVersion: 1, classLevel: .subKey, id: "user-40021", payload: payload(inputs))
        },
        vector(3) { api, _ in _ = try await api.getUser(id: "user-99961") },
        vector(4) { api, _ in _ = try await api.getUser(id: "user-90051") },
        vector(5) { api, inputs in
            _ = try await api.createUser(classVersion: 1, id: "user-51687", status: "active", payload: payload(inputs))
        },
        vector(6) { api, _ in
            _ = try await api.updateUser(
                id: "user-51687",
                operations: [
                    .add(path: "/payload/phone", value: "+15550100"),
                    .replace(path: "/payload/email", value: "updated@acme.test"), .remove(path: "/payload/isActive"),
                ])
        },
        vector(7) { api, _ in
            _ = try await api.updateUser(
                id: "user-81905",
                operations: [
                    .move(from: "/payload/lastName", path: "/payload/surname"),
                    .copy(from: "/payload/firstName", path: "/payload/nickname"),
                    .test(path: "/payload/email", value: "alice.verma@acme.test"),
                ])
        },
        vector(8) { api, _ in
            _ = try await api.updateUser(
                id: "user-81905", operations: [.replace(path: "/payload/firstName", value: "Amelia")],
                ifMatchesEtag: "y2j77p")
        },
        vector(9) { api, inputs in
            _ = try await api.setUser(id: "user-79435", classVersion: 1, status: "inactive", payload: payload(inputs))
        },
        vector(10) { api, _ in try await api.removeUser(id: "user-90051") },
        vector(11) { api, _ in _ = try await api.getUsers(limit: 10) },
        // JS always sends limit=20; this SDK (like Kotlin, Swift and Dart) leaves it to the server.
        vector(12, queryOverride: [:]) { api, _ in _ = try await api.getUsers() },
        vector(13) { api, _ in _ = try await api.getUsers(cursor: "eyJpIjoiMzQ5MSIsInN2IjpbXX0", limit: 2) },
        vector(14) { api, _ in _ = try await api.getUsers(limit: 50, filter: "department == 'Engineering'") },
        vector(15) { api, _ in
            _ = try await api.getUsers(
                limit: 50, filterFast: "isActive == true",
                filter: "(department == 'Engineering') AND (location == 'Pune')")
        },
        vector(16) { api, _ in
            _ = try await api.getUsers(limit: 50, sort: [Sort(property: "createdAt", ascending: false)])
        },
        vector(17) { api, _ in
            _ = try await api.getUsers(classVersion: 1, limit: 50, sort: [Sort(property: "-createdAt")])
        },
        vector(18) { api, _ in
            _ = try await api.getUsers(className: "User", classVersion: 1, classLevel: .global, limit: 50)
        },
        vector(19) { api, _ in
            _ = try await api.getUsers(sort: [Sort(property: "name"), Sort(property: "updated", ascending: false)])
        },
        vector(20) { api, _ in _ = try await api.getUsers(filterFast: #"name == "a+b""#, filter: #"name == "50%""#) },
        vector(21) { api, inputs in
            _ = try await api.createChannel(
                classVersion: 1, id: "JSchannel-56738", status: "active", payload: payload(inputs))
        },
        vector(22) { api, inputs in
            _ = try await api.createChannel(
                className: "PrivateChannel", classVersion: 1, classLevel: .subKey, id: "channel-1",
                payload: payload(inputs))
        },
        vector(23) { api, _ in _ = try await api.createChannel(classVersion: 1, classLevel: .global) },
        vector(24) { api, _ in _ = try await api.getChannel(id: "channel-1") },
        vector(25) { api, _ in _ = try await api.getChannel(id: "channel-1") },
        vector(26) { api, inputs in
            _ = try await api.setChannel(id: "channel-1", classVersion: 1, status: "inactive", payload: payload(inputs))
        },
        vector(27) { api, _ in _ = try await api.setChannel(id: "channel-1", classVersion: 1, ifMatchesEtag: "y16jaw")
        },
        vector(28) { api, _ in
            _ = try await api.updateChannel(
                id: "channel-1",
                operations: [
                    .add(path: "/payload/phone", value: "+15550100"),
                    .replace(path: "/payload/email", value: "updated@acme.test"), .remove(path: "/payload/isActive"),
                ])
        },
        vector(29) { api, _ in
            _ = try await api.updateChannel(
                id: "channel-1",
                operations: [
                    .remove(path: "/payload/obsolete"), .move(from: "/payload/description", path: "/payload/summary"),
                    .copy(from: "/payload/name", path: "/payload/displayName"),
                    .test(path: "/payload/kind", value: "public"),
                ])
        },
        vector(30) { api, _ in
            _ = try await api.updateChannel(
                id: "channel-1", operations: [.replace(path: "/payload/firstName", value: "Amelia")],
                ifMatchesEtag: "y16jaw")
        },
        vector(31) { api, _ in try await api.removeChannel(id: "channel-1") },
        vector(32) { api, _ in try await api.removeChannel(id: "channel-1", ifMatchesEtag: "y16jaw") },
        vector(33) { api, _ in
            _ = try await api.getChannels(
                className: "Channel", classVersion: 1, classLevel: .global, cursor: "eyJpIjoiMzUwMSIsInN2IjpbXX0",
                limit: 50, filterFast: "isActive == true",
                filter: "(department == 'Engineering') AND (location == 'Pune')",
                sort: [Sort(property: "-createdAt")])
        },
        vector(34) { api, _ in _ = try await api.getChannels(limit: 10) },
        vector(35) { api, _ in _ = try await api.getChannels() },
        vector(36) { api, _ in _ = try await api.getChannels(className: "Room", classVersion: 7, classLevel: .subKey) },
        vector(37) { api, _ in
            _ = try await api.getChannels(
                className: "Channel", classVersion: 1, classLevel: .subKey, cursor: "TjIw", limit: 10,
                filterFast: "status == 'active'", sort: [Sort(property: "-createdAt"), Sort(property: "+id")],
                custom: PubNub.RequestConfiguration(queryParameters: [HTTPQueryItem(name: "q1", value: "v1")]))
        },
        vector(38) { api, _ in _ = try await api.createChannel(classVersion: 1) },
        vector(39) { api, _ in
            _ = try await api.updateChannel(
                id: "general", operations: [.remove(path: "/payload/x")], ifMatchesEtag: #""3""#)
        },
    ])).compactMap { $0 }

@Suite("Users and channels against the recorded vectors")
struct DataSyncVectorTests {
    /// The answer to send: the recorded one, or a minimal valid one where the vector has none.
    private func answer(for vector: DataSyncVector) -> (Int, String) {
        if !vector.responseBody.isEmpty || vector.operation.hasSuffix(".remove") {
            return (vector.responseStatus, vector.responseBody)
        }
        if vector.operation.hasSuffix(".getAll") { return (200, Fixtures.page([])) }
        return (200, Fixtures.envelope(Fixtures.channel("general")))
    }

    @Test("sends exactly the recorded request", arguments: vectorCases)
    func sendsTheRecordedRequest(_ testCase: VectorCase) async throws {
        let vector = testCase.vector
        let (status, body) = answer(for: vector)
        let (pubnub, recorder) = Fixtures.recorded(subscribeKey: vector.subscribeKey, status: status, body: body)
        _ = try? await testCase.call(pubnub.dataSync, try vector.inputValue())
        #expect(recorder.requests.count == 1)
        let expectedBody = try vector.body.map { try JSONValue(parsing: $0) }
        try Fixtures.expect(
            recorder.lastRequest, method: vector.method, path: vector.path,
            query: testCase.queryOverride ?? vector.query, headers: vector.headers, body: expectedBody)
    }

    @Test("decodes the recorded answer, or maps it to the right error", arguments: vectorCases)
    func decodesTheRecordedAnswer(_ testCase: VectorCase) async throws {
        let vector = testCase.vector
        let (status, body) = answer(for: vector)
        let (pubnub, _) = Fixtures.recorded(subscribeKey: vector.subscribeKey, status: status, body: body)
        do {
            try await testCase.call(pubnub.dataSync, try vector.inputValue())
            #expect((200..<300).contains(status), "succeeded on HTTP \(status)")
        } catch {
            let error = try #require(error.pubNubError)
            #expect(!(200..<300).contains(status), "failed on HTTP \(status): \(error)")
            #expect(error.statusCode == status)
            #expect(error.reason == PubNubError.Reason.forStatusCode(status))
        }
    }

    @Test("every transcribed user and channel vector has a Swift call")
    func everyVectorIsCovered() {
        #expect(vectorCases.count == DataSyncVectors.all.count)
        #expect(DataSyncVectors.all.count == 40)
    }

    @Test("percent-encodes filter values strictly in the URL")
    func filterValuesArePercentEncoded() async throws {
        let (pubnub, recorder) = Fixtures.recorded(subscribeKey: "mySubscribeKey", body: Fixtures.page([]))
        _ = try await pubnub.dataSync.getUsers(filterFast: #"name == "a+b""#, filter: #"name == "50%""#)
        let url = try #require(recorder.lastRequest?.url)
        #expect(url.contains("filter_fast=name%20%3D%3D%20%22a%2Bb%22"))
        #expect(url.contains("filter=name%20%3D%3D%20%2250%25%22"))
    }

    @Test("decodes a recorded user with microsecond timestamps, class fields and payload")
    func decodesRecordedUser() async throws {
        let vector = try #require(DataSyncVectors.all[1])
        let (pubnub, _) = Fixtures.recorded(status: 201, body: vector.responseBody)
        let user = try await pubnub.dataSync.createUser(classVersion: 1, id: "user-90786")
        #expect(user.id == "user-90786")
        #expect(user.className == "User")
        #expect(user.classVersion == 1)
        #expect(user.classLevel == .global)
        #expect(user.status == "active")
        #expect(user.eTag == "y2j19m")
        #expect(user.payload?["department"] == "Engineering")
        #expect(abs(user.createdAt.timeIntervalSince1970 - 1_788_766_495.265_874) < 1e-6)
        #expect(user.expiresAt?.timeIntervalSince1970 == 1_791_417_600)
    }
}
