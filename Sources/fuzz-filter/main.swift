// Fuzz harness for the filter language: tokenize, parse, print, re-parse, validate, evaluate.
//
// Invariants checked on every input (a violation traps, which libFuzzer reports as a crash):
// - nothing traps on any input;
// - a parsed tree prints to text that parses back to the same tree and prints identically;
// - the printed text tokenizes;
// - `parseAndValidate` agrees with parsing and then validating (tree, problems, syntax error).
//
// libFuzzer build (see Documentation/FilterLanguage.md):
//
// Replay a corpus: `swift run fuzz-filter FILE-OR-FOLDER...`; fuzz: `Scripts/fuzz.sh filter 60`.
import FilterExpression
import Foundation
import FuzzSupport
import JSONCore

let fuzzSchema = FilterSchema(
    className: "Fuzz",
    versions: [
        1: ["price": .full, "stock": .simple, "name": .full, "off": FilteringMode.none],
        2: ["price": .simple, "name": .full],
    ])

let fuzzObject: JSONValue = [
    "id": "p-1", "price": 79.99, "stock": 3, "name": "Blue Sneaker*", "status": nil, "tags": ["a"], "off": true,
]

/// Reports a broken invariant and stops, so the fuzzer keeps the input as a crash.
func fail(_ message: String) -> Never {
    print(message)
    abort()
}

func exercise(_ bytes: [UInt8]) {
    let source = String(decoding: bytes, as: UTF8.self)
    _ = try? FilterTokenizer.tokenize(source)
    _ = FilterValidator(schema: fuzzSchema).validateSort(source, alongside: .filter).map(\.rendered)
    checkFusedPath(source)
    let parsed: ParsedFilter
    do {
        parsed = try FilterParser().parse(source)
    } catch {
        _ = error.rendered
        return
    }
    let printed = FilterPrinter.print(parsed.root)
    guard (try? FilterTokenizer.tokenize(printed)) != nil else {
        fail("printed text does not tokenize: \(printed)")
    }
    let reparsed: ParsedFilter
    do {
        reparsed = try FilterParser().parse(printed)
    } catch {
        fail("printed text does not parse: \(printed)\n\(error.rendered)")
    }
    guard reparsed.root == parsed.root else { fail("round trip changed the tree: \(source) -> \(printed)") }
    guard FilterPrinter.print(reparsed.root) == printed else { fail("printing is not stable: \(printed)") }
    guard parsed.spans.count == parsed.root.conditionCount else { fail("one span per condition") }
    for tier in [FilterTier.filterFast, .filter] {
        for version in [nil, 1, 3] as [Int?] {
            _ = FilterValidator(schema: fuzzSchema, classVersion: version).validate(parsed, tier: tier).map(\.rendered)
        }
    }
    _ = FilterEvaluator(parsed.root).matches(fuzzObject)
}

/// `parseAndValidate` (one pass) gives exactly what parsing and then validating gives: the same
/// tree and spans, the same problems, or the same syntax error.
func checkFusedPath(_ source: String) {
    for tier in [nil, FilterTier.filterFast, .filter, .filterFast(conditionLimit: 1)] as [FilterTier?] {
        for version in [nil, 1, 2, 3] as [Int?] {
            let validator = FilterValidator(schema: fuzzSchema, classVersion: version)
            let fused = validator.parseAndValidate(source, tier: tier)
            do {
                let parsed = try validator.parser.parse(source)
                guard fused.parsed == parsed else { fail("parseAndValidate gave another tree for \(source)") }
                guard fused.problems == validator.validate(parsed, tier: tier) else {
                    fail("parseAndValidate gave other problems for \(source)")
                }
            } catch {
                guard fused.parsed == nil, fused.problems == [error] else {
                    fail("parseAndValidate gave another syntax error for \(source)")
                }
            }
        }
    }
}

FuzzDriver.main { bytes in exercise(bytes) }
