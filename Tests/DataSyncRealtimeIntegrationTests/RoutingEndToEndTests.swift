import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Realtime
import Testing

/// The seed's routing table, end to end: DataSync REST writes through one client, events through
/// the subscribe loop of another, over real HTTP on both backends.
@Suite(.timeLimit(.minutes(2)))
struct RoutingEndToEndTests {
    @Test(
        "users, channels, entities and a User subclass get their own changes on their id",
        arguments: HTTPBackend.allCases)
    func ownChannel(_ backend: HTTPBackend) async throws {
        try await withRig(backend) { rig in
            let ids = ["alice", "general", "p1", "e1"]
            let inboxes = try await rig.watch(ids)

            let ds = rig.dataSync
            let alice = try await ds.createUser(classVersion: 1, id: "alice", status: "active", payload: ["name": "A"])
            let general = try await ds.createChannel(classVersion: 1, id: "general", payload: ["name": "General"])
            let product = try await ds.createEntity(
                className: "Product", classVersion: 1, id: "p1", payload: ["price": 10])
            let employee = try await ds.createUser(
                className: "Employee", classVersion: 1, id: "e1", payload: ["team": "core"])
            let alice2 = try await ds.updateUser(id: "alice", operations: [.replace(path: "/payload/name", value: "B")])
            let general2 = try await ds.setChannel(id: "general", classVersion: 1, payload: ["name": "Main"])
            let product2 = try await ds.updateEntity(
                id: "p1", operations: [.replace(path: "/payload/price", value: 12)])
            let employee2 = try await ds.updateUser(
                id: "e1", operations: [.replace(path: "/payload/team", value: "web")])
            for id in ["alice", "e1"] { try await ds.removeUser(id: id) }
            try await ds.removeChannel(id: "general")
            try await ds.removeEntity(id: "p1")
            await rig.mark("end", on: ids)

            var received: [String: [PubNubDataSyncEvent]] = [:]
            let expectations: [(kind: PubNubDataSyncKind, className: String, eTags: [String])] = [
                (.user, "User", [alice.eTag, alice2.eTag]), (.channel, "Channel", [general.eTag, general2.eTag]),
                (.custom, "Product", [product.eTag, product2.eTag]),
                (.user, "Employee", [employee.eTag, employee2.eTag]),
            ]
            for (index, inbox) in inboxes.enumerated() {
                let id = ids[index]
                let expected = expectations[index]
                let events = await inbox.events(until: "end")
                received[id] = events
                try #require(events.count == 3, "\(id): \(events)")
                #expect(events.map(\.change) == [.entityCreated, .entityUpdated, .entityDeleted], "\(id)")
                for event in events {
                    #expect(event.kind == expected.kind, "\(id)")
                    #expect(event.className == expected.className, "\(id)")
                    #expect(event.objectId == id)
                    #expect(event.channel == id)
                    #expect(event.projection == PubNubDataSyncEvent.defaultProjection)
                }
                #expect(events[0..<2].map { $0.entity?.eTag } == expected.eTags, "\(id)")
                #expect(events[2].removed?.id == id)
                #expect(events[2].removed?.endpoints == nil, "\(id): users, channels and entities have no endpoints")
            }
            // Each kind narrows to its own model, with the state the REST answer had.
            #expect(received["alice"]?[0].user == alice)
            #expect(received["alice"]?[1].user == alice2)
            #expect(received["general"]?[0].channelObject == general)
            #expect(received["general"]?[1].channelObject == general2)
            #expect(received["p1"]?[1].customEntity == product2)
            #expect(received["e1"]?[1].user == employee2)
            #expect(received["e1"]?[1].user?.payload == ["team": "web"])
        }
    }

