import DataSync
import DataSyncEmulator
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

/// Hands each request to the emulator in process (no sockets), so the client's wire form is
/// checked against an independent implementation of the service's semantics.
private struct InProcessEmulatorClient: HTTPClient {
    let emulator: Emulator

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let answer = await emulator.respond(
            to: ServerRequest(
                method: request.method.rawValue, target: request.target,
                headers: request.headers.map { (name: $0.name, value: $0.value) }, body: request.body ?? []))
        var headers = HTTPHeaders()
        for field in answer.headers { headers.add(name: field.name, value: field.value) }
        return HTTPResponse(status: answer.status, headers: headers, body: answer.body)
    }
}

@Suite("Every operation against the in-process emulator")
struct DataSyncEmulatorSmokeTests {
    private static let classes: JSONValue = [
        "entityClasses": [
            [
                "name": "Product",
                "versions": [
                    [
                        "version": 1,
                        "properties": [
                            ["name": "price", "pointer": "/payload/price", "type": "number", "filtering": "full"]
                        ],
                    ]
                ],
            ]
        ],
        "relationshipClasses": [
            ["name": "Bought", "entityAClass": "User", "entityBClass": "Product", "versions": [["version": 1]]]
        ],
    ]

    private func client() throws -> PubNub {
        let emulator = try Emulator(configuration: EmulatorConfiguration(classes: Self.classes))
        return PubNub(
            configuration: PubNubConfiguration(
                publishKey: nil, subscribeKey: "demo", userId: "tester", origin: "127.0.0.1:8090",
                useSecureConnections: false, transport: InProcessEmulatorClient(emulator: emulator)))
    }

    @Test("users and channels: create, get, list, set with eTag, update, remove")
    func usersAndChannels() async throws {
        let api = try client().dataSync
        let user = try await api.createUser(classVersion: 1, id: "u/1", status: "active", payload: ["name": "Ada"])
        #expect(user.id == "u/1")
        #expect(user.className == "User")
        #expect(try await api.getUser(id: "u/1").eTag == user.eTag)
        let set = try await api.setUser(
            id: "u/1", classVersion: 1, payload: ["name": "Ada L"], ifMatchesEtag: user.eTag)
        #expect(set.status == nil)
        let stale = try await Fixtures.pubNubError {
            _ = try await api.setUser(id: "u/1", classVersion: 1, ifMatchesEtag: user.eTag)
        }
        #expect(stale.reason == .preconditionFailed)
        let patched = try await api.updateUser(
            id: "u/1", operations: [.test(path: "/payload/name", value: "Ada L"), .add(path: "/status", value: "x")],
            ifMatchesEtag: set.eTag)
        #expect(patched.status == "x")
        let failedTest = try await Fixtures.pubNubError {
            _ = try await api.updateUser(id: "u/1", operations: [.test(path: "/status", value: "nope")])
        }
        #expect(failedTest.reason == .conflict)

        for index in 0..<5 {
            _ = try await api.createChannel(classVersion: 1, id: "ch-\(index)", payload: ["name": "c\(index)"])
        }
        let (page, next) = try await api.getChannels(limit: 2, sort: [.init(property: "id", ascending: false)])
        #expect(page.map(\.id) == ["ch-4", "ch-3"])
        #expect(next?.hasNext == true)
        var all: [String] = []
        for try await channel in api.channels(pageSize: 2, filter: "name != 'c2'") { all.append(channel.id) }
        #expect(all.sorted() == ["ch-0", "ch-1", "ch-3", "ch-4"])
        try await api.removeChannel(id: "ch-0")
        let gone = try await Fixtures.pubNubError { _ = try await api.getChannel(id: "ch-0") }
        #expect(gone.reason == .resourceNotFound)
        #expect(gone.errorCode?.hasPrefix("DS-") == true)
    }

    @Test("memberships, entities and relationships round-trip")
    func otherKinds() async throws {
        let api = try client().dataSync
        _ = try await api.createUser(classVersion: 1, id: "u1")
        _ = try await api.createChannel(classVersion: 1, id: "c1")
        let membership = try await api.createMembership(channelId: "c1", userId: "u1", classVersion: 1, id: "m1")
        #expect(membership.channelId == "c1")
        #expect(membership.userId == "u1")
        #expect(try await api.getMemberships(userId: "u1").memberships.map(\.id) == ["m1"])
        _ = try await api.setMembership(id: "m1", classVersion: 1, status: "owner")
        _ = try await api.updateMembership(id: "m1", operations: [.add(path: "/payload", value: ["r": 1])])
        #expect(try await api.getMembership(id: "m1").payload == ["r": 1])
        try await api.removeMembership(id: "m1")

        let product = try await api.createEntity(className: "Product", classVersion: 1, id: "p1", payload: ["price": 5])
        #expect(product.classLevel == .subKey)
        #expect(try await api.getEntities(className: "Product", filter: "price < 10").entities.map(\.id) == ["p1"])
        _ = try await api.setEntity(id: "p1", classVersion: 1, payload: ["price": 7])
        _ = try await api.updateEntity(id: "p1", operations: [.replace(path: "/payload/price", value: 8)])
        #expect(try await api.getEntity(id: "p1").payload?["price"] == 8)

        let bought = try await api.createRelationship(
            className: "Bought", classVersion: 1, entityAId: "u1", entityBId: "p1", id: "b1")
        #expect(bought.entityAId == "u1")
        #expect(try await api.getRelationships(className: "Bought", entityAId: "u1").relationships.count == 1)
        _ = try await api.setRelationship(id: "b1", classVersion: 1, status: "paid")
        _ = try await api.updateRelationship(id: "b1", operations: [.replace(path: "/status", value: "shipped")])
        #expect(try await api.getRelationship(id: "b1").status == "shipped")
        try await api.removeRelationship(id: "b1")
        try await api.removeEntity(id: "p1")
        try await api.removeUser(id: "u1")
    }
}

/// One short story over real loopback HTTP, per transport: the origin with a port and the `http`
/// scheme reach the emulator's server. (The full end-to-end suite lives with the emulator.)
@Suite("Over loopback HTTP")
struct DataSyncLoopbackTests {
    enum Backend: String, CaseIterable, Sendable {
        case platformDefault, curl, urlSession

        func transport() throws -> (any HTTPClient)? {
            switch self {
            case .platformDefault: return nil
            case .curl: return try CurlHTTPClient()
            case .urlSession: return try URLSessionHTTPClient()
            }
        }
    }

    @Test("create, get, list and remove with each transport", arguments: Backend.allCases)
    func story(_ backend: Backend) async throws {
        let emulator = try Emulator()
        let url = try await emulator.start()
        let port = try #require(url.port)
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: nil, subscribeKey: "demo", userId: "tester", origin: "127.0.0.1:\(port)",
                useSecureConnections: false, transport: try backend.transport(), retryPolicy: .none))
        let api = pubnub.dataSync
        try await emulator.run { _ in
            let user = try await api.createUser(classVersion: 1, id: "a/b c", payload: ["name": "Zoë \"Z\" + 50%"])
            #expect(try await api.getUser(id: "a/b c").eTag == user.eTag)
            let (users, _) = try await api.getUsers(filterFast: #"name == "Zoë \"Z\" + 50%""#)
            #expect(users.map(\.id) == ["a/b c"])
            try await api.removeUser(id: "a/b c", ifMatchesEtag: user.eTag)
            let error = try await Fixtures.pubNubError { _ = try await api.getUser(id: "a/b c") }
            #expect(error.reason == .resourceNotFound)
        }
    }
}
