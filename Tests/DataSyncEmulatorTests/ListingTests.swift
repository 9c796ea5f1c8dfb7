import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("Listing: families, linked-id filters, versions, sort, limit, cursors")
struct ListingTests {
    /// Users u1…u3, employees e1…e2 (Employee extends User), channels c1…c2.
    func family() async throws -> TestClient {
        let client = try TestClient()
        try await client.defineEntityClass(employeeClass)
        for id in ["u3", "u1", "u2"] { try await client.user(id) }
        for id in ["e2", "e1"] {
            let reply = try await client.create(
                "users", ["id": .string(id), "entityClass": "Employee", "entityClassVersion": 1])
            try #require(reply.status == 201)
        }
        try await client.channel("c1")
        try await client.channel("c2")
        return client
    }

    @Test("omitting entity_class lists the whole User family, ordered by id")
    func wholeFamily() async throws {
        let client = try await family()
        let reply = try await client.get("users")
        #expect(reply.status == 200)
        #expect(reply.contentType == "application/vnd.pubnub.objects.user+json;version=1")
        #expect(reply.ids == ["e1", "e2", "u1", "u2", "u3"])
        #expect(reply.json?["meta"] == ["has_next": false, "limit": 20])
        #expect(reply.json?["links"]?["self"] == "/v1/datasync/subkeys/sub-a/users")
        #expect(try await client.get("channels").ids == ["c1", "c2"])
    }

    @Test("a class lists its subclasses' objects; a subclass only its own")
    func subclassListing() async throws {
        let client = try await family()
        #expect(try await client.get("users?entity_class=User").ids == ["e1", "e2", "u1", "u2", "u3"])
        #expect(try await client.get("users?entity_class=Employee").ids == ["e1", "e2"])
        #expect(try await client.get("entities?entity_class=Employee").ids == ["e1", "e2"])
        #expect(try await client.get("entities?entity_class=User").ids == ["e1", "e2", "u1", "u2", "u3"])
        let wrongFamily = try await client.get("channels?entity_class=Employee")
        wrongFamily.expectError(400, "DS-0006")
        let unknown = try await client.get("users?entity_class=Nope")
        #expect(unknown.status == 404)
    }

    @Test("entities and relationships need their class parameter")
    func classParameterRequired() async throws {
        let client = try TestClient()
        let entities = try await client.get("entities")
        entities.expectRefused(400, at: "entity_class")
        let relationships = try await client.get("relationships")
        relationships.expectRefused(400, at: "relationship_class")
    }

    @Test("user_id and channel_id filter memberships, alone or together")
    func membershipFilters() async throws {
        let client = try TestClient()
        for id in ["u1", "u2"] { try await client.user(id) }
        for id in ["c1", "c2"] { try await client.channel(id) }
        try await client.membership("m11", channel: "c1", user: "u1")
        try await client.membership("m21", channel: "c2", user: "u1")
        try await client.membership("m12", channel: "c1", user: "u2")
        #expect(try await client.get("memberships").ids == ["m11", "m12", "m21"])
        #expect(try await client.get("memberships?user_id=u1").ids == ["m11", "m21"])
        #expect(try await client.get("memberships?channel_id=c1").ids == ["m11", "m12"])
        #expect(try await client.get("memberships?channel_id=c1&user_id=u2").ids == ["m12"])
        #expect(try await client.get("memberships?user_id=nobody").ids == [])
    }