    @Test("a membership's create, update and delete reach its channel and its user", arguments: HTTPBackend.allCases)
    func membershipOnBothEndpoints(_ backend: HTTPBackend) async throws {
        try await withRig(backend) { rig in
            let ds = rig.dataSync
            try await rig.seed(users: ["alice"], channels: ["general"])
            let sides = ["alice", "general"]
            let inboxes = try await rig.watch(sides)

            let created = try await ds.createMembership(
                channelId: "general", userId: "alice", classVersion: 1, id: "m1", status: "invited")
            let updated = try await ds.updateMembership(
                id: "m1", operations: [.replace(path: "/status", value: "active")])
            try await ds.removeMembership(id: "m1")
            await rig.mark("end", on: sides)

            for (side, events) in try await linkLifecycle(sides, inboxes) {
                #expect(events.allSatisfy { $0.kind == .membership && $0.className == "Membership" })
                #expect(events.allSatisfy { $0.objectId == "m1" })
                #expect(events[0].membership == created, "\(side)")
                #expect(events[1].membership == updated, "\(side)")
                #expect(events[1].relationship?.entityAId == "general")
                #expect(events[1].relationship?.entityBId == "alice")
                #expect(events[2].removed?.endpoints == .known(entityAId: "general", entityBId: "alice"), "\(side)")
            }
        }
    }

    @Test("a relationship's create, update and delete reach both of its sides", arguments: HTTPBackend.allCases)
    func relationshipOnBothEndpoints(_ backend: HTTPBackend) async throws {
        try await withRig(backend) { rig in
            let ds = rig.dataSync
            try await rig.seed(users: ["alice"], products: ["p1"])
            let sides = ["alice", "p1"]
            let inboxes = try await rig.watch(sides)

            let created = try await ds.createRelationship(
                className: "Bought", classVersion: 1, entityAId: "alice", entityBId: "p1", id: "r1",
                payload: ["qty": 1])
            let updated = try await ds.updateRelationship(
                id: "r1", operations: [.replace(path: "/payload/qty", value: 2)])
            try await ds.removeRelationship(id: "r1")
            await rig.mark("end", on: sides)

            for (side, events) in try await linkLifecycle(sides, inboxes) {
                #expect(events.allSatisfy { $0.kind == .custom && $0.className == "Bought" })
                #expect(events[0].customRelationship == created, "\(side)")
                #expect(events[1].customRelationship == updated, "\(side)")
                #expect(events[1].customRelationship?.payload == ["qty": 2])
                #expect(events[2].removed?.endpoints == .known(entityAId: "alice", entityBId: "p1"), "\(side)")
            }
        }
    }

    @Test(
        "an update reaches every object linked to the changed one, in both directions", arguments: HTTPBackend.allCases)
    func updatesFanOut(_ backend: HTTPBackend) async throws {
        try await withRig(backend) { rig in
            let ds = rig.dataSync
            try await rig.seed(users: ["alice"], channels: ["general"], products: ["p1", "p2"])
            _ = try await ds.createMembership(channelId: "general", userId: "alice", classVersion: 1)
            _ = try await ds.createRelationship(
                className: "Bought", classVersion: 1, entityAId: "alice", entityBId: "p1")
            let ids = ["alice", "general", "p1", "p2"]
            let inboxes = try await rig.watch(ids)

            let alice = try await ds.updateUser(id: "alice", operations: [.add(path: "/payload/name", value: "A")])
            let product = try await ds.updateEntity(id: "p1", operations: [.add(path: "/payload/price", value: 3)])
            let general = try await ds.updateChannel(
                id: "general", operations: [.add(path: "/payload/name", value: "G")])
            _ = try await ds.updateEntity(id: "p2", operations: [.add(path: "/payload/price", value: 4)])
            await rig.mark("end", on: ids)

            // (object, channel it came on) per receiver, in write order.
            let expected: [[String]] = [
                ["alice", "p1", "general"],  // alice: herself, and both objects linked to her
                ["alice", "general"],  // general: its member, itself; not p1, which it is not linked to
                ["alice", "p1"],  // p1: the user who bought it, itself
                ["p2"],  // p2: linked to nothing
            ]
            var received: [[PubNubDataSyncEvent]] = []
            for (index, inbox) in inboxes.enumerated() {
                let events = await inbox.events(until: "end")
                received.append(events)
                #expect(events.map { $0.objectId ?? "?" } == expected[index], "\(ids[index])")
                #expect(events.allSatisfy { $0.change == .entityUpdated && $0.channel == ids[index] })
            }
            // A connected object's channel carries the changed object's full state and kind.
            #expect(received[1].first?.user == alice)
            #expect(received[2].first?.user == alice)
            #expect(received[0].dropFirst().first?.customEntity == product)
            #expect(received[0].last?.channelObject == general)
            #expect(received[0].last?.kind == .channel)
        }
    }
}

