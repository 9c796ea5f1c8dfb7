import DataSyncEmulator
import Foundation
import JSONCore
import Testing

@Suite("datasync … list", .timeLimit(.minutes(2)))
struct ListPagingTests {
    /// 250 users (u000…u249) and 250 channels, seeded so the emulator starts with them.
    static let seeded = EmulatorConfiguration(
        seed: [
            "keysets": [
                "demo": [
                    "users": .array(
                        (0..<250).map { index in
                            ["id": .string(String(format: "u%03d", index)), "payload": ["n": JSONValue(index)]]
                        }),
                    "channels": .array((0..<250).map { ["id": .string(String(format: "c%03d", $0))] }),
                ]
            ]
        ])

    @Test("--all follows the cursor over 250 objects, streams NDJSON and reports progress on stderr")
    func allPages() async throws {
        try await withEmulator(Self.seeded) { live in
            let result = try await live.run(["users", "list", "--all", "--limit", "100", "--sort", "id"])
            try #require(result.status == 0, "\(result)")
            let ids = try result.ndjson().map { try #require($0["id"]?.stringValue) }
            #expect(ids.count == 250)
            #expect(ids == (0..<250).map { String(format: "u%03d", $0) })
            // Every line is one whole object.
            #expect(try result.ndjson().allSatisfy { $0["eTag"]?.stringValue != nil })
            // Progress between pages and a summary, all on stderr.
            #expect(result.stderr.contains("100 so far (1 page), fetching page 2"), "\(result.stderr)")
            #expect(result.stderr.contains("200 so far (2 pages), fetching page 3"), "\(result.stderr)")
            #expect(result.stderr.contains("250 users in 3 pages"), "\(result.stderr)")
            #expect(!result.stdout.contains("so far"))

            let quiet = try await live.run(["channels", "list", "--all", "--limit", "100", "--quiet"])
            #expect(quiet.status == 0)
            #expect(quiet.lines.count == 250)
            #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
        }
    }

    @Test("without --all one page is printed and the next cursor goes to stderr; --cursor continues")
    func onePageAndCursor() async throws {
        try await withEmulator(Self.seeded) { live in
            let first = try await live.run(["users", "list", "--limit", "100", "--sort", "id:desc"])
            #expect(first.status == 0)
            #expect(first.lines.count == 100)
            #expect(try first.ndjson().first?["id"] == "u249")
            let note = try #require(first.stderr.split(separator: "\n").first { $0.contains("--cursor ") })
            let cursor = try #require(
                note.split(separator: " ").drop { $0 != "--cursor" }.dropFirst().first.map {
                    String($0).trimmingCharacters(in: CharacterSet(charactersIn: ","))
                })
            let rest = try await live.run([
                "users", "list", "--cursor", cursor, "--all", "--limit", "100", "--sort", "id:desc",
            ])
            #expect(rest.status == 0, "\(rest)")
            let ids = try rest.ndjson().map { try #require($0["id"]?.stringValue) }
            #expect(ids.count == 150)
            #expect(ids.first == "u149")
            #expect(ids.last == "u000")
        }
    }

    @Test("filters and sort reach the service; a bad filter is the service's error (exit 1)")
    func filtersAndSort() async throws {
        try await withEmulator(Self.seeded) { live in
            let filtered = try await live.run(
                ["users", "list", "--filter-fast", #"id LIKE "u24*""#, "--sort", "id:desc,createdAt"])
            #expect(filtered.status == 0, "\(filtered)")
            #expect(
                try filtered.ndjson().map { $0["id"] } == [
                    "u249", "u248", "u247", "u246", "u245", "u244", "u243", "u242", "u241", "u240",
                ])
            let bad = try await live.run(["users", "list", "--filter-fast", "id ==="])
            #expect(bad.status == 1, "\(bad)")
            #expect(bad.stderr.contains("HTTP 400"), "\(bad)")
            let badSort = try await live.run(["users", "list", "--sort", "id:dsec"])
            #expect(badSort.status == 2)
            #expect(badSort.stderr.contains("did you mean 'desc'?"), "\(badSort)")
        }
    }
}
