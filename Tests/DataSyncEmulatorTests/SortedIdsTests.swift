import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite("SortedIds: the default-order index")
struct SortedIdsTests {
    @Test("random inserts and removes keep UTF-8 order; cursors start after any id", arguments: [11, 12] as [UInt64])
    func matchesReference(seed: UInt64) {
        var random = SeededRandom(state: seed)
        var index = SortedIds()
        var reference: Set<String> = []
        let alphabet = ["a", "b", "z", "é", "0", "-", "Ω", "a1", "b22"]
        for _ in 0..<6_000 {
            let id = (0..<3).map { _ in pick(alphabet, &random) }.joined() + String(random.next() % 400)
            if random.next() % 4 == 0, let victim = reference.first {
                index.remove(victim)
                reference.remove(victim)
            } else {
                index.insert(id)
                reference.insert(id)
            }
        }
        let expected = reference.sorted { SortedIds.less($0, $1) }
        var walked: [String] = []
        var cursor = index.cursor(after: nil)
        while let id = index.id(at: cursor) {
            walked.append(id)
            index.advance(&cursor)
        }
        #expect(walked == expected)
        #expect(index.count == expected.count)
        #expect(index.chunks.count > 1)
        #expect(index.chunks.allSatisfy { $0.count <= SortedIds.maximumChunk })
        for probe in ["", "a", "m", "zzz", "é", expected[expected.count / 2]] {
            let after = index.id(at: index.cursor(after: probe))
            #expect(after == expected.first { SortedIds.less(probe, $0) })
        }
    }

    @Test("paging in id order over a family larger than one chunk returns everything once, in order")
    func largeFamilyPaging() async throws {
        let client = try TestClient()
        try await client.defineEntityClass(employeeClass)
        var expected: [String] = []
        for number in 0..<1_300 {
            let id = "u\(number * 7919 % 1_300)"
            let employee = number % 3 == 0
            let reply = try await client.create(
                "users",
                [
                    "id": .string(id), "entityClass": employee ? "Employee" : "User", "entityClassVersion": 1,
                    "status": employee ? "staff" : "guest",
                ])
            try #require(reply.status == 201)
            expected.append(id)
        }
        expected.sort { SortedIds.less($0, $1) }
        #expect(try await client.pageThrough("users", query: "limit=100") == expected)
        let staff = try await client.pageThrough(
            "users", query: "limit=37&filter_fast=\(PercentDecoding.encode("status == \"staff\""))")
        #expect(staff.count == 434)
        #expect(staff == staff.sorted { SortedIds.less($0, $1) })
        // Removing objects between pages neither repeats nor skips the ones left.
        var removed: Set<String> = []
        let ids = try await client.pageThrough("users", query: "limit=100") { page in
            let victim = expected[(page * 97) % expected.count]
            if try await client.remove("users", victim).status == 200 { removed.insert(victim) }
        }
        #expect(Set(ids).count == ids.count)
        #expect(Set(ids).union(removed) == Set(expected))
    }
}
