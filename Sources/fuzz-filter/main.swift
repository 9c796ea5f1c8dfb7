// Fuzz harness for the filter language: tokenize, parse, print, re-parse, validate, evaluate.
//
// Invariants checked on every input (a violation traps, which libFuzzer reports as a crash):
// - nothing traps on any input;
// - a parsed tree prints to text that parses back to the same tree and prints identically;
// - the printed text tokenizes.
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

FuzzDriver.main { bytes in exercise(bytes) }
