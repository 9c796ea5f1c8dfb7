import DataSyncTestSupport
import FilterExpression
import JSONCore

/// Filter language scenarios: parse + validate throughput for a typical and a capped-size
/// expression, and evaluation over 100,000 objects. The evaluation baseline is the same predicate
/// written by hand the way Swift code usually is (`lowercased().contains(...)` for the pattern),
/// to show what interpreting the expression costs against plain code.
enum FilterBenchmarks {
    static let threeConditions = #"(price < 100 && stock > 0) || name LIKE "*sneaker*""#
    static let tenConditions =
        #"price >= 10 && price < 100 && stock > 0 && name LIKE "*sneaker*" && status == "active" && "#
        + #"color != "red" && createdAt > "2026-01-01" && rating >= 4.5 && !(brand == "acme") && onSale == true"#

    static let schema = FilterSchema(
        className: "Product",
        versions: [
            1: [
                "price": .full, "stock": .simple, "name": .full, "color": .simple, "rating": .full, "brand": .full,
                "onSale": .simple,
            ]
        ])

    static func run() async throws -> [BenchRow] {
        let validator = FilterValidator(schema: schema)
        let parser = FilterParser()
        var rows: [BenchRow] = []
        for (label, expression) in [("3 conditions", threeConditions), ("10 conditions", tenConditions)] {
            guard validator.validate(expression, tier: .filterFast).isEmpty else {
                throw BenchFailure(message: "benchmark expression does not validate: \(expression)")
            }
            var problems = 0
            let rate = try Bench.throughput(operations: 1000) {
                for _ in 0..<1000 {
                    let parsed = try parser.parse(expression)
                    problems &+= validator.validate(parsed, tier: .filterFast).count
                }
            }
            if problems != 0 { throw BenchFailure(message: "unexpected problems") }
            rows.append(BenchRow(scenario: "filter parse+validate, \(label)", unit: "expressions/s", ours: rate))
        }

        let objects = makeObjects(count: 100_000)
        let evaluator = try FilterEvaluator(parsing: threeConditions)
        var matched = 0
        let evaluationRate = Bench.throughput(operations: objects.count) {
            matched = 0
            for object in objects where evaluator.matches(object) { matched += 1 }
        }
        var handMatched = 0
        let handRate = Bench.throughput(operations: objects.count) {
            handMatched = 0
            for object in objects where handWritten(object) { handMatched += 1 }
        }
        guard matched == handMatched, matched > 0 else {
            throw BenchFailure(message: "evaluator found \(matched) matches, hand-written \(handMatched)")
        }
        rows.append(
            BenchRow(
                scenario: "filter evaluate 3 conditions over 100,000 objects", unit: "objects/s", ours: evaluationRate,
                baselineName: "hand-written Swift (lowercased+contains)", baseline: handRate))
        return rows
    }

    /// Objects shaped like listing rows: built-ins plus a few payload properties.
    static func makeObjects(count: Int) -> [[String: JSONValue]] {
        var random = SeededRandomNumberGenerator(seed: 42)
        let names = ["Blue Sneaker", "Red Boot", "Running SNEAKERS", "Sandal", "Loafer", "sneaker lite"]
        return (0..<count).map { index in
            [
                "id": .string("p-\(index)"),
                "status": .string(index % 7 == 0 ? "discontinued" : "active"),
                "price": index % 3 == 0
                    ? .int(Int64(random.next() % 600)) : .double(Double(random.next() % 60_000) / 100),
                "stock": .int(Int64(random.next() % 5)),
                "name": .string(names[Int(random.next() % UInt64(names.count))]),
            ]
        }
    }

    /// `(price < 100 && stock > 0) || name LIKE "*sneaker*"`, written by hand.
    static func handWritten(_ object: [String: JSONValue]) -> Bool {
        func number(_ value: JSONValue?) -> Double? {
            switch value {
            case .int(let integer): return Double(integer)
            case .double(let double): return double
            default: return nil
            }
        }
        if let price = number(object["price"]), let stock = number(object["stock"]), price < 100, stock > 0 {
            return true
        }
        if case .string(let name) = object["name"] { return name.lowercased().contains("sneaker") }
        return false
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
