import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch

/// JSON Patch scenarios: applying many operations to a large document, and diffing two large
/// documents that differ in a few leaves.
enum PatchBenchmarks {
    static func run() async throws -> [BenchRow] {
        let document = makeDocument(items: Bench.scale(4_200, smoke: 40))
        let size = try document.jsonBytes().count
        print(String(format: "  document: %.2f MB, %d items", Double(size) / 1_000_000, itemCount(document)))
        let label = size >= 500_000 ? "1 MB" : "\(size / 1000) KB"
        var rows = try applyRows(document, label: label)
        rows += try diffRows(document, size: size, label: label)
        return rows
    }

    // MARK: - Apply

    private static func applyRows(_ document: JSONValue, label: String) throws -> [BenchRow] {
        let operations = makeOperations(items: itemCount(document), count: Bench.scale(10_000, smoke: 100))
        // The patch leaves the document's shape as it found it, so it can be applied round after round.
        var working = document
        try working.apply(operations)
        guard try Patch.apply(operations, to: working) == working else {
            throw PatchError(code: .testFailed, message: "benchmark patch is not repeatable")
        }
        let inPlace = try Bench.throughput(operations: operations.count) {
            try working.apply(operations)
        }
        let copyOnce = try Bench.throughput(operations: operations.count) {
            _ = try Patch.apply(operations, to: document)
        }
        // Baseline: one operation at a time on an immutable document, as code that keeps every
        // intermediate version (or applies without in-place mutation) would.
        let perOperationCopy = try Bench.throughput(operations: operations.count, minimumTime: .milliseconds(200)) {
            var current = document
            for operation in operations {
                let previous = current
                current = try Patch.apply([operation], to: previous)
            }
        }
        return [
            BenchRow(
                scenario: "apply \(operations.count.formatted()) ops to a \(label) document in place", unit: "ops/s",
                ours: inPlace,
                baselineName: "new document per op", baseline: perOperationCopy),
            BenchRow(
                scenario: "apply \(operations.count.formatted()) ops to a shared \(label) document", unit: "ops/s",
                ours: copyOnce,
                baselineName: "new document per op", baseline: perOperationCopy),
        ]
    }

    /// 10,000 operations spread over the items: replaces, add + remove of a member, append + remove
    /// in an array, copies, moves and tests; the net effect keeps the document's shape.
    private static func makeOperations(items: Int, count: Int) -> [PatchOperation] {
        var generator = SeededRandomNumberGenerator(seed: 7)
        var operations: [PatchOperation] = []
        operations.reserveCapacity(count)
        while operations.count < count {
            let item = "/items/\(Int.random(in: 0..<items, using: &generator))"
            switch Int.random(in: 0..<5, using: &generator) {
            case 0:
                operations.append(
                    .replace(path: item + "/price", value: .double(Double.random(in: 1...500, using: &generator))))
                operations.append(
                    .replace(path: item + "/stock", value: .int(Int64.random(in: 0...99, using: &generator))))
            case 1:
                operations.append(.add(path: item + "/note", value: "checked"))
                operations.append(.remove(path: item + "/note"))
            case 2:
                operations.append(.add(path: item + "/tags/-", value: "sale"))
                operations.append(.remove(path: item + "/tags/3"))
            case 3:
                operations.append(.copy(from: item + "/name", path: item + "/alias"))
                operations.append(.move(from: item + "/alias", path: item + "/name"))
            default:
                operations.append(.test(path: item + "/meta/version", value: 1))
                operations.append(
                    .replace(path: item + "/meta/flags/a~1b", value: .bool(Bool.random(using: &generator))))
            }
        }
        return operations
    }

    // MARK: - Diff

    private static func diffRows(_ document: JSONValue, size: Int, label: String) throws -> [BenchRow] {
        let changed = changeLeaves(of: document, percent: 1)
        let operations = Patch.diff(from: document, to: changed)
        guard try Patch.apply(operations, to: document) == changed else {
            throw PatchError(code: .testFailed, message: "benchmark diff does not reproduce the target")
        }
        print("  diff: \(leafCount(document)) leaves, \(operations.count) operations")
        let megabytes = Double(size) / 1_000_000
        let diff = Bench.throughput(operations: 1) {
            _ = Patch.diff(from: document, to: changed)
        }
        // Baseline: a full comparison of two equal documents that share no storage, the least work
        // any diff of two 1 MB documents has to do.
        let twin = changeLeaves(of: document, percent: 0)
        let compare = Bench.throughput(operations: 1) {
            if document != twin { print("unexpected") }
        }
        return [
            BenchRow(
                scenario: "diff two \(label) documents, 1% of leaves changed", unit: "MB/s", ours: diff * megabytes,
                baselineName: "deep equality of equal docs", baseline: compare * megabytes)
        ]
    }

    /// A copy of `document` where about `percent` of the leaves (strings, numbers, Booleans) changed.
    private static func changeLeaves(of document: JSONValue, percent: Int) -> JSONValue {
        var generator = SeededRandomNumberGenerator(seed: 11)
        func change(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let members): return .object(members.mapValues(change))
            case .array(let elements): return .array(elements.map(change))
            default:
                guard Int.random(in: 0..<100 * 100, using: &generator) < percent * 100 else { return value }
                switch value {
                case .int(let number): return .int(number + 1)
                case .double(let number): return .double(number + 0.5)
                case .bool(let flag): return .bool(!flag)
                case .string(let text): return .string(text + "!")
                default: return .string("changed")
                }
            }
        }
        return change(document)
    }

    // MARK: - Documents

    private static func makeDocument(items: Int) -> JSONValue {
        var generator = SeededRandomNumberGenerator(seed: 3)
        var elements: [JSONValue] = []
        elements.reserveCapacity(items)
        for index in 0..<items {
            let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
            func word() -> String { words[Int.random(in: 0..<words.count, using: &generator)] }
            elements.append([
                "id": .string("item-\(index)"),
                "name": .string("\(word()) \(word()) \(index)"),
                "price": .double(Double(Int.random(in: 100...99_999, using: &generator)) / 100),
                "stock": .int(Int64.random(in: 0...500, using: &generator)),
                "active": .bool(Bool.random(using: &generator)),
                "tags": [.string(word()), .string(word()), .string(word())],
                "meta": [
                    "version": 1, "created": "2026-05-22T10:00:00.000Z",
                    "flags": ["a/b": false, "m~n": true, "x": .string(word())],
                ],
                "description": .string((0..<8).map { _ in word() }.joined(separator: " ")),
            ])
        }
        return ["kind": "catalog", "items": .array(elements)]
    }

    private static func itemCount(_ document: JSONValue) -> Int { document["items"]?.arrayValue?.count ?? 0 }

    private static func leafCount(_ value: JSONValue) -> Int {
        switch value {
        case .object(let members): return members.values.reduce(0) { $0 + leafCount($1) }
        case .array(let elements): return elements.reduce(0) { $0 + leafCount($1) }
        default: return 1
        }
    }
}
