import DataSyncTestSupport
import FilterExpression
import Foundation
import JSONCore

/// Filter language scenarios: parse + validate throughput for a typical and a capped-size
/// expression, and evaluation over 100,000 objects.
///
/// The parse + validate baseline is Foundation's `JSONSerialization` reading the same tree written
/// as JSON (`{"and":[{"p":"price","op":"<","v":100},…]}`): what merely parsing a structured query
/// of the same shape costs, with no validation. It does not depend on this module, so the ratio
/// can be compared between runs and commits on a noisy machine. The evaluation baseline is the
/// same predicate written by hand the way Swift code usually is (`lowercased().contains(...)` for
/// the pattern), to show what interpreting the expression costs against plain code.
///
/// Two paths are measured: `FilterValidator.parseAndValidate` (one pass, what the emulator and the
/// SDK use; issue 22's goal rows) and `FilterParser.parse` followed by `FilterValidator.validate`
/// on the result (two passes, for callers that parse once and validate against several schemas).
///
/// Profiling: with `FILTER_BENCH_PROFILE=3` (or `10`) in the environment, `run()` performs exactly
/// `FILTER_BENCH_COUNT` (default 10,000) parses + validations of that expression and nothing else,
/// for `valgrind --tool=callgrind`, through `parseAndValidate`, or through the two calls with
/// `FILTER_BENCH_PATH=separate`; instructions per expression are the difference between two
/// counts divided by the difference in iterations.
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

    // Synchronous (no `await` in it), so the group runs on the main thread: callgrind crashes
    // when the concurrency pool starts its threads.
    static func run() throws -> [BenchRow] {
        let validator = FilterValidator(schema: schema)
        let parser = FilterParser()
        let environment = ProcessInfo.processInfo.environment
        if let which = environment["FILTER_BENCH_PROFILE"] {
            let expression = which == "10" ? tenConditions : threeConditions
            let count = environment["FILTER_BENCH_COUNT"].flatMap { Int($0) } ?? 10_000
            let separate = environment["FILTER_BENCH_PATH"] == "separate"
            var problems = 0
            for _ in 0..<count {
                if separate {
                    let parsed = try parser.parse(expression)
                    problems &+= validator.validate(parsed, tier: .filterFast).count
                } else {
                    problems &+= validator.parseAndValidate(expression, tier: .filterFast).problems.count
                }
            }
            let path = separate ? "parse, then validate" : "parseAndValidate"
            print("profiled \(count) \(path) of the \(which)-condition expression (\(problems) problems)")
            return []
        }
        var rows: [BenchRow] = []
        let batch = Bench.scale(1000, smoke: 20)
        for (label, expression) in [("3 conditions", threeConditions), ("10 conditions", tenConditions)] {
            guard validator.validate(expression, tier: .filterFast).isEmpty else {
                throw BenchFailure(message: "benchmark expression does not validate: \(expression)")
            }
            let json = try jsonForm(of: parser.parse(expression).root)
            var problems = 0
            var trees = 0
            let fusedRate = Bench.throughput(operations: batch) {
                for _ in 0..<batch {
                    let checked = validator.parseAndValidate(expression, tier: .filterFast)
                    problems &+= checked.problems.count
                    if checked.parsed != nil { trees &+= 1 }
                }
            }
            let separateRate = try Bench.throughput(operations: batch) {
                for _ in 0..<batch {
                    let parsed = try parser.parse(expression)
                    problems &+= validator.validate(parsed, tier: .filterFast).count
                }
            }
            var nodes = 0
            let baselineRate = try Bench.throughput(operations: batch) {
                for _ in 0..<batch {
                    let tree = try JSONSerialization.jsonObject(with: json)
                    if tree is [String: Any] { nodes &+= 1 }
                }
            }
            if problems != 0 || nodes == 0 || trees == 0 { throw BenchFailure(message: "unexpected problems") }
            rows.append(
                BenchRow(
                    scenario: "filter parse+validate, \(label)", unit: "expressions/s", ours: fusedRate,
                    baselineName: "JSONSerialization of the same tree as JSON", baseline: baselineRate))
            rows.append(
                BenchRow(
                    scenario: "filter parse, then validate the tree, \(label)", unit: "expressions/s",
                    ours: separateRate, baselineName: "JSONSerialization of the same tree as JSON",
                    baseline: baselineRate))
        }

        let objects = makeObjects(count: Bench.scale(100_000, smoke: 300))
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
                scenario: "filter evaluate 3 conditions over \(objects.count.formatted()) objects", unit: "objects/s",
                ours: evaluationRate,
                baselineName: "hand-written Swift (lowercased+contains)", baseline: handRate))
        return rows
    }

    /// The tree as JSON text: `{"and": [...]}`, `{"or": [...]}`, `{"not": ...}` and conditions as
    /// `{"p": property, "op": operator, "v": value}`.
    static func jsonForm(of root: FilterNode) throws -> Data {
        func object(_ node: FilterNode) -> Any {
            switch node {
            case .condition(let condition):
                let value: Any
                switch condition.value {
                case .string(let text): value = text
                case .int(let number): value = number
                case .double(let number): value = number
                case .bool(let flag): value = flag
                case .null: value = NSNull()
                }
                return ["p": condition.property, "op": condition.op.symbol, "v": value]
            case .and(let operands): return ["and": operands.map(object)]
            case .or(let operands): return ["or": operands.map(object)]
            case .not(let operand): return ["not": object(operand)]
            }
        }
        return try JSONSerialization.data(withJSONObject: object(root))
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
