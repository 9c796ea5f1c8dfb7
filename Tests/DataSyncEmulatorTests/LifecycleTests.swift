import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("TTL, cascades and the change feed")
struct LifecycleTests {
    @Test(
        "expiresAt is creation + class TTL rounded up to the next UTC midnight",
        arguments: [
            // start offset in seconds from 2026-09-07T00:00:00Z, TTL days, expected expiresAt
            (27_295.265_625, 30, "2026-10-08T00:00:00Z"), (0, 30, "2026-10-07T00:00:00Z"),
            (86_399.5, 2, "2026-09-10T00:00:00Z"), (1, 1, "2026-09-09T00:00:00Z"),
        ])
    func ttlRounding(offset: Double, days: Int, expected: String) async throws {
        let start = Date(timeIntervalSince1970: 1_788_739_200 + offset)
        let client = try TestClient(configuration: EmulatorConfiguration(startTime: start))
        try await client.defineEntityClass([
            "name": "Short", "ttlDays": .int(Int64(days)), "versions": [["version": 1]],
        ])
        let reply = try await client.create("entities", ["entityClass": "Short", "entityClassVersion": 1])
        #expect(reply.data?["expiresAt"] == .string(expected))
        if days == 30 {
            // Users have the same 30 days. A fresh emulator: a second write on this stopped clock is
            // stamped a microsecond later, which at offset 0 is past midnight.
            let users = try TestClient(configuration: EmulatorConfiguration(startTime: start))
            #expect(try await users.user("u").data?["expiresAt"] == .string(expected))
        }
    }

