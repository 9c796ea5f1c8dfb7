import FilterExpression
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

/// The bounds that keep one list's filter evaluation, run under the engine's lock, short
/// (issue 35, item 2): a linear LIKE, a 1 MiB request body, and caps on filter size.
@Suite("Listing filters: bounded work for hostile filters and large objects")
struct FilterBoundsTests {
    func client() async throws -> TestClient {
        let client = try TestClient(configuration: EmulatorConfiguration(startTime: startInstant))
        try await client.defineEntityClass(productClass)
        return client
    }

    func create(_ client: TestClient, _ id: String, title: String) async throws -> Reply {
        try await client.create(
            "entities",
            [
                "id": .string(id), "entityClass": "Product", "entityClassVersion": 2,
                "payload": ["title": .string(title)],
            ])
    }

    func query(_ parameter: String, _ expression: String) -> String {
        "entities?entity_class=Product&\(parameter)=\(PercentDecoding.encode(expression))"
    }

    @Test("an object as large as a request may be and the issue's LIKE are answered, in linear comparisons")
    func hostileLikeOverTheLargestObject() async throws {
        let client = try await client()
        // The body is `{"data":{…,"payload":{"title":"aaaa…"}}}`: leave room for the rest.
        let title = String(repeating: "a", count: DataSyncService.maximumBodyBytes - 200)
        let big = try await create(client, "big", title: title)
        try #require(big.status == 201, "\(big.errorMessage ?? "")")
        #expect(try await create(client, "small", title: "xaab").status == 201)
        let pattern = "*" + String(repeating: "a", count: 16_000) + "b*"
        let reply = try await client.get(query("filter", "title LIKE \"\(pattern)\" || title LIKE \"*aab\""))
        #expect(reply.status == 200)
        #expect(reply.ids == ["small"])
        // The same match, counted: linear in the text plus the pattern.
        var steps = 0
        #expect(!LikePattern(pattern, caseSensitive: false).matches(title, steps: &steps))
        #expect(steps <= 3 * (title.utf8.count + pattern.utf8.count), "\(steps) comparisons")
    }

    @Test("a DataSync request body over 1 MiB is a 413")
    func bodyLimit() async throws {
        let client = try await client()
        let reply = try await create(
            client, "huge", title: String(repeating: "a", count: DataSyncService.maximumBodyBytes))
        #expect(reply.status == 413)
        #expect(reply.errorMessage?.contains("1 MiB") == true)
        #expect(try await client.get("entities/huge?entity_class=Product").status == 404)
    }

    @Test("a filter over 32 KiB or with more than 256 conditions is a 400 on the parameter")
    func filterSize() async throws {
        let client = try await client()
        let long = "title == \"" + String(repeating: "a", count: FilterCompiler.maximumFilterBytes) + "\""
        let tooLong = try await client.get(query("filter", long))
        tooLong.expectRefused(400, at: "filter")
        let many = Array(repeating: "title == \"a\"", count: FilterCompiler.maximumFilterConditions + 1)
            .joined(separator: " || ")
        let tooMany = try await client.get(query("filter", many))
        tooMany.expectRefused(400, at: "filter")
        let enough = Array(repeating: "title == \"a\"", count: FilterCompiler.maximumFilterConditions)
            .joined(separator: " || ")
        #expect(try await client.get(query("filter", enough)).status == 200)
    }
}
