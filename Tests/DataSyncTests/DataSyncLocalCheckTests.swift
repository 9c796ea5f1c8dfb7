import DataSync
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

/// One local check: a call that must fail before anything is sent.
struct LocalCheckCase: Sendable, CustomTestStringConvertible {
    var name: String
    var parameter: String
    var call: @Sendable (PubNubDataSync) async throws -> Void
    var testDescription: String { name }
}

private let replace: [PubNubDataSyncPatchOperation] = [.replace(path: "/status", value: "x")]

let localCheckCases: [LocalCheckCase] = [
    // An empty resource id, on every operation that takes one.
    .init(name: "createUser id", parameter: "id") { _ = try await $0.createUser(classVersion: 1, id: "") },
    .init(name: "getUser id", parameter: "id") { _ = try await $0.getUser(id: "") },
    .init(name: "setUser id", parameter: "id") { _ = try await $0.setUser(id: "", classVersion: 1) },
    .init(name: "updateUser id", parameter: "id") { _ = try await $0.updateUser(id: "", operations: replace) },
    .init(name: "removeUser id", parameter: "id") { try await $0.removeUser(id: "") },
    .init(name: "createChannel id", parameter: "id") { _ = try await $0.createChannel(classVersion: 1, id: "") },
    .init(name: "getChannel id", parameter: "id") { _ = try await $0.getChannel(id: "") },
    .init(name: "setChannel id", parameter: "id") { _ = try await $0.setChannel(id: "", classVersion: 1) },
    .init(name: "updateChannel id", parameter: "id") { _ = try await $0.updateChannel(id: "", operations: replace) },
    .init(name: "removeChannel id", parameter: "id") { try await $0.removeChannel(id: "") },
    .init(name: "createEntity id", parameter: "id") {
        _ = try await $0.createEntity(className: "Product", classVersion: 1, id: "")
    },
    .init(name: "getEntity id", parameter: "id") { _ = try await $0.getEntity(id: "") },
    .init(name: "setEntity id", parameter: "id") { _ = try await $0.setEntity(id: "", classVersion: 1) },
    .init(name: "updateEntity id", parameter: "id") { _ = try await $0.updateEntity(id: "", operations: replace) },
    .init(name: "removeEntity id", parameter: "id") { try await $0.removeEntity(id: "") },
    .init(name: "createMembership id", parameter: "id") {
        _ = try await $0.createMembership(channelId: "c", userId: "u", classVersion: 1, id: "")
    },
    .init(name: "getMembership id", parameter: "id") { _ = try await $0.getMembership(id: "") },
    .init(name: "setMembership id", parameter: "id") { _ = try await $0.setMembership(id: "", classVersion: 1) },
    .init(name: "updateMembership id", parameter: "id") {
        _ = try await $0.updateMembership(id: "", operations: replace)
    },
    .init(name: "removeMembership id", parameter: "id") { try await $0.removeMembership(id: "") },
    .init(name: "createRelationship id", parameter: "id") {
        _ = try await $0.createRelationship(className: "R", classVersion: 1, entityAId: "a", entityBId: "b", id: "")
    },
    .init(name: "getRelationship id", parameter: "id") { _ = try await $0.getRelationship(id: "") },
    .init(name: "setRelationship id", parameter: "id") { _ = try await $0.setRelationship(id: "", classVersion: 1) },
    .init(name: "updateRelationship id", parameter: "id") {
        _ = try await $0.updateRelationship(id: "", operations: replace)
    },
    .init(name: "removeRelationship id", parameter: "id") { try await $0.removeRelationship(id: "") },
    // An empty operations array.
    .init(name: "updateUser operations", parameter: "operations") {
        _ = try await $0.updateUser(id: "u", operations: [])
    },
    .init(name: "updateChannel operations", parameter: "operations") {
        _ = try await $0.updateChannel(id: "c", operations: [])
    },
    .init(name: "updateEntity operations", parameter: "operations") {
        _ = try await $0.updateEntity(id: "e", operations: [])
    },
    .init(name: "updateMembership operations", parameter: "operations") {
        _ = try await $0.updateMembership(id: "m", operations: [])
    },
    .init(name: "updateRelationship operations", parameter: "operations") {
        _ = try await $0.updateRelationship(id: "r", operations: [])
    },
    // Required class names and endpoints.
    .init(name: "createEntity className", parameter: "className") {
        _ = try await $0.createEntity(className: "", classVersion: 1)
    },
    .init(name: "getEntities className", parameter: "className") { _ = try await $0.getEntities(className: "") },
    .init(name: "createRelationship className", parameter: "className") {
        _ = try await $0.createRelationship(className: "", classVersion: 1, entityAId: "a", entityBId: "b")
    },
    .init(name: "getRelationships className", parameter: "className") {
        _ = try await $0.getRelationships(className: "")
    },
    .init(name: "createMembership channelId", parameter: "channelId") {
        _ = try await $0.createMembership(channelId: "", userId: "u", classVersion: 1)
    },
    .init(name: "createMembership userId", parameter: "userId") {
        _ = try await $0.createMembership(channelId: "c", userId: "", classVersion: 1)
    },
    .init(name: "createRelationship entityAId", parameter: "entityAId") {
        _ = try await $0.createRelationship(className: "R", classVersion: 1, entityAId: "", entityBId: "b")
    },
    .init(name: "createRelationship entityBId", parameter: "entityBId") {
        _ = try await $0.createRelationship(className: "R", classVersion: 1, entityAId: "a", entityBId: "")
    },
]

