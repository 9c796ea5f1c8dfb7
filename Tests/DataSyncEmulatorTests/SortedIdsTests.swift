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

@Suite("Sorted listing agrees with an independent sort")
struct SortedListingTests {
    @Test("paging any sort over many ties returns exactly the expected order", arguments: [21, 22] as [UInt64])
    func pagedSortsMatchReference(seed: UInt64) async throws {
        var random = SeededRandom(state: seed)
        let client = try TestClient()
        try await client.defineEntityClass(productClass)
        struct Row {
            var id: String
            var price: Int64
            var status: String
        }
        var rows: [Row] = []
        for number in 0..<300 {
            let row = Row(
                id: "p\(random.next() % 100_000)-\(number)", price: Int64(random.next() % 20),
                status: pick(["a", "b", "c"], &random))
            let reply = try await client.create(
                "entities",
                [
                    "id": .string(row.id), "entityClass": "Product", "entityClassVersion": 1,
                    "status": .string(row.status), "payload": ["price": .int(row.price)],
                ])
            try #require(reply.status == 201)
            rows.append(row)
        }
        func byId(_ left: Row, _ right: Row) -> Bool { SortedIds.less(left.id, right.id) }
        let expectations: [(String, [Row])] = [
            ("price", rows.sorted { $0.price != $1.price ? $0.price < $1.price : byId($0, $1) }),
            ("price:desc", rows.sorted { $0.price != $1.price ? $0.price > $1.price : byId($0, $1) }),
            (
                "status,price:desc",
                rows.sorted {
                    $0.status != $1.status
                        ? $0.status < $1.status : $0.price != $1.price ? $0.price > $1.price : byId($0, $1)
                }
            ),
            ("id:desc", rows.sorted { byId($1, $0) }),
        ]
        for (sort, expected) in expectations {
            let ids = try await client.pageThrough("entities", query: "entity_class=Product&limit=7&sort=\(sort)")
            #expect(ids == expected.map(\.id), "sort \(sort)")
        }
        let cheap = try await client.pageThrough(
            "entities",
            query: "entity_class=Product&limit=9&sort=price:desc&filter_fast=\(PercentDecoding.encode("price < 5"))")
        #expect(
            cheap
                == rows.filter { $0.price < 5 }.sorted { $0.price != $1.price ? $0.price > $1.price : byId($0, $1) }
                .map(\.id))
    }
}