/// What each side of a link heard before the marker `end`, once it is checked to be the link's
/// create, update and delete, each on that side's own channel.
private func linkLifecycle(
    _ sides: [String], _ inboxes: [Inbox]
) async throws -> [(side: String, events: [PubNubDataSyncEvent])] {
    var heard: [(side: String, events: [PubNubDataSyncEvent])] = []
    for (side, inbox) in zip(sides, inboxes) {
        let events = await inbox.events(until: "end")
        try #require(events.count == 3, "\(side): \(events)")
        #expect(events.map(\.change) == [.relationshipCreated, .relationshipUpdated, .relationshipDeleted], "\(side)")
        #expect(events.allSatisfy { $0.channel == side }, "\(side): \(events)")
        heard.append((side, events))
    }
    return heard
}

@Suite(.timeLimit(.minutes(2)))
struct DeleteEndToEndTests {
    @Test(
        "a delete reaches linked objects, then cascades its links, naming their sides", arguments: HTTPBackend.allCases)
    func deleteCascades(_ backend: HTTPBackend) async throws {
        try await withRig(backend) { rig in
            let ds = rig.dataSync
            try await rig.seed(users: ["alice"], channels: ["general", "lobby"], products: ["p1"])
            // Created before anyone watched: the client never learns its sides.
            _ = try await ds.createMembership(channelId: "lobby", userId: "alice", classVersion: 1, id: "m0")
            let ids = ["general", "lobby", "p1"]
            let client = record(rig.watcher)
            let inboxes = try await rig.watch(ids)

            _ = try await ds.createMembership(channelId: "general", userId: "alice", classVersion: 1, id: "m1")
            _ = try await ds.createRelationship(
                className: "Bought", classVersion: 1, entityAId: "alice", entityBId: "p1", id: "r1")
            try await ds.removeUser(id: "alice")
            await rig.mark("end", on: ids)

            let general = await inboxes[0].events(until: "end")
            #expect(general.map(\.change) == [.relationshipCreated, .entityDeleted, .relationshipDeleted])
            #expect(general.map { $0.objectId ?? "?" } == ["m1", "alice", "m1"])
            #expect(general.map(\.kind) == [.membership, .user, .membership])
            #expect(general.last?.removed?.endpoints == .known(entityAId: "general", entityBId: "alice"))
            #expect(general.dropFirst().first?.removed?.className == "User")

            let lobby = await inboxes[1].events(until: "end")
            #expect(lobby.map(\.change) == [.entityDeleted, .relationshipDeleted])
            #expect(lobby.map { $0.objectId ?? "?" } == ["alice", "m0"])
            #expect(lobby.last?.removed?.endpoints == .unknown, "m0 was created before this client subscribed")

            let product = await inboxes[2].events(until: "end")
            #expect(product.map(\.change) == [.relationshipCreated, .entityDeleted, .relationshipDeleted])
            #expect(product.map { $0.objectId ?? "?" } == ["r1", "alice", "r1"])
            #expect(product.last?.kind == .custom)
            #expect(product.last?.removed?.endpoints == .known(entityAId: "alice", entityBId: "p1"))

            // The client-level listener saw alice's delete once, although three channels brought it.
            let all = await client.events(until: "end")
            #expect(all.map { $0.objectId ?? "?" } == ["m1", "r1", "alice", "m0", "m1", "r1"], "\(all)")
        }
    }
}