/// Calls that look questionable but must reach the server: the service validates them.
let passThroughCases: [LocalCheckCase] = [
    .init(name: "both filters", parameter: "") {
        _ = try await $0.getUsers(filterFast: "a == 1", filter: "b == 2")
    },
    .init(name: "empty filters", parameter: "") { _ = try await $0.getChannels(filterFast: "", filter: "") },
    .init(name: "unparsable filter", parameter: "") { _ = try await $0.getUsers(filter: "((((") },
    .init(name: "limit 0", parameter: "") { _ = try await $0.getUsers(limit: 0) },
    .init(name: "limit 1000", parameter: "") { _ = try await $0.getChannels(limit: 1000) },
    .init(name: "negative limit", parameter: "") { _ = try await $0.getMemberships(limit: -1) },
    .init(name: "sort on unknown property", parameter: "") {
        _ = try await $0.getEntities(className: "P", sort: [.init(property: "-nope")])
    },
    .init(name: "empty channel filter on memberships", parameter: "") {
        _ = try await $0.getMemberships(channelId: "", userId: "")
    },
    .init(name: "empty user class name", parameter: "") { _ = try await $0.getUsers(className: "") },
]

@Suite("Local checks")
struct DataSyncLocalCheckTests {
    @Test("an empty required argument fails locally and sends nothing", arguments: localCheckCases)
    func failsLocally(_ testCase: LocalCheckCase) async throws {
        let transport = ScriptedHTTPClient([])
        let pubnub = Fixtures.pubnub(transport: transport)
        let error = try await Fixtures.pubNubError { try await testCase.call(pubnub.dataSync) }
        #expect(error.reason == .missingRequiredParameter)
        #expect(error.details.first?.path == testCase.parameter)
        #expect(error.statusCode == nil)
        #expect(transport.requestCount == 0)
    }

    @Test("filters, sort and limit pass through unvalidated", arguments: passThroughCases)
    func passesThrough(_ testCase: LocalCheckCase) async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([]))
        try await testCase.call(pubnub.dataSync)
        #expect(recorder.requests.count == 1)
    }

    @Test("the completion form reports a local check through its Result")
    func completionReportsLocalCheck() async throws {
        let transport = ScriptedHTTPClient([])
        let pubnub = Fixtures.pubnub(transport: transport)
        let result = await withCheckedContinuation { continuation in
            pubnub.dataSync.getUser(id: "") { continuation.resume(returning: $0) }
        }
        #expect(throws: PubNubError.self) { try result.get() }
        #expect((try? result.get()) == nil)
        if case .failure(let error) = result {
            #expect(error.pubNubError?.reason == .missingRequiredParameter)
        }
        #expect(transport.requestCount == 0)
    }
}
