import DataSync
import DataSyncLive
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Testing

/// The objects the end-to-end tests write at random, and the truth each kind of view should
/// converge to, read fresh through REST.
enum World {
    static let users = ["u0", "u1", "u2", "u3", "u4"]
    static let channels = ["general", "c1", "c2"]
    static let products = ["p0", "p1", "p2", "p3"]
    /// Members of `general` created before any view starts, so its first read spans pages.
    static let fillers = (0..<110).map { "f\($0)" }

    /// Users, channels, products, a page and more of memberships in `general`, and a few links.
    static func seed(_ rig: LiveRig) async throws {
        let ds = rig.dataSync
        for user in users + fillers {
            await rig.tick()
            _ = try await ds.createUser(classVersion: 1, id: user, payload: ["n": 0])
        }
        for channel in channels {
            await rig.tick()
            _ = try await ds.createChannel(classVersion: 1, id: channel, payload: ["n": 0])
        }
        for product in products {
            await rig.tick()
            _ = try await ds.createEntity(className: "Product", classVersion: 1, id: product, payload: ["price": 1])
        }
        for user in fillers + ["u0", "u1"] {
            await rig.tick()
            _ = try await ds.createMembership(
                channelId: "general", userId: user, classVersion: 1, id: "general.\(user)")
        }
        for (a, b) in [("p0", "p1"), ("p1", "p2")] {
            await rig.tick()
            _ = try await ds.createRelationship(
                className: "Related", classVersion: 1, entityAId: a, entityBId: b, id: "r.\(a).\(b)")
        }
        await rig.tick()
        _ = try await ds.createRelationship(
            className: "Bought", classVersion: 1, entityAId: "u1", entityBId: "p1", id: "b.u1.p1")
    }

    /// `count` random writes by `client`: creates (including of ids deleted before), updates,
    /// deletes, and deletes of users, channels and products that cascade to their links. A write
    /// the service refuses (a conflict, something already gone) is part of the exercise.
    static func randomWrites(_ rig: LiveRig, by client: PubNub, seed: UInt64, count: Int) async {
        var rng = SeededRandomNumberGenerator(seed: seed)
        let ds = client.dataSync
        for step in 0..<count {
            await rig.tick()
            let user = pick(users, &rng)
            let channel = pick(channels, &rng)
            let product = pick(products, &rng)
            let other = pick(products, &rng)
            let value = JSONValue.int(Int64(step))
            switch Int.random(in: 0..<20, using: &rng) {
            case 0:
                await attempt { _ = try await ds.createUser(classVersion: 1, id: user, payload: ["n": value]) }
            case 1, 2:
                await attempt {
                    _ = try await ds.updateUser(id: user, operations: [.add(path: "/payload/n", value: value)])
                }
            case 3:
                await attempt { try await ds.removeUser(id: user) }
            case 4:
                await attempt { _ = try await ds.createChannel(classVersion: 1, id: channel, payload: ["n": value]) }
            case 5:
                await attempt { _ = try await ds.setChannel(id: channel, classVersion: 1, payload: ["n": value]) }
            case 6:
                // Rarely: a channel delete takes all its memberships.
                if Int.random(in: 0..<3, using: &rng) == 0 { await attempt { try await ds.removeChannel(id: channel) } }
            case 7:
                await attempt {
                    _ = try await ds.createEntity(
                        className: "Product", classVersion: 1, id: product, payload: ["price": value])
                }
            case 8:
                await attempt {
                    _ = try await ds.updateEntity(id: product, operations: [.add(path: "/payload/price", value: value)])
                }
            case 9:
                await attempt { try await ds.removeEntity(id: product) }
            case 10, 11, 12:
                await attempt {
                    _ = try await ds.createMembership(
                        channelId: channel, userId: user, classVersion: 1, id: "\(channel).\(user)",
                        status: "joined")
                }
            case 13, 14:
                let id =
                    Bool.random(using: &rng) ? "\(channel).\(user)" : "general.f\(Int.random(in: 0..<5, using: &rng))"
                await attempt {
                    _ = try await ds.updateMembership(
                        id: id, operations: [.add(path: "/status", value: .string("s\(step)"))])
                }
            case 15:
                await attempt { try await ds.removeMembership(id: "\(channel).\(user)") }
            case 16:
                guard product != other else { continue }
                await attempt {
                    _ = try await ds.createRelationship(
                        className: "Related", classVersion: 1, entityAId: product, entityBId: other,
                        id: "r.\(product).\(other)")
                }
            case 17:
                await attempt {
                    _ = try await ds.createRelationship(
                        className: "Bought", classVersion: 1, entityAId: user, entityBId: product,
                        id: "b.\(user).\(product)")
                }
            case 18:
                let id = Bool.random(using: &rng) ? "r.\(product).\(other)" : "b.\(user).\(product)"
                await attempt {
                    _ = try await ds.updateRelationship(
                        id: id, operations: [.add(path: "/status", value: .string("s\(step)"))])
                }
            default:
                let id = Bool.random(using: &rng) ? "r.\(product).\(other)" : "b.\(user).\(product)"
                await attempt { try await ds.removeRelationship(id: id) }
            }
        }
    }

    static func pick(_ names: [String], _ rng: inout SeededRandomNumberGenerator) -> String {
        names[Int.random(in: 0..<names.count, using: &rng)]
    }

    // MARK: The truth, read fresh

    static func user(_ ds: PubNubDataSync, _ id: String) async throws -> [PubNubDataSyncUser] {
        try await orNotFound { try await ds.getUser(id: id) }
    }

    static func channel(_ ds: PubNubDataSync, _ id: String) async throws -> [PubNubDataSyncChannel] {
        try await orNotFound { try await ds.getChannel(id: id) }
    }

    static func entity(_ ds: PubNubDataSync, _ id: String) async throws -> [PubNubDataSyncEntity] {
        try await orNotFound { try await ds.getEntity(id: id) }
    }

    static func memberships(_ ds: PubNubDataSync, channel: String? = nil, user: String? = nil) async throws
        -> [PubNubDataSyncMembership]
    {
        var all: [PubNubDataSyncMembership] = []
        for try await membership in ds.memberships(channelId: channel, userId: user, pageSize: 100) {
            all.append(membership)
        }
        return all
    }

    static func relationships(
        _ ds: PubNubDataSync, of id: String, className: String, side: PubNubLiveRelationshipSide
    ) async throws -> [PubNubDataSyncRelationship] {
        var all: [String: PubNubDataSyncRelationship] = [:]
        if side != .b {
            for try await link in ds.relationships(className: className, entityAId: id, pageSize: 100) {
                all[link.id] = link
            }
        }
        if side != .a {
            for try await link in ds.relationships(className: className, entityBId: id, pageSize: 100) {
                all[link.id] = link
            }
        }
        return Array(all.values)
    }

    private static func orNotFound<Object>(_ get: () async throws -> Object) async throws -> [Object] {
        do {
            return [try await get()]
        } catch let error as PubNubError where error.reason == .resourceNotFound {
            return []
        }
    }
}
