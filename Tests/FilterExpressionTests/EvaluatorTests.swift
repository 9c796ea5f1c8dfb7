import DataSyncTestSupport
import FilterExpression
import JSONCore
import Testing

@Suite struct EvaluatorTests {
    struct MatchCase: Sendable, CustomTestStringConvertible {
        var expression: String
        var object: JSONValue
        var matches: Bool
        var testDescription: String { "\(expression) on \(object) -> \(matches)" }
        init(_ expression: String, _ object: JSONValue, _ matches: Bool) {
            self.expression = expression
            self.object = object
            self.matches = matches
        }
    }

    static let cases: [MatchCase] = [
        // Numbers compare numerically, integers and doubles alike.
        MatchCase("price < 100", ["price": 99], true),
        MatchCase("price < 100", ["price": 100], false),
        MatchCase("price < 100", ["price": 99.5], true),
        MatchCase("price <= 100", ["price": 100.0], true),
        MatchCase("price == 100", ["price": 100.0], true),
        MatchCase("price == 100.0", ["price": 100], true),
        MatchCase("price > 1e2", ["price": 101], true),
        MatchCase("price >= -0.5", ["price": 0], true),
        MatchCase("price > 9007199254740992", ["price": 9_007_199_254_740_993], true),
        MatchCase("price > 9007199254740992.0", ["price": 9_007_199_254_740_993], true),
        MatchCase("price < 9007199254740993", ["price": 9_007_199_254_740_992.0], true),
        MatchCase("price == 9007199254740993", ["price": 9_007_199_254_740_992.0], false),
        MatchCase("price < 9223372036854775807", ["price": 1e300], false),
        // Mixed types never match, for every operator.
        MatchCase("price < 100", ["price": "99"], false),
        MatchCase("price != 100", ["price": "100"], false),
        MatchCase(#"price == "100""#, ["price": 100], false),
        MatchCase("flag == 1", ["flag": true], false),
        MatchCase("price < 100", ["price": [1]], false),
        MatchCase("price != 1", ["price": ["a": 1]], false),
        // A missing property is null.
        MatchCase("price < 100", [:], false),
        MatchCase("price != 100", [:], false),
        MatchCase("price == null", [:], true),
        MatchCase("price == null", ["price": nil], true),
        MatchCase("price == null", ["price": 0], false),
        MatchCase("price != null", [:], false),
        MatchCase("price != null", ["price": 0], true),
        MatchCase("price != null", ["price": [1]], true),
        MatchCase("price != null", ["price": ["a": 1]], true),
        MatchCase("price < null", ["price": 1], false),
        // Booleans: equality only.
        MatchCase("flag == true", ["flag": true], true),
        MatchCase("flag != true", ["flag": false], true),
        MatchCase("flag == false", ["flag": true], false),
        MatchCase("flag < true", ["flag": false], false),
        // Strings by Unicode scalar value.
        MatchCase(#"name == "abc""#, ["name": "abc"], true),
        MatchCase(#"name == "abc""#, ["name": "ABC"], false),
        MatchCase(#"name < "b""#, ["name": "a"], true),
        MatchCase(#"name < "b""#, ["name": "B"], true),
        MatchCase(#"name < "b""#, ["name": "ba"], false),
        MatchCase(#"name < "ab""#, ["name": "a"], true),
        MatchCase(#"name > "z""#, ["name": "\u{E9}"], true),
        MatchCase(#"name > "\uffff""#, ["name": "\u{1F600}"], true),
        MatchCase(#"name == "\u00e9""#, ["name": "e\u{301}"], false),
        MatchCase(#"name != "\u00e9""#, ["name": "e\u{301}"], true),
        MatchCase(#"createdAt >= "2026-01-01""#, ["createdAt": "2026-03-04T10:00:00Z"], true),
        // Patterns.
        MatchCase(#"name LIKE "*sneaker*""#, ["name": "Blue SNEAKERS"], true),
        MatchCase(#"name ILIKE "*sneaker*""#, ["name": "Blue SNEAKERS"], true),
        MatchCase(#"name SLIKE "*sneaker*""#, ["name": "Blue SNEAKERS"], false),
        MatchCase(#"name SLIKE "*sneaker*""#, ["name": "blue sneakers"], true),
        MatchCase(#"name LIKE "prefix*""#, ["name": "PREFIX"], true),
        MatchCase(#"name LIKE "a*b""#, ["name": "ab"], true),
        MatchCase(#"name LIKE "a*b""#, ["name": "axxb"], true),
        MatchCase(#"name LIKE "a*b""#, ["name": "axxbc"], false),
        MatchCase(#"name LIKE "*""#, ["name": ""], true),
        MatchCase(#"name LIKE """#, ["name": ""], true),
        MatchCase(#"name LIKE """#, ["name": "a"], false),
        MatchCase(#"name LIKE "a""#, ["name": "A"], true),
        MatchCase(#"name LIKE "a""#, ["name": "ab"], false),
        MatchCase(#"name LIKE "a*b*c""#, ["name": "abbc"], true),
        MatchCase(#"name LIKE "a*b*c""#, ["name": "acb"], false),
        MatchCase(#"name LIKE "*a*a*""#, ["name": "aa"], true),
        MatchCase(#"name LIKE "*a*a*""#, ["name": "a"], false),
        MatchCase(#"name LIKE "ab*ba""#, ["name": "aba"], false),
        MatchCase(#"name LIKE "ab*ba""#, ["name": "abba"], true),
        MatchCase(#"name LIKE "**""#, ["name": "x"], true),
        MatchCase(#"name LIKE "a\*""#, ["name": "a*"], true),
        MatchCase(#"name LIKE "a\*""#, ["name": "ab"], false),
        MatchCase(#"name LIKE "a\\\\*""#, ["name": "a\\xyz"], true),
        MatchCase(#"name LIKE "C:\\dir*""#, ["name": "c:\\DIR\\x"], true),
        MatchCase(#"name LIKE "\u00c9cole*""#, ["name": "\u{E9}cole primaire"], true),
        MatchCase(#"name SLIKE "\u00c9cole*""#, ["name": "\u{E9}cole primaire"], false),
        MatchCase(#"name LIKE "*\ud83d\ude00""#, ["name": "smile \u{1F600}"], true),
        MatchCase(#"price LIKE "1*""#, ["price": 10], false),
        MatchCase("price LIKE 10", ["price": 10], false),
        MatchCase(#"name LIKE "a*""#, [:], false),
        // Logic.
        MatchCase(#"!(status == "discontinued")"#, ["status": "active"], true),
        MatchCase(#"!(status == "discontinued")"#, ["status": "discontinued"], false),
        MatchCase(#"!(status == "discontinued")"#, [:], true),
        MatchCase("(price < 100 && stock > 0) || price > 500", ["price": 50, "stock": 3], true),
        MatchCase("(price < 100 && stock > 0) || price > 500", ["price": 50, "stock": 0], false),
        MatchCase("(price < 100 && stock > 0) || price > 500", ["price": 900, "stock": 0], true),
        MatchCase("(price < 100 && stock > 0) || price > 500", ["price": 200, "stock": 9], false),
        MatchCase("price < 100 AND NOT stock == 0", ["price": 1, "stock": 1], true),
    ]

    @Test(arguments: cases)
    func evaluatesLikeTheService(_ testCase: MatchCase) throws {
        let evaluator = try FilterEvaluator(parsing: testCase.expression)
        #expect(evaluator.matches(testCase.object) == testCase.matches)
        let members = try #require(testCase.object.objectValue)
        #expect(evaluator.matches(members) == testCase.matches)
        #expect(evaluator.matches { members[$0] } == testCase.matches)
    }

    @Test func theResolverDecidesWherePropertiesLive() throws {
        let object: JSONValue = ["id": "p-1", "status": "active", "payload": ["price": 80, "name": "Sneaker"]]
        let evaluator = try FilterEvaluator(parsing: #"status == "active" && price < 100 && name LIKE "sneak*""#)
        var asked: [String] = []
        let matched = evaluator.matches { name -> JSONValue? in
            asked.append(name)
            return FilterSchema.builtInProperties.contains(name) ? object[name] : object["payload"]?[name]
        }
        #expect(matched)
        #expect(asked == ["status", "price", "name"])
        #expect(!evaluator.matches(object))
    }

    @Test func evaluationShortCircuits() throws {
        let evaluator = try FilterEvaluator(parsing: "a == 1 || b == 1")
        var asked: [String] = []
        _ = evaluator.matches { name in
            asked.append(name)
            return .int(1)
        }
        #expect(asked == ["a"])
    }

    @Test func nonObjectsHaveNoProperties() throws {
        #expect(try FilterEvaluator(parsing: "x == null").matches(JSONValue.int(3)))
        #expect(try !FilterEvaluator(parsing: "x == 3").matches(JSONValue.int(3)))
    }

    @Test func emptyGroupsFollowLogic() {
        #expect(FilterEvaluator(.and([])).matches([:] as [String: JSONValue]))
        #expect(!FilterEvaluator(.or([])).matches([:] as [String: JSONValue]))
    }

    @Test func singleConditionsCanBeTestedDirectly() {
        #expect(FilterEvaluator.test(nil, .equal, nil))
        #expect(FilterEvaluator.test(.string("Abc"), .like, "a*"))
        #expect(!FilterEvaluator.test(.string("Abc"), .slike, "a*"))
        #expect(FilterEvaluator.test(.double(2.5), .greater, 2))
    }

    @Test func likePatternsStandAlone() {
        #expect(LikePattern("*sneaker*", caseSensitive: false).matches("Red SNEAKERS"))
        #expect(LikePattern("a\\*", caseSensitive: true).matches("a*"))
        #expect(!LikePattern("a\\*", caseSensitive: true).matches("ab"))
        #expect(LikePattern.escape("a*b\\c") == "a\\*b\\\\c")
        #expect(LikePattern(LikePattern.escape("a*b\\c"), caseSensitive: true).matches("a*b\\c"))
        #expect(LikePattern("x", for: .equal) == nil)
        #expect(LikePattern("X", for: .ilike)?.matches("x") == true)
    }
}

@Suite struct LikePatternPropertyTests {
    enum Piece: Equatable {
        case literal(Unicode.Scalar)
        case wildcard
    }

    /// A plain backtracking matcher over scalars: slow but obviously right.
    static func reference(_ pieces: ArraySlice<Piece>, _ text: ArraySlice<Unicode.Scalar>) -> Bool {
        guard let first = pieces.first else { return text.isEmpty }
        switch first {
        case .literal(let scalar):
            guard text.first == scalar else { return false }
            return reference(pieces.dropFirst(), text.dropFirst())
        case .wildcard:
            for start in text.indices + [text.endIndex] where reference(pieces.dropFirst(), text[start...]) {
                return true
            }
            return false
        }
    }

    @Test(arguments: [7, 8, 9] as [UInt64])
    func matchesAgreeWithABacktrackingReference(seed: UInt64) {
        var random = SeededRandomNumberGenerator(seed: seed)
        let alphabet: [Unicode.Scalar] = ["a", "b", "A", "*", "\\", "\u{E9}", "\u{C9}"]
        for _ in 0..<3000 {
            // Build the pattern text and the pieces it means at the same time.
            var pattern = ""
            var pieces: [Piece] = []
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                switch Int.random(in: 0...5, using: &random) {
                case 0, 1:
                    pattern += "*"
                    pieces.append(.wildcard)
                case 2:
                    pattern += "\\*"
                    pieces.append(.literal("*"))
                default:
                    let scalar = alphabet.filter { $0 != "*" && $0 != "\\" }.randomElement(using: &random) ?? "a"
                    pattern.unicodeScalars.append(scalar)
                    pieces.append(.literal(scalar))
                }
            }
            var text = ""
            for _ in 0..<Int.random(in: 0...7, using: &random) {
                text.unicodeScalars.append(alphabet.randomElement(using: &random) ?? "a")
            }
            let sensitive = Self.reference(pieces[...], Array(text.unicodeScalars)[...])
            #expect(LikePattern(pattern, caseSensitive: true).matches(text) == sensitive, "\(pattern) vs \(text)")
            let folded = pieces.map { piece -> Piece in
                guard case .literal(let scalar) = piece else { return piece }
                return .literal(String(scalar).lowercased().unicodeScalars.first ?? scalar)
            }
            let insensitive = Self.reference(folded[...], Array(text.lowercased().unicodeScalars)[...])
            #expect(LikePattern(pattern, caseSensitive: false).matches(text) == insensitive, "\(pattern) vs \(text)")
        }
    }
}