    @Test("custom entity classes default to 31 days")
    func customDefault() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        let reply = try await client.create("entities", ["entityClass": "Product", "entityClassVersion": 1])
        #expect(reply.data?["expiresAt"] == "2026-10-09T00:00:00Z")
    }

    @Test("expiresAt is computed once: writes never refresh it")
    func ttlNotRefreshed() async throws {
        let client = try TestClient()
        let created = try await client.user("u1")
        await client.emulator.advanceTime(days: 10)
        let replaced = try await client.set("users", "u1", ["entityClassVersion": 1, "status": "later"])
        #expect(replaced.data?["expiresAt"] == created.data?["expiresAt"])
        #expect(replaced.data?["updatedAt"] != created.data?["updatedAt"])
    }

    /// Defines `Room`, a channel class with a 3-day TTL, and creates user `u1`, room `r1` and the
    /// membership `m1` between them.
    @discardableResult
    private static func roomWithMember(_ client: TestClient) async throws -> (room: Reply, membership: Reply) {
        try await client.defineEntityClass([
            "name": "Room", "extends": "Channel", "ttlDays": 3, "versions": [["version": 1]],
        ])
        try await client.user("u1")
        let room = try await client.create("channels", ["id": "r1", "entityClass": "Room", "entityClassVersion": 1])
        try #require(room.status == 201)
        return (room, try await client.membership("m1", channel: "r1", user: "u1"))
    }

    @Test("a membership expires at the earlier expiry of its user and channel")
    func membershipExpiry() async throws {
        let client = try TestClient()
        let (room, membership) = try await Self.roomWithMember(client)
        #expect(room.data?["expiresAt"] == "2026-09-11T00:00:00Z")
        #expect(membership.data?["expiresAt"] == "2026-09-11T00:00:00Z")
    }

    @Test("a relationship expires at the earlier expiry of its sides, or its own class TTL when sooner")
    func relationshipExpiry() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(["name": "Ticket", "ttlDays": 5, "versions": [["version": 1]]])
        try await client.defineRelationshipClass(["name": "Holds", "versions": [["version": 1]]])
        try await client.defineRelationshipClass(["name": "Glance", "ttlDays": 1, "versions": [["version": 1]]])
        try await client.user("u1")
        let ticket = try await client.create(
            "entities", ["id": "t1", "entityClass": "Ticket", "entityClassVersion": 1])
        #expect(ticket.data?["expiresAt"] == "2026-09-13T00:00:00Z")
        let holds = try await client.create(
            "relationships",
            ["entityAId": "u1", "entityBId": "t1", "relationshipClass": "Holds", "relationshipClassVersion": 1])
        #expect(holds.data?["expiresAt"] == "2026-09-13T00:00:00Z")
        let glance = try await client.create(
            "relationships",
            ["entityAId": "u1", "entityBId": "t1", "relationshipClass": "Glance", "relationshipClassVersion": 1])
        #expect(glance.data?["expiresAt"] == "2026-09-09T00:00:00Z")
    }

    @Test("an expired object is gone from reads and lists; the feed records the expiry")
    func expiredObjectsVanish() async throws {
        let client = try TestClient()
        try await Self.roomWithMember(client)
        let before = await client.emulator.lastSequence
        await client.emulator.advanceTime(days: 3)
        #expect(try await client.get("channels/r1").status == 200)
        await client.emulator.advanceTime(days: 1)
        #expect(try await client.get("channels/r1").status == 404)
        #expect(try await client.get("memberships/m1").status == 404)
        #expect(try await client.get("channels").ids == [])
        #expect(try await client.get("users/u1").status == 200)
        let events = await client.emulator.changes(after: before)
        #expect(events.map(\.id).sorted() == ["m1", "r1"])
        #expect(events.allSatisfy { $0.action == .delete })
        #expect(events.contains { $0.id == "r1" && $0.cause == .expiry })
        await client.emulator.advanceTime(days: 27)
        #expect(try await client.get("users").ids == [])
        // An expired id is free again.
        #expect(try await client.create("users", ["id": "u1", "entityClassVersion": 1]).status == 201)
    }

    @Test(
        "removing a user, channel or entity removes its memberships and relationships",
        arguments: ["users", "channels"])
    func cascade(removed: String) async throws {
        let client = try TestClient()
        try await client.defineRelationshipClass(["name": "Owns", "versions": [["version": 1]]])
        try await client.user("u1")
        try await client.user("u2")
        try await client.channel("c1")
        try await client.membership("m1", channel: "c1", user: "u1")
        try await client.membership("m2", channel: "c1", user: "u2")
        let owns = try await client.create(
            "relationships",
            [
                "id": "r1", "entityAId": "u1", "entityBId": "c1", "relationshipClass": "Owns",
                "relationshipClassVersion": 1,
            ])
        try #require(owns.status == 201)
        let before = await client.emulator.lastSequence
        let target = removed == "users" ? "u1" : "c1"
        #expect(try await client.remove(removed, target).status == 200)
        #expect(try await client.get("memberships/m1").status == 404)
        #expect(try await client.get("relationships/r1").status == 404)
        #expect(try await client.get("memberships/m2").status == (removed == "users" ? 200 : 404))
        let events = await client.emulator.changes(after: before)
        #expect(events.first?.id == target)
        #expect(events.first?.cause == .request)
        #expect(events.dropFirst().allSatisfy { $0.cause == .cascade && $0.action == .delete })
        // The pair is free again: a new membership may be created.
        if removed == "channels" {
            try await client.channel("c1")
            #expect(try await client.membership("m3", channel: "c1", user: "u2").status == 201)
        }
    }

    @Test("the change feed delivers every committed change in order with sequence numbers")
    func changeFeed() async throws {
        let client = try TestClient()
        let stream = await client.emulator.changes()
        try await client.user("u1")
        try await client.channel("c1")
        try await client.membership("m1", channel: "c1", user: "u1")
        _ = try await client.set("users", "u1", ["entityClassVersion": 1, "status": "x"])
        _ = try await client.get("users/u1")
        _ = try await client.create("users", ["id": "u1", "entityClassVersion": 1])
        _ = try await client.remove("channels", "c1")
        var events: [ChangeEvent] = []
        for await event in stream {
            events.append(event)
            if events.count == 6 { break }
        }
        #expect(events.map(\.sequence) == [1, 2, 3, 4, 5, 6])
        #expect(events.map(\.action) == [.create, .create, .create, .update, .delete, .delete])
        #expect(events.map(\.id) == ["u1", "c1", "m1", "u1", "c1", "m1"])
        #expect(events.map(\.objectType) == ["user", "channel", "membership", "user", "channel", "membership"])
        #expect(events[3].object["status"] == "x")
        #expect(events[2].object["userId"] == "u1")
        #expect(events[0].className == "User")
        #expect(events[0].classLevel == "Global")
        #expect(events[0].eventsEnabled)
        #expect(await client.emulator.lastSequence == 6)
    }
}

