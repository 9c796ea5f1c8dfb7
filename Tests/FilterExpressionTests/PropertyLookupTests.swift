import FilterExpression
import Testing

/// The validator looks names up by their bytes (issue 22.3); these pin the cases where that could
/// differ from `String` comparison or go stale.
@Suite struct PropertyLookupTests {
    @Test func anASCIINameMatchesACanonicallyEquivalentDeclaredKey() {
        // U+212A KELVIN SIGN is canonically equivalent to "K", so `String` says the names are equal.
        let schema = FilterSchema(className: "Lab", versions: [1: ["\u{212A}elvin": .full]])
        let validator = FilterValidator(schema: schema)
        #expect(schema.mode(of: "Kelvin") == .full)
        #expect(validator.validate("Kelvin > 1", tier: .filter).isEmpty)
        #expect(validator.validate("Celsius > 1", tier: .filter).map(\.code) == [.unknownProperty])
    }

    @Test func aNonASCIINameMatchesADeclaredKeyInAnotherNormalisation() {
        // "é" precomposed in the declaration, decomposed in the expression.
        let schema = FilterSchema(className: "Cafe", versions: [1: ["caf\u{E9}": .simple]])
        let validator = FilterValidator(schema: schema)
        #expect(validator.validate("cafe\u{301} == 1", tier: .filterFast).isEmpty)
        let problems = validator.validate("cafe\u{301} == 1", tier: .filter)
        #expect(problems.map(\.code) == [.propertyRequiresFullMode])
    }

    @Test func namesLongerThanSixteenBytesAreComparedInFull() {
        let schema = FilterSchema(
            className: "Long", versions: [1: ["averageRatingOfTheWeek": .full, "averageRatingOfTheYear": .simple]])
        let validator = FilterValidator(schema: schema)
        #expect(validator.validate("averageRatingOfTheWeek > 1", tier: .filter).isEmpty)
        #expect(
            validator.validate("averageRatingOfTheYear > 1", tier: .filter).map(\.code) == [.propertyRequiresFullMode])
        #expect(validator.validate("averageRatingOfTheDay > 1", tier: .filter).map(\.code) == [.unknownProperty])
    }

    @Test func namesAreFoundWhereverTheyStandInTheText() {
        // Names of up to eight bytes with eight bytes of text from their start are looked up by
        // one word load; at the end of the text, byte by byte. Eight and nine bytes, and a name
        // that is a prefix of a declared one, on both paths.
        let schema = FilterSchema(
            className: "Edge", versions: [1: ["eightchr": .full, "ninechars": .simple, "p": .full, "pr": .simple]])
        let validator = FilterValidator(schema: schema)
        for (name, mode) in [("eightchr", "full"), ("ninechars", "simple"), ("p", "full"), ("pr", "simple")] {
            for source in ["\(name) > 1", "p == 1 || \(name) > 1", "(\(name) > 1 && p > 2)"] {
                #expect(validator.validate(source, tier: .filterFast).isEmpty, "\(source)")
                let full = validator.validate(source, tier: .filter).map(\.code)
                #expect(full == (mode == "full" ? [] : [.propertyRequiresFullMode]), "\(source)")
            }
        }
        for source in ["eightch > 1", "x > 1 && eightchrs > 1", "pri > 1", "p_ > 1 && q > 1"] {
            #expect(validator.validate(source, tier: .filterFast).contains { $0.code == .unknownProperty }, "\(source)")
        }
    }

    @Test func systemPropertiesWinOverADeclarationOfTheSameName() {
        let schema = FilterSchema(className: "Odd", versions: [1: ["eTag": .full, "id": FilteringMode.none]])
        let validator = FilterValidator(schema: schema)
        #expect(validator.validate(#"eTag == "x""#).map(\.code) == [.propertyNotFilterable])
        #expect(validator.validate(#"id == "x""#).isEmpty)
    }

    @Test func changingTheSchemaOrVersionAfterCreationIsSeen() {
        var validator = FilterValidator(schema: productSchema, classVersion: 1)
        #expect(validator.validate("color == 1").map(\.code) == [.unknownProperty])
        validator.classVersion = 2
        #expect(validator.validate("color == 1").isEmpty)
        validator.schema?.declare("size", mode: .full, version: 2)
        #expect(validator.validate("size == 1", tier: .filter).isEmpty)
        validator.classVersion = 7
        // An unknown version is reported, and names are then only checked for being expressible.
        #expect(validator.validate("size == 1").map(\.code) == [.unknownClassVersion])
        validator.schema = nil
        #expect(validator.validate("size == 1").isEmpty)
    }

    @Test func manyDeclaredPropertiesAreAllFound() {
        var schema = FilterSchema(className: "Wide")
        for index in 0..<300 {
            schema.declare("p\(index)", mode: index.isMultiple(of: 2) ? .full : .simple, version: 1)
        }
        let validator = FilterValidator(schema: schema)
        for index in 0..<300 {
            let expected: [FilterError.Code] = index.isMultiple(of: 2) ? [] : [.propertyRequiresFullMode]
            #expect(validator.validate("p\(index) > 0", tier: .filter).map(\.code) == expected)
        }
        #expect(validator.validate("p300 > 0").map(\.code) == [.unknownProperty])
    }
}
