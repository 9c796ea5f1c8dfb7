import DataSyncTestSupport
import Foundation
import JSONCore

/// The 10-field record used by the Codable scenarios.
struct BenchProduct: Codable, Sendable {
    var id: String
    var name: String
    var price: Double
    var stock: Int
    var active: Bool
    var tags: [String]
    var rating: Double?
    var category: String
    var createdAt: String
    var sku: Int64
}

enum JSONBenchmarks {
    /// A document of roughly `targetBytes` bytes: an object holding an array of product-like
    /// objects with nested arrays, unicode text, integers and decimals.
    static func makeDocument(targetBytes: Int, seed: UInt64 = 42) -> JSONValue {
        var generator = SeededRandomNumberGenerator(seed: seed)
        var items: [JSONValue] = []
        var size = 0
        var index = 0
        while size < targetBytes {
            let item: JSONValue = [
                "id": .string("item-\(index)"),
                "name": .string("Product \(index) — café ✓"),
                "price": .double(Double(Int.random(in: 100...99_999, using: &generator)) / 100),
                "stock": .int(Int64.random(in: 0...10_000, using: &generator)),
                "active": .bool(Bool.random(using: &generator)),
                "tags": .array((0..<3).map { _ in .string("tag\(Int.random(in: 0...50, using: &generator))") }),
                "dimensions": ["w": .double(1.5), "h": .int(20), "unit": "cm"],
                "note": index % 7 == 0 ? .null : .string("line \"quoted\"\n"),
            ]
            size += 230
            items.append(item)
            index += 1
        }
        return ["items": .array(items), "count": .int(Int64(items.count))]
    }

    static func makeProducts(count: Int) -> [BenchProduct] {
        (0..<count).map { index in
            BenchProduct(
                id: "p\(index)", name: "Sneaker \(index)", price: 79.99 + Double(index), stock: index * 3,
                active: index % 2 == 0, tags: ["sale", "new"], rating: index % 3 == 0 ? nil : 4.5,
                category: "shoes", createdAt: "2026-05-22T10:15:30.123Z", sku: 9_000_000_000 + Int64(index))
        }
    }

    static func run() async throws -> [BenchRow] {
        var rows: [BenchRow] = []
        for (label, size) in Bench.scale([("1 MB", 1_000_000), ("10 KB", 10_000)], smoke: [("10 KB", 10_000)]) {
            let document = makeDocument(targetBytes: size)
            let bytes = try document.jsonBytes()
            let data = Data(bytes)
            let megabytes = Double(bytes.count) / 1_000_000
            rows.append(
                try Bench.compare(
                    "parse \(label) into JSONValue", unit: "MB/s", scale: megabytes,
                    ours: { _ = try JSONValue(parsing: bytes) }, baselineName: "JSONSerialization.jsonObject",
                    baseline: { _ = try JSONSerialization.jsonObject(with: data) }))
            let foundationObject = try JSONSerialization.jsonObject(with: data)
            rows.append(
                try Bench.compare(
                    "encode \(label) sorted keys", unit: "MB/s", scale: megabytes,
                    ours: { _ = try document.jsonBytes() }, baselineName: "JSONSerialization.data(.sortedKeys)",
                    baseline: {
                        _ = try JSONSerialization.data(withJSONObject: foundationObject, options: [.sortedKeys])
                    }))
            rows.append(
                try Bench.compare(
                    "encode \(label) unsorted", unit: "MB/s", scale: megabytes,
                    ours: { _ = try document.jsonBytes(sortedKeys: false) }, baselineName: "JSONSerialization.data",
                    baseline: { _ = try JSONSerialization.data(withJSONObject: foundationObject) }))
        }

        let products = makeProducts(count: 100)
        let productBytes = try JSONEncoder().encode(products)
        let productValue = try JSONValue(parsing: productBytes)
        let decodeFromValue = try Bench.throughput {
            _ = try productValue.decode([BenchProduct].self)
        }
        let foundationDecode = try Bench.throughput {
            _ = try JSONDecoder().decode([BenchProduct].self, from: productBytes)
        }
        rows.append(
            BenchRow(
                scenario: "decode 100×10-field structs from JSONValue", unit: "ops/s", ours: decodeFromValue,
                baselineName: "JSONDecoder from bytes", baseline: foundationDecode))
        let parseAndDecode = try Bench.throughput {
            _ = try JSONValue(parsing: productBytes).decode([BenchProduct].self)
        }
        rows.append(
            BenchRow(
                scenario: "parse bytes + decode 100 structs", unit: "ops/s", ours: parseAndDecode,
                baselineName: "JSONDecoder from bytes", baseline: foundationDecode))
        let encodeToValue = try Bench.throughput {
            _ = try JSONValue(from: products)
        }
        let foundationEncodeStructs = try Bench.throughput {
            _ = try JSONEncoder().encode(products)
        }
        rows.append(
            BenchRow(
                scenario: "JSONValue(from:) 100 structs", unit: "ops/s", ours: encodeToValue,
                baselineName: "JSONEncoder to bytes", baseline: foundationEncodeStructs))
        let encodeToBytes = try Bench.throughput {
            _ = try JSONValue(from: products).jsonBytes()
        }
        rows.append(
            BenchRow(
                scenario: "JSONValue(from:) + jsonBytes 100 structs", unit: "ops/s", ours: encodeToBytes,
                baselineName: "JSONEncoder to bytes", baseline: foundationEncodeStructs))
        let roundTripThroughBytes = try Bench.throughput {
            _ = try JSONValue(parsing: JSONEncoder().encode(products))
        }
        rows.append(
            BenchRow(
                scenario: "JSONValue(from:) direct vs via bytes", unit: "ops/s", ours: encodeToValue,
                baselineName: "JSONEncoder + parse", baseline: roundTripThroughBytes))
        return rows
    }
}
