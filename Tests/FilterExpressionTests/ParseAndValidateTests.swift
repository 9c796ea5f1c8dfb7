import DataSyncTestSupport
import FilterExpression
import Testing

/// `FilterValidator.parseAndValidate` checks conditions while parsing; these tests hold it to
/// exactly what `FilterParser.parse` followed by `FilterValidator.validate` gives, over a
/// generated corpus of valid and invalid expressions and a range of validators.
@Suite struct ParseAndValidateTests {
    /// What the two-pass path gives, in the fused path's shape.
    static func separate(_ validator: FilterValidator, _ source: String, _ tier: FilterTier?) -> (
        ParsedFilter?, [FilterError]
    ) {
        do {
            let parsed = try validator.parser.parse(source)
            return (parsed, validator.validate(parsed, tier: tier))
        } catch {
            return (nil, [error])
        }
    }

    /// A schema with ASCII, long (over 16 bytes) and non-ASCII names, a `none` property, a
    /// declaration that shadows a built-in, and a key that is canonically equal to an ASCII name
    /// (U+212A KELVIN SIGN is `K`).
    static let schema = FilterSchema(
        className: "Differential",
        versions: [
            1: [
                "price": .full, "stock": .simple, "name": .full, "archived": FilteringMode.none,
                "averyveryverylongpropertyname": .simple, "prïce": .full, "status": .simple,
            ],
            2: ["price": .simple, "name": .full, "\u{212A}elvin": .full],
        ])

    static let validators: [FilterValidator] = [
        FilterValidator(),
        FilterValidator(schema: schema),
        FilterValidator(schema: schema, classVersion: 1),
        FilterValidator(schema: schema, classVersion: 2),
        FilterValidator(schema: schema, classVersion: 7),
        FilterValidator(schema: schema, parser: FilterParser(maximumDepth: 3)),
    ]

    static let tiers: [FilterTier?] = [
        nil, .filterFast, .filter, .filterFast(conditionLimit: 2), .filterFast(conditionLimit: 0),
    ]

    /// Property names: declared, built-in, never filterable, unknown, non-ASCII, long, signed.
    static let properties = [
        "price", "stock", "name", "archived", "status", "createdAt", "id", "eTag", "expiresAt", "color",
        "averyveryverylongpropertyname", "averyveryverylongpropertynamf", "prïce", "Kelvin", "\u{212A}elvin",
        "unknown", "_x", "p1",
    ]
    static let operators = ["==", "!=", "<", ">", "<=", ">=", "LIKE", "slike", "ILike"]
    static let values = [
        "1", "-2", "0", "1.5", "-0.25e3", "1e999", "9223372036854775807", "9223372036854775808", "true", "FALSE",
        "null", #""x""#, "'y'", #""*sneaker*""#, #""a\"b""#, #""\u00e9\*""#, #""""#, "01", "1.", "\"open",
    ]
    static let joiners = [" && ", " || ", " AND ", " or ", "&&", " & ", " "]
    static let noise: [Character] = ["(", ")", "!", "=", "&", "|", "\"", "'", ".", "#", " ", "é", "\\", "+"]

    /// A deterministic corpus: expressions built from the grammar, then about half of them broken
    /// by deleting, inserting or swapping a character.
    static func corpus(count: Int, seed: UInt64) -> [String] {
        var random = SeededRandomNumberGenerator(seed: seed)
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        func condition() -> String { "\(pick(properties)) \(pick(operators)) \(pick(values))" }
        func expression(depth: Int) -> String {
            let roll = random.next() % 10
            if depth > 3 || roll < 4 { return condition() }
            if roll < 6 { return (random.next() % 2 == 0 ? "!" : "NOT ") + "(" + expression(depth: depth + 1) + ")" }
            let operands = 2 + Int(random.next() % 4)
            let parts = (0..<operands).map { _ in expression(depth: depth + 1) }
            let joined = parts.dropFirst().reduce(parts[0]) { $0 + pick(joiners) + $1 }
            return random.next() % 2 == 0 ? "(" + joined + ")" : joined
        }
        var result: [String] = ["", "   ", "price", "price <", "(price < 1", "price < 1)", "a.b == 1"]
        while result.count < count {
            var text = Array(expression(depth: 0))
            if random.next() % 2 == 0, !text.isEmpty {
                let index = Int(random.next() % UInt64(text.count))
                switch random.next() % 3 {
                case 0: text.remove(at: index)
                case 1: text.insert(pick(noise), at: index)
                default: text[index] = pick(noise)
                }
            }
            result.append(String(text))
        }
        return result
    }

    @Test func fusedPathMatchesParseThenValidateOverAGeneratedCorpus() {
        let corpus = Self.corpus(count: 1500, seed: 0x22_03)
        var syntaxErrors = 0
        var invalid = 0
        var valid = 0
        for source in corpus {
            for validator in Self.validators {
                for tier in Self.tiers {
                    let fused = validator.parseAndValidate(source, tier: tier)
                    let (parsed, problems) = Self.separate(validator, source, tier)
                    #expect(fused.parsed == parsed, "tree for \(source)")
                    #expect(fused.problems == problems, "problems for \(source)")
                    #expect(validator.validate(source, tier: tier) == problems, "validate(String) for \(source)")
                    if parsed == nil {
                        syntaxErrors += 1
                    } else if problems.isEmpty {
                        valid += 1
                    } else {
                        invalid += 1
                    }
                }
            }
        }
        // The corpus exercises all three outcomes, so the comparison above covers each path.
        #expect(syntaxErrors > 1000)
        #expect(invalid > 1000)
        #expect(valid > 1000)
    }

    @Test func aValidExpressionGivesItsTreeAndNoProblems() throws {
        let validator = FilterValidator(schema: Self.schema, classVersion: 1)
        let checked = validator.parseAndValidate("(price < 100 && stock > 0) || name LIKE \"*x*\"", tier: .filterFast)
        #expect(checked.isValid)
        let parsed = try #require(checked.parsed)
        #expect(parsed.root.conditionCount == 3)
        #expect(parsed.spans.count == 3)
    }

    @Test func aSyntaxErrorIsTheOnlyProblemAndGivesNoTree() {
        let checked = FilterValidator(schema: Self.schema).parseAndValidate("price < ", tier: .filter)
        #expect(checked.parsed == nil)
        #expect(checked.problems.map(\.code) == [.expectedValue])
        #expect(!checked.isValid)
    }

    @Test func problemsComeWithTheTreeInSourceOrder() throws {
        let validator = FilterValidator(schema: Self.schema, classVersion: 1)
        let checked = validator.parseAndValidate("stock LIKE 1 && eTag == 'x' && price < null", tier: .filter)
        let parsed = try #require(checked.parsed)
        #expect(parsed.root.conditionCount == 3)
        #expect(
            checked.problems.map(\.code) == [
                .propertyRequiresFullMode, .patternRequiresString, .propertyNotFilterable, .nullRequiresEquality,
            ])
    }

    @Test func propertyNamesTakenFromTheSchemaEqualTheSourceText() throws {
        // The fused path reuses the schema's `String` for a known name; it must be the same text.
        let validator = FilterValidator(schema: Self.schema, classVersion: 1)
        let source = "averyveryverylongpropertyname == 1 && status == 'a' && prïce > 2"
        let parsed = try #require(validator.parseAndValidate(source, tier: .filterFast).parsed)
        #expect(parsed.root.conditions.map(\.property) == ["averyveryverylongpropertyname", "status", "prïce"])
        #expect(parsed == (try FilterParser().parse(source)))
    }
}