    @Test("entity_a_id and entity_b_id filter relationships")
    func relationshipFilters() async throws {
        let client = try TestClient()
        try await client.defineRelationshipClass(["name": "Follows", "versions": [["version": 1]]])
        for id in ["a", "b", "c"] { try await client.user(id) }
        for (id, a, b) in [("r1", "a", "b"), ("r2", "a", "c"), ("r3", "b", "c")] {
            let reply = try await client.create(
                "relationships",
                [
                    "id": .string(id), "entityAId": .string(a), "entityBId": .string(b), "relationshipClass": "Follows",
                    "relationshipClassVersion": 1,
                ])
            try #require(reply.status == 201)
        }
        #expect(try await client.get("relationships?relationship_class=Follows&entity_a_id=a").ids == ["r1", "r2"])
        #expect(try await client.get("relationships?relationship_class=Follows&entity_b_id=c").ids == ["r2", "r3"])
        #expect(
            try await client.get("relationships?relationship_class=Follows&entity_a_id=b&entity_b_id=c").ids == ["r3"])
    }

    @Test("entity_class_version narrows to objects at that version; an unknown version is a 400")
    func versionNarrowing() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        for (id, version) in [("p1", 1), ("p2", 2), ("p3", 1)] {
            let reply = try await client.create(
                "entities", ["id": .string(id), "entityClass": "Product", "entityClassVersion": .int(Int64(version))])
            try #require(reply.status == 201)
        }
        #expect(try await client.get("entities?entity_class=Product").ids == ["p1", "p2", "p3"])
        #expect(try await client.get("entities?entity_class=Product&entity_class_version=1").ids == ["p1", "p3"])
        #expect(try await client.get("entities?entity_class=Product&entity_class_version=2").ids == ["p2"])
        let unknown = try await client.get("entities?entity_class=Product&entity_class_version=9")
        unknown.expectRefused(400, at: "entity_class_version")
        try await client.user("u1")
        try await client.channel("c1")
        try await client.membership("m1", channel: "c1", user: "u1")
        #expect(try await client.get("memberships?relationship_class_version=1").ids == ["m1"])
        #expect(try await client.get("memberships?relationship_class_version=2").status == 400)
    }

    @Test(
        "limit is 1 to 100, 20 by default",
        arguments: [("0", 400), ("101", 400), ("abc", 400), ("1", 200), ("100", 200)])
    func limits(value: String, status: Int) async throws {
        let client = try TestClient()
        for index in 0..<3 { try await client.user("u\(index)") }
        let reply = try await client.get("users?limit=\(value)")
        #expect(reply.status == status)
        if status == 400 {
            #expect(reply.errorCode == "DS-0004")
            #expect(reply.errorPath == "limit")
        } else {
            #expect(reply.json?["meta"]?["limit"] == .int(Int64(value) ?? 0))
        }
    }

    @Test("the default page holds 20 objects")
    func defaultLimit() async throws {
        let client = try TestClient()
        for index in 0..<25 { try await client.user(String(format: "u%02d", index)) }
        let reply = try await client.get("users")
        #expect(reply.ids.count == 20)
        #expect(reply.json?["meta"]?["has_next"] == true)
        #expect(reply.nextCursor != nil)
        let next = try #require(reply.json?["links"]?["next"]?.stringValue)
        #expect(next.hasPrefix("/v1/datasync/subkeys/sub-a/users?cursor="))
    }

    @Test("sort takes a comma list with :desc; built-ins and declared properties sort")
    func sorting() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        for (id, price, status) in [("p1", 30, "b"), ("p2", 10, "a"), ("p3", 20, "b"), ("p4", 20, "a")] {
            let reply = try await client.create(
                "entities",
                [
                    "id": .string(id), "entityClass": "Product", "entityClassVersion": 1, "status": .string(status),
                    "payload": ["price": .int(Int64(price))],
                ])
            try #require(reply.status == 201)
            await client.emulator.advanceTime(bySeconds: 1)
        }
        let base = "entities?entity_class=Product&sort="
        #expect(try await client.get(base + "price").ids == ["p2", "p3", "p4", "p1"])
        #expect(try await client.get(base + "price:desc").ids == ["p1", "p3", "p4", "p2"])
        #expect(try await client.get(base + "status,price:desc").ids == ["p4", "p2", "p1", "p3"])
        #expect(try await client.get(base + "createdAt:desc").ids == ["p4", "p3", "p2", "p1"])
        #expect(try await client.get(base + "id:desc").ids == ["p4", "p3", "p2", "p1"])
    }

    @Test(
        "sorting on an unknown, undeclared, none-mode, eTag or prefixed property is a 400",
        arguments: ["-price", "+id", "eTag", "expiresAt", "secret", "nothing", "price:up", "price,", "notes"])
    func badSort(sort: String) async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        let reply = try await client.get("entities?entity_class=Product&sort=\(PercentDecoding.encode(sort))")
        reply.expectRefused(400, at: "sort")
        #expect(reply.errorCode == (sort.contains(",") || sort.contains(":") ? "DS-0004" : "DS-0005"))
    }

    @Test("a property declared only on an older version sorts when that version is given")
    func olderVersionSort() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        let latest = try await client.get("entities?entity_class=Product&sort=notes")
        #expect(latest.status == 400)
        #expect(latest.errorMessage?.contains("another version") == true)
        let older = try await client.get("entities?entity_class=Product&entity_class_version=1&sort=notes")
        #expect(older.status == 200)
    }

    @Test("filter_fast and filter together are a 400")
    func bothFilters() async throws {
        let client = try TestClient()
        let reply = try await client.get("users?filter_fast=name%20%3D%3D%20%22a%22&filter=name%20%3D%3D%20%22a%22")
        reply.expectError(400, "DS-0004", at: "filter")
    }

    @Test("a repeated parameter is a 400")
    func repeatedParameter() async throws {
        let client = try TestClient()
        let reply = try await client.get("users?sort=id&sort=createdAt")
        reply.expectRefused(400, at: "sort")
    }

    @Test("paging with cursors returns every object exactly once, in order")
    func paging() async throws {
        let client = try TestClient()
        for index in 0..<23 { try await client.user(String(format: "u%02d", index)) }
        let ids = try await client.pageThrough("users", query: "limit=5")
        #expect(ids == (0..<23).map { String(format: "u%02d", $0) })
        let sorted = try await client.pageThrough("users", query: "limit=4&sort=createdAt:desc")
        #expect(Set(sorted).count == 23)
        #expect(sorted.count == 23)
    }

    @Test("a tampered, foreign or garbage cursor is a 400")
    func tamperedCursor() async throws {
        let client = try TestClient()
        for index in 0..<5 { try await client.user("u\(index)") }
        let first = try await client.get("users?limit=2")
        let cursor = try #require(first.nextCursor)
        #expect(try await client.get("users?limit=2&cursor=\(cursor)").status == 200)
        // Flip one character of the signed part.
        var characters = Array(cursor)
        characters[3] = characters[3] == "A" ? "B" : "A"
        let tampered = try await client.get("users?limit=2&cursor=\(String(characters))")
        tampered.expectError(400, "DS-0004", at: "cursor")
        let otherQuery = try await client.get("users?limit=2&sort=createdAt&cursor=\(cursor)")
        #expect(otherQuery.status == 400)
        let otherKeyset = TestClient(emulator: client.emulator, subscribeKey: "sub-b")
        #expect(try await otherKeyset.get("users?limit=2&cursor=\(cursor)").status == 400)
        #expect(try await client.get("users?cursor=eyJpIjoiMzQ5MSIsInN2IjpbXX0").status == 400)
        #expect(try await client.get("channels?limit=2&cursor=\(cursor)").status == 400)
    }

    @Test("paging while objects are created, updated and removed never returns an object twice")
    func pagingWhileChanging() async throws {
        let client = try TestClient()
        for index in 0..<30 { try await client.user(String(format: "u%02d", index)) }
        for (round, sort) in ["", "&sort=updatedAt", "&sort=updatedAt:desc", "&sort=createdAt:desc", "&sort=status"]
            .enumerated()
        {
            var counter = 0
            let ids = try await client.pageThrough("users", query: "limit=4" + sort) { page in
                // Touch objects on both sides of the cursor, add new ones, remove one.
                for index in [0, 5, 12, 29] {
                    let reply = try await client.set(
                        "users", String(format: "u%02d", index),
                        ["entityClassVersion": 1, "status": .string("s\(page)")])
                    try #require(reply.status == 200)
                }
                counter += 1
                try await client.user("new\(round)-\(counter)")
                if page == 2 { _ = try await client.remove("users", "u20") }
            }
            #expect(ids.count == Set(ids).count, "sort \(sort) returned duplicates")
        }
    }
}
