import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("Conflicts and links")
struct ConflictTests {
    @Test("a duplicate id is a 409", arguments: ["users", "channels"])
    func duplicateId(collection: String) async throws {
        let client = try TestClient()
        #expect(try await client.create(collection, ["id": "dup", "entityClassVersion": 1]).status == 201)
        let again = try await client.create(collection, ["id": "dup", "entityClassVersion": 1])
        again.expectError(409, "DS-0301", at: "/data/id")
    }

    @Test("users, channels and entities share one id space")
    func sharedIdSpace() async throws {
        let client = try TestClient()
        try await client.user("same")
        let channel = try await client.create("channels", ["id": "same", "entityClassVersion": 1])
        #expect(channel.status == 409)
    }

    @Test("a second membership for the same user and channel is a 409")
    func duplicateMembership() async throws {
        let client = try TestClient()
        try await client.user("u1")
        try await client.channel("c1")
        try await client.membership("m1", channel: "c1", user: "u1")
        let second = try await client.create(
            "memberships", ["id": "m2", "channelId": "c1", "userId": "u1", "relationshipClassVersion": 1])
        second.expectError(409, "DS-0301")
        let sameId = try await client.create(
            "memberships", ["id": "m1", "channelId": "c1", "userId": "u1", "relationshipClassVersion": 1])
        #expect(sameId.status == 409)
    }

    @Test("linked objects must exist", arguments: ["userId", "channelId"])
    func membershipLinks(missing: String) async throws {
        let client = try TestClient()
        try await client.user("u1")
        try await client.channel("c1")
        var data: [String: JSONValue] = ["channelId": "c1", "userId": "u1", "relationshipClassVersion": 1]
        data[missing] = "ghost"
        let reply = try await client.create("memberships", .object(data))
        reply.expectError(404, "DS-0100", at: "/data/\(missing)")
        #expect(reply.errorMessage == "Entity not found: ghost")
        // A user id where a channel is expected does not name a channel.
        let swapped = try await client.create(
            "memberships", ["channelId": "u1", "userId": "c1", "relationshipClassVersion": 1])
        #expect(swapped.status == 404)
    }

    @Test("a relationship's sides must exist and have the declared classes")
    func relationshipLinks() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        try await client.defineRelationshipClass([
            "name": "Bought", "entityAClass": "User", "entityBClass": "Product", "versions": [["version": 1]],
        ])
        try await client.user("u1")
        try await client.channel("c1")
        let missing = try await client.create(
            "relationships",
            ["entityAId": "u1", "entityBId": "p9", "relationshipClass": "Bought", "relationshipClassVersion": 1])
        missing.expectRefused(404, at: "/data/entityBId")
        let wrongClass = try await client.create(
            "relationships",
            ["entityAId": "u1", "entityBId": "c1", "relationshipClass": "Bought", "relationshipClassVersion": 1])
        wrongClass.expectError(400, "DS-0006")
        let membershipClass = try await client.create(
            "relationships",
            ["entityAId": "c1", "entityBId": "u1", "relationshipClass": "Membership", "relationshipClassVersion": 1])
        membershipClass.expectError(400, "DS-0006")
    }

    @Test(
        "a relationship that breaks its class's cardinality is a 409 DS-0801",
        arguments: [
            ("one-to-one", "a1", "b2", 409), ("one-to-one", "a2", "b1", 409), ("one-to-one", "a2", "b2", 201),
            ("one-to-many", "a1", "b2", 201), ("one-to-many", "a2", "b1", 409), ("many-to-many", "a2", "b1", 201),
            ("many-to-many", "a1", "b1", 201),
        ])
    func cardinality(rule: String, sideA: String, sideB: String, status: Int) async throws {
        let client = try TestClient()
        try await client.defineRelationshipClass([
            "name": "Link", "cardinality": .string(rule), "versions": [["version": 1]],
        ])
        for id in ["a1", "a2", "b1", "b2"] { try await client.user(id) }
        let first = try await client.create(
            "relationships",
            ["entityAId": "a1", "entityBId": "b1", "relationshipClass": "Link", "relationshipClassVersion": 1])
        #expect(first.status == 201)
        let second = try await client.create(
            "relationships",
            [
                "entityAId": .string(sideA), "entityBId": .string(sideB), "relationshipClass": "Link",
                "relationshipClassVersion": 1,
            ])
        #expect(second.status == status)
        if status == 409 { #expect(second.errorCode == "DS-0801") }
    }

    @Test("the membership class cannot be chosen")
    func membershipClassFixed() async throws {
        let client = try TestClient()
        try await client.user("u1")
        try await client.channel("c1")
        let reply = try await client.create(
            "memberships",
            ["channelId": "c1", "userId": "u1", "relationshipClass": "Follows", "relationshipClassVersion": 1])
        reply.expectRefused(400, at: "/data/relationshipClass")
        let created = try await client.membership("m1", channel: "c1", user: "u1")
        #expect(created.data?["relationshipClass"] == "Membership")
        #expect(created.data?["channelId"] == "c1")
        #expect(created.data?["userId"] == "u1")
    }
}
