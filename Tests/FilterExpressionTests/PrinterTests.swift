import DataSyncTestSupport
import FilterExpression
import Testing

@Suite struct PrinterTests {
    typealias PrintCase = ExpressionCase<String>

    static let canonicalForms: [PrintCase] = [
        PrintCase("price<100", "price < 100"),
        PrintCase("  price   <   100  ", "price < 100"),
        PrintCase("name like 'a*'", #"name LIKE "a*""#),
        PrintCase("name Slike 'a*'", #"name SLIKE "a*""#),
        PrintCase("name ilike 'a*'", #"name ILIKE "a*""#),
        PrintCase("a == TRUE AND b == Null", "a == true && b == null"),
        PrintCase("a == 1 OR NOT b == 2", "a == 1 || !(b == 2)"),
        PrintCase("!a == 1", "!(a == 1)"),
        PrintCase("!!a == 1", "!(!(a == 1))"),
        PrintCase("((a == 1))", "a == 1"),
        PrintCase("(a == 1) && (b == 2)", "a == 1 && b == 2"),
        PrintCase("(a == 1 && b == 2) || c == 3", "a == 1 && b == 2 || c == 3"),
        PrintCase("(a == 1 || b == 2) && c == 3", "(a == 1 || b == 2) && c == 3"),
        PrintCase("a == 1 && (b == 2 && c == 3)", "a == 1 && (b == 2 && c == 3)"),
        PrintCase("a == 1 || (b == 2 || c == 3)", "a == 1 || (b == 2 || c == 3)"),
        PrintCase("a == 1 || (b == 2 && c == 3)", "a == 1 || b == 2 && c == 3"),
        PrintCase("x == 1E3", "x == 1000.0"),
        PrintCase("x == -0", "x == 0"),
        PrintCase("x == 0.1", "x == 0.1"),
        PrintCase("x == 1e-7", "x == 1e-07"),
        PrintCase("x == 12345678901234567890", "x == 1.2345678901234567e+19"),
        PrintCase("x == 'it\\'s'", #"x == "it's""#),
        PrintCase(#"x == 'say "hi"'"#, #"x == "say \"hi\"""#),
        PrintCase(#"x == "a\\b""#, #"x == "a\\b""#),
        PrintCase(#"x LIKE "a\*b""#, #"x LIKE "a\*b""#),
        PrintCase(#"x == "tab\there\n""#, #"x == "tab\there\n""#),
        PrintCase(#"x == "\u0001\u007f""#, #"x == "\u0001\u007F""#),
        PrintCase(#"x == "\u00e9\/""#, "x == \"\u{E9}/\""),
    ]

    @Test(arguments: canonicalForms)
    func printsTheCanonicalForm(_ testCase: PrintCase) throws {
        let tree = try FilterParser().parse(testCase.source).root
        let printed = FilterPrinter.print(tree)
        #expect(printed == testCase.expected)
        #expect(try FilterParser().parse(printed).root == tree)
    }

    @Test(arguments: [
        "", "plain", "with \"double\" quotes", "with 'single' quotes", "back\\slash", "trailing\\",
        "star * and escaped \\* star", "\\\\*", "\n\r\t\u{0}\u{1F}\u{7F}", "\u{E9}\u{301}\u{1F600}", "\"\\\"",
    ])
    func quotedStringsDecodeToTheSameText(_ text: String) throws {
        let quoted = FilterPrinter.quote(text)
        let tokens = try FilterTokenizer.tokenize(quoted)
        #expect(tokens.first?.kind == .string(text))
        #expect(tokens.count == 2)
    }
}

/// Generates random trees and random source texts from a seed, to check that printing and
/// parsing are inverse.
struct ExpressionGenerator {
    var random: SeededRandomNumberGenerator

    static let properties = [
        "price", "stock", "name", "createdAt", "_x", "a1b2", "\u{E9}l\u{E8}ve", "\u{540D}\u{524D}", "android",
        "order", "notes", "likes", "nullable", "TRUEish", "status",
    ]

    static let stringPieces = [
        "", "a", "Z", " ", "*", "\\", "\\*", "\"", "'", "\n", "\t", "\u{1}", "\u{7F}", "\u{E9}", "e\u{301}",
        "\u{1F600}",
        "sneaker", "st-42", "AND", "||", "(", ")",
    ]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    mutating func string() -> String {
        (0..<int(0...5)).map { _ in Self.stringPieces.randomElement(using: &random) ?? "" }.joined()
    }

    mutating func value() -> FilterValue {
        switch int(0...9) {
        case 0, 1, 2: return .string(string())
        case 3: return .int(Int64.random(in: -1000...1000, using: &random))
        case 4: return .int([Int64.min, Int64.max, 0, -1].randomElement(using: &random) ?? 0)
        case 5:
            var double = Double(bitPattern: random.next())
            while !double.isFinite { double = Double(bitPattern: random.next()) }
            return .double(double)
        case 6: return .double(Double(int(-100_000...100_000)) / 100)
        case 7: return .bool(Bool.random(using: &random))
        default: return .null
        }
    }

    mutating func condition() -> FilterNode {
        let op = FilterOperator.allCases.randomElement(using: &random) ?? .equal
        let property = Self.properties.randomElement(using: &random) ?? "x"
        return .condition(FilterCondition(property: property, op: op, value: value()))
    }

    mutating func tree(depth: Int) -> FilterNode {
        guard depth > 0 else { return condition() }
        switch int(0...5) {
        case 0, 1: return condition()
        case 2: return .and((0..<int(2...4)).map { _ in tree(depth: depth - 1) })
        case 3: return .or((0..<int(2...4)).map { _ in tree(depth: depth - 1) })
        case 4: return .not(tree(depth: depth - 1))
        default: return .and([condition(), tree(depth: depth - 1)])
        }
    }

    mutating func space() -> String { ["", " ", "  ", "\t", "\n", " \r\n "].randomElement(using: &random) ?? " " }

    mutating func spelling(_ options: [String]) -> String { options.randomElement(using: &random) ?? options[0] }

    /// Source text in any accepted spelling: random whitespace, keyword case, quote style,
    /// redundant parentheses.
    mutating func source(depth: Int) -> String {
        if depth == 0 || int(0...2) == 0 {
            let op = spelling(["==", "!=", "<", ">", "<=", ">=", "LIKE", "like", "SLIKE", "slike", "ILIKE", "Ilike"])
            let property = Self.properties.randomElement(using: &random) ?? "x"
            let literal: String
            switch int(0...6) {
            case 0: literal = "'" + string().replacingEvery("\\", with: "\\\\").replacingEvery("'", with: "\\'") + "'"
            case 1: literal = FilterPrinter.quote(string())
            case 2: literal = String(int(-99999...99999))
            case 3: literal = spelling(["1.5", "-0.25", "1e3", "2E-2", "0.0", "-0"])
            case 4: literal = spelling(["true", "TRUE", "False", "null", "NULL"])
            default: literal = "\"" + spelling(["*", "a*b", "\\*", "x\\\\y", "\\u00e9", "\\ud83d\\ude00"]) + "\""
            }
            var text = space() + property + " " + space() + op + " " + literal + space()
            if int(0...4) == 0 { text = "(" + text + ")" }
            return text
        }
        switch int(0...2) {
        case 0:
            let and = spelling(["&&", " AND ", " and "])
            return (0..<int(2...3)).map { _ in source(depth: depth - 1) }.joined(separator: and)
        case 1:
            let or = spelling(["||", " OR ", " or "])
            return (0..<int(2...3)).map { _ in source(depth: depth - 1) }.joined(separator: or)
        default:
            let not = spelling(["!", "NOT ", "not "])
            return not + "(" + source(depth: depth - 1) + ")"
        }
    }
}

extension String {
    fileprivate func replacingEvery(_ target: Character, with replacement: String) -> String {
        var output = ""
        for character in self { if character == target { output += replacement } else { output.append(character) } }
        return output
    }
}

@Suite struct RoundTripTests {
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func printedTreesParseBackToTheSameTree(seed: UInt64) throws {
        var generator = ExpressionGenerator(random: SeededRandomNumberGenerator(seed: seed))
        for _ in 0..<2000 {
            let tree = generator.tree(depth: 4)
            let printed = FilterPrinter.print(tree)
            let reparsed = try FilterParser().parse(printed).root
            #expect(reparsed == tree, "\(printed)")
            #expect(FilterPrinter.print(reparsed) == printed)
        }
    }

    @Test(arguments: [11, 12, 13, 14, 15] as [UInt64])
    func parsedSourcesSurvivePrintAndParse(seed: UInt64) throws {
        var generator = ExpressionGenerator(random: SeededRandomNumberGenerator(seed: seed))
        for _ in 0..<1000 {
            let source = generator.source(depth: 3)
            let tree = try FilterParser().parse(source).root
            let printed = FilterPrinter.print(tree)
            #expect(try FilterParser().parse(printed).root == tree, "\(source)")
        }
    }
}
