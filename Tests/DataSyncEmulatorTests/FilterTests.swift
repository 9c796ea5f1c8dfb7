import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("Listing filters: filter_fast and filter")
struct FilterTests {
    /// Products p1…p6 with prices 10…60, titles, and notes.
    func products(limit: Int = 10) async throws -> TestClient {
        let client = try TestClient(
            configuration: EmulatorConfiguration(filterFastConditionLimit: limit, startTime: startInstant))
        try await client.defineEntityClass(productClass)
        for index in 1...6 {
            let reply = try await client.create(
                "entities",
                [
                    "id": .string("p\(index)"), "entityClass": "Product", "entityClassVersion": 2,
                    "status": .string(index % 2 == 0 ? "even" : "odd"),
                    "payload": [
                        "price": .int(Int64(index * 10)),
                        "title": .string(index <= 3 ? "Blue shoe \(index)" : "Red hat \(index)"),
                    ],
                ])
            try #require(reply.status == 201)
        }
        return client
    }

    func query(_ parameter: String, _ expression: String, extra: String = "") -> String {
        "entities?entity_class=Product&\(parameter)=\(PercentDecoding.encode(expression))\(extra)"
    }

    @Test("filter_fast uses simple and full properties and built-ins")
    func filterFast() async throws {
        let client = try await products()
        #expect(try await client.get(query("filter_fast", "price < 35")).ids == ["p1", "p2", "p3"])
        #expect(
            try await client.get(query("filter_fast", "price >= 20 && title LIKE \"red*\"")).ids == ["p4", "p5", "p6"])
        #expect(try await client.get(query("filter_fast", "status == 'even'")).ids == ["p2", "p4", "p6"])
        #expect(try await client.get(query("filter_fast", "id == \"p3\" || id == \"p5\"")).ids == ["p3", "p5"])
    }

    @Test("filter takes full properties only; a simple one is a 400 DS-0005")
    func filterFullOnly() async throws {
        let client = try await products()
        #expect(try await client.get(query("filter", "title LIKE \"*shoe*\"")).ids == ["p1", "p2", "p3"])
        let simple = try await client.get(query("filter", "price < 35"))
        simple.expectError(400, "DS-0005", at: "filter")
    }

    @Test(
        "eTag, expiresAt, none-mode and undeclared properties are refused",
        arguments: ["eTag == \"x\"", "expiresAt > \"2026\"", "secret == \"x\"", "color == \"red\""])
    func refused(expression: String) async throws {
        let client = try await products()
        let reply = try await client.get(query("filter_fast", expression))
        reply.expectError(400, "DS-0005", at: "filter_fast")
    }

    @Test("a property only on an older version is a 400 unless that version is given")
    func olderVersion() async throws {
        let client = try await products()
        let latest = try await client.get(query("filter_fast", "notes == \"x\""))
        latest.expectError(400, "DS-0005")
        let older = try await client.get(query("filter_fast", "notes == \"x\"", extra: "&entity_class_version=1"))
        #expect(older.status == 200)
    }

    @Test("filter_fast holds at most 10 conditions by default, more when configured")
    func conditionLimit() async throws {
        let eleven = (1...11).map { "price != \($0)" }.joined(separator: " && ")
        let client = try await products()
        let reply = try await client.get(query("filter_fast", eleven))
        reply.expectRefused(400, at: "filter_fast")
        #expect(
            try await client.get(query("filter", (1...11).map { "title != \"\($0)\"" }.joined(separator: " && ")))
                .status == 200)
        let raised = try await products(limit: 12)
        #expect(try await raised.get(query("filter_fast", eleven)).status == 200)
    }

    @Test("a syntax error is a 400 on the parameter")
    func syntaxError() async throws {
        let client = try await products()
        let reply = try await client.get(query("filter_fast", "price <"))
        reply.expectError(400, "DS-0004", at: "filter_fast")
    }

    @Test("sort alongside filter needs full properties; alongside filter_fast simple is enough")
    func sortTiers() async throws {
        let client = try await products()
        let withFast = try await client.get(query("filter_fast", "price > 15", extra: "&sort=price:desc"))
        #expect(withFast.ids == ["p6", "p5", "p4", "p3", "p2"])
        let withFull = try await client.get(query("filter", "title LIKE \"*\"", extra: "&sort=price"))
        withFull.expectRefused(400, at: "sort")
        #expect(try await client.get(query("filter", "title LIKE \"*\"", extra: "&sort=title:desc")).ids.first == "p6")
    }

    @Test("filtered pages follow cursors without repeats")
    func filteredPaging() async throws {
        let client = try await products()
        let ids = try await client.pageThrough(
            "entities", query: "entity_class=Product&limit=2&filter_fast=\(PercentDecoding.encode("price > 15"))")
        #expect(ids == ["p2", "p3", "p4", "p5", "p6"])
    }

    @Test("membership listing filters on built-ins only")
    func membershipBuiltIns() async throws {
        let client = try TestClient()
        try await client.user("u1")
        try await client.channel("c1")
        try await client.channel("c2")
        try await client.membership("m1", channel: "c1", user: "u1")
        try await client.membership("m2", channel: "c2", user: "u1")
        #expect(try await client.get("memberships?filter_fast=\(PercentDecoding.encode("id == \"m2\""))").ids == ["m2"])
        let payload = try await client.get("memberships?filter_fast=\(PercentDecoding.encode("role == \"admin\""))")
        payload.expectError(400, "DS-0005")
    }
}
