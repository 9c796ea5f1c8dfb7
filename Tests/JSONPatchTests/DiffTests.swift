import DataSyncTestSupport
import JSONCore
import JSONPatch
import Testing

@Suite struct DiffTests {
    static let cases: [(String, JSONValue, JSONValue, [PatchOperation])] = [
        ("equal", ["a": [1, 2]], ["a": [1.0, 2]], []),
        ("scalar change", ["a": 1, "b": 2], ["a": 1, "b": 3], [.replace(path: "/b", value: 3)]),
        ("member added", ["a": 1], ["a": 1, "b/c": 2], [.add(path: "/b~1c", value: 2)]),
        ("member removed", ["a": 1, "m~n": 2], ["a": 1], [.remove(path: "/m~0n")]),
        ("nested", ["a": ["b": ["c": 1]]], ["a": ["b": ["c": 2]]], [.replace(path: "/a/b/c", value: 2)]),
        ("type change", ["a": [1]], ["a": ["x": 1]], [.replace(path: "/a", value: ["x": 1])]),
        ("root scalar", 1, "x", [.replace(path: "", value: "x")]),
        ("append", ["t": [1, 2]], ["t": [1, 2, 3]], [.add(path: "/t/-", value: 3)]),
        ("append two", [1, 2], [1, 2, 3, 4], [.add(path: "/-", value: 3), .add(path: "/-", value: 4)]),
        ("remove last", [1, 2, 3], [1, 2], [.remove(path: "/2")]),
        ("remove first", [1, 2, 3], [2, 3], [.remove(path: "/0")]),
        ("insert first", [1, 2, 3], [0, 1, 2, 3], [.add(path: "/0", value: 0)]),
        ("insert middle", [1, 2, 3], [1, 9, 2, 3], [.add(path: "/1", value: 9)]),
        ("remove middle run", [1, 2, 3, 4, 5, 6], [1, 2, 5, 6], [.remove(path: "/3"), .remove(path: "/2")]),
        ("mostly removed", [1, 2, 3, 4, 5], [1, 5], [.replace(path: "", value: [1, 5])]),
        ("change one element", [1, 2, 3], [1, 7, 3], [.replace(path: "/1", value: 7)]),
        (
            "change inside one element", [["id": 1, "n": "a"], ["id": 2, "n": "b"]],
            [["id": 1, "n": "a"], ["id": 2, "n": "c"]], [.replace(path: "/1/n", value: "c")]
        ),
        ("everything changed", [1, 2, 3], [4, 5, 6], [.replace(path: "", value: [4, 5, 6])]),
        ("emptied", ["t": [1, 2]], ["t": []], [.replace(path: "/t", value: [])]),
    ]

    @Test(arguments: cases)
    func producesSmallPatches(name: String, old: JSONValue, new: JSONValue, expected: [PatchOperation]) throws {
        let operations = Patch.diff(from: old, to: new)
        #expect(operations == expected, "\(name)")
        #expect(try Patch.apply(operations, to: old) == new, "\(name)")
    }

    @Test func longArraysGetOneOperationPerCommonEdit() throws {
        let long = JSONValue.array((0..<1_000).map { .object(["id": .int(Int64($0)), "n": "x"]) })
        guard case .array(let elements) = long else { return }
        var changed = elements
        changed[500] = ["id": 500, "n": "y"]
        var inserted = elements
        inserted.insert("new", at: 300)
        let edits: [(JSONValue, [PatchOperation])] = [
            (.array(elements + ["tail"]), [.add(path: "/-", value: "tail")]),
            (.array(Array(elements.dropFirst())), [.remove(path: "/0")]),
            (.array(Array(elements.dropLast())), [.remove(path: "/999")]),
            (.array(changed), [.replace(path: "/500/n", value: "y")]),
            (.array(inserted), [.add(path: "/300", value: "new")]),
        ]
        for (target, expected) in edits {
            let operations = Patch.diff(from: long, to: target)
            #expect(operations == expected)
            #expect(try Patch.apply(operations, to: long) == target)
        }
    }

    @Test func diffUnderARoot() throws {
        let operations = Patch.diff(from: ["a": 1], to: ["a": 2], under: .payload)
        #expect(operations == [.replace(path: "/payload/a", value: 2)])
    }

    struct Product: Codable, Equatable {
        var name: String
        var price: Double
        var tags: [String]
        var note: String?
        var sizes: [String: Int]
    }

    @Test func diffOfEncodableValues() throws {
        let before = Product(name: "Sneaker", price: 99.99, tags: ["new"], note: "x", sizes: ["eu/42": 3])
        var after = before
        after.price = 79.99
        after.tags.append("sale")
        after.note = nil
        after.sizes["eu/42"] = 2
        let operations = try Patch.diffEncoded(from: before, to: after, under: .payload)
        #expect(
            operations == [
                .remove(path: "/payload/note"),
                .replace(path: "/payload/price", value: 79.99),
                .replace(path: "/payload/sizes/eu~142", value: 2),
                .add(path: "/payload/tags/-", value: "sale"),
            ])
        let object: JSONValue = ["status": "active", "payload": try JSONValue(from: before)]
        let updated = try Patch.apply(operations, to: object)
        #expect(try (updated["payload"] ?? .null).decode(Product.self) == after)
    }

    struct Unencodable: Encodable {
        var value: Double
    }

    @Test func encodingFailureIsAPatchError() {
        let error = #expect(throws: PatchError.self) {
            try Patch.diffEncoded(from: Unencodable(value: 1), to: Unencodable(value: .nan))
        }
        #expect(error?.code == .encodingFailed)
    }
}

@Suite struct PatchPropertyTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func diffThenApplyGivesTheTarget(seed: UInt64) throws {
        var random = RandomDocuments(generator: SeededRandomNumberGenerator(seed: seed))
        for round in 0..<1_500 {
            let old = random.value(depth: 4)
            let new = random.chance(70) ? random.edited(old) : random.value(depth: 4)
            let operations = Patch.diff(from: old, to: new)
            let result = try Patch.apply(operations, to: old)
            #expect(result == new, "seed \(seed) round \(round): \(old) -> \(new) via \(operations)")
            if old == new { #expect(operations.isEmpty) }

            var inPlace = old
            try inPlace.apply(operations)
            #expect(inPlace == new)

            let wire = try JSONValue(from: operations)
            #expect(try wire.decode([PatchOperation].self) == operations)
        }
    }

    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func failingPatchLeavesTheInputUnchanged(seed: UInt64) throws {
        var random = RandomDocuments(generator: SeededRandomNumberGenerator(seed: seed))
        var failures = 0
        for round in 0..<1_500 {
            let original = random.value(depth: 4)
            var operations: [PatchOperation] = []
            var expected = original
            for _ in 0..<random.int(1...8) {
                let operation = random.operation(on: expected)
                operations.append(operation)
                if let next = try? Patch.apply([operation], to: expected) { expected = next }
            }
            // Make sure a failure happens after some operations succeeded.
            if random.chance(50) { operations.append(.remove(path: "/no such member/x")) }

            var document = original
            do {
                try document.apply(operations)
                #expect(document == expected, "seed \(seed) round \(round)")
            } catch {
                failures += 1
                #expect(document == original, "seed \(seed) round \(round): \(operations)")
                #expect(document.description == original.description)
                #expect(error.operationIndex.map { operations.indices.contains($0) } == true)
            }
        }
        #expect(failures > 500)
    }
}