@Suite("State file, seed documents, clock")
struct PersistenceTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString).json").path
    }

    @Test("the state survives a restart: classes, objects, eTags, sequence and cursors")
    func restart() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = EmulatorConfiguration(stateFile: path, startTime: startInstant)
        // Scoped: an emulator holds its state file's lock until it is gone.
        var first: TestClient? = try TestClient(configuration: configuration)
        let (employee, cursor) = try await writeState(try #require(first))
        first = nil
        #expect(FileManager.default.fileExists(atPath: path))

        let second = try TestClient(configuration: configuration)
        #expect(try await second.get("users/e1").data == employee.data)
        #expect(try await second.get("memberships?user_id=u1").ids == ["m1"])
        #expect(try await second.get("users?limit=1&cursor=\(cursor)").ids == ["u1"])
        #expect(await second.emulator.lastSequence == 4)
        let next = try await second.user("u2")
        #expect(next.eTag != employee.eTag)
        #expect(try await second.create("users", ["id": "u1", "entityClassVersion": 1]).status == 409)
    }

    /// A class, two users, a channel and a membership; returns the employee created and the
    /// cursor of the first page of users.
    private func writeState(_ first: TestClient) async throws -> (Reply, String) {
        try await first.defineEntityClass(employeeClass)
        try await first.user("u1")
        let employee = try await first.create(
            "users", ["id": "e1", "entityClass": "Employee", "entityClassVersion": 1])
        try await first.channel("c1")
        try await first.membership("m1", channel: "c1", user: "u1")
        let page = try await first.get("users?limit=1")
        return (employee, try #require(page.nextCursor))
    }

    @Test(
        "a corrupt state file is reported and left untouched", arguments: ["{not json", "{\"format\":\"other\"}", "[]"])
    func corruptState(content: String) throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(content.utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        }
        #expect(error?.code == .corruptStateFile)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == content)
    }

    @Test("a seed document creates objects in order; it is skipped once a state file exists")
    func seed() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let seed: JSONValue = [
            "keysets": [
                "demo": [
                    "users": [["id": "alice", "payload": ["name": "Alice"]], ["id": "bob"]],
                    "channels": [["id": "general"]],
                    "memberships": [["id": "m1", "channelId": "general", "userId": "alice"]],
                ]
            ]
        ]
        let configuration = EmulatorConfiguration(seed: seed, stateFile: path, startTime: startInstant)
        do {
            let client = TestClient(emulator: try Emulator(configuration: configuration), subscribeKey: "demo")
            #expect(try await client.get("users").ids == ["alice", "bob"])
            #expect(try await client.get("memberships?channel_id=general").ids == ["m1"])
            _ = try await client.remove("users", "bob")
        }
        let restarted = TestClient(emulator: try Emulator(configuration: configuration), subscribeKey: "demo")
        #expect(try await restarted.get("users").ids == ["alice"])
    }

    @Test("an invalid seed is reported with the path of the refused object")
    func invalidSeed() async throws {
        let seed: JSONValue = ["keysets": ["demo": ["memberships": [["channelId": "nope", "userId": "nobody"]]]]]
        let error = #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(seed: seed))
        }
        #expect(error?.code == .invalidSeed)
        #expect(error?.message.hasPrefix("/keysets/demo/memberships/0/channelId") == true)
    }

    @Test("the clock can be set and advanced")
    func clock() async throws {
        let client = try TestClient()
        #expect(await client.emulator.currentTime == startInstant)
        await client.emulator.advanceTime(days: 2)
        #expect(await client.emulator.currentTime == startInstant.addingTimeInterval(2 * 86_400))
        let later = Date(timeIntervalSince1970: 1_800_000_000)
        await client.emulator.setTime(later)
        #expect(await client.emulator.currentTime == later)
        #expect(try await client.user("u1").data?["createdAt"] == "2027-01-15T08:00:00.000000Z")
    }
}
