import FilterExpression
import Testing

@Suite struct ParserTests {
    typealias TreeCase = ExpressionCase<FilterNode>

    static let a = cond("a")
    static let b = cond("b")
    static let c = cond("c")
    static let d = cond("d")

    static let precedence: [TreeCase] = [
        TreeCase("a == 1", a),
        TreeCase("a == 1 && b == 1", .and([a, b])),
        TreeCase("a == 1 || b == 1", .or([a, b])),
        TreeCase("a == 1 && b == 1 && c == 1", .and([a, b, c])),
        TreeCase("a == 1 && b == 1 || c == 1", .or([.and([a, b]), c])),
        TreeCase("a == 1 || b == 1 && c == 1", .or([a, .and([b, c])])),
        TreeCase("a == 1 || b == 1 && c == 1 || d == 1", .or([a, .and([b, c]), d])),
        TreeCase("!a == 1 && b == 1", .and([.not(a), b])),
        TreeCase("!a == 1 || b == 1", .or([.not(a), b])),
        TreeCase("a == 1 && !b == 1", .and([a, .not(b)])),
        TreeCase("!(a == 1 && b == 1)", .not(.and([a, b]))),
        TreeCase("!!a == 1", .not(.not(a))),
        TreeCase("(a == 1 || b == 1) && c == 1", .and([.or([a, b]), c])),
        TreeCase("a == 1 && (b == 1 || c == 1)", .and([a, .or([b, c])])),
        TreeCase("(a == 1 && b == 1) && c == 1", .and([.and([a, b]), c])),
        TreeCase("a == 1 && (b == 1 && c == 1)", .and([a, .and([b, c])])),
        TreeCase("(a == 1 || b == 1) || c == 1", .or([.or([a, b]), c])),
        TreeCase("((a == 1))", a),
        TreeCase("(a == 1) && (b == 1)", .and([a, b])),
        TreeCase("a == 1 AND b == 1 OR NOT c == 1", .or([.and([a, b]), .not(c)])),
        TreeCase("a == 1 and b == 1 && c == 1", .and([a, b, c])),
        TreeCase("NOT (a == 1)", .not(a)),
        TreeCase("!(a == 1 || b == 1) && !(c == 1)", .and([.not(.or([a, b])), .not(c)])),
    ]

    @Test(arguments: precedence)
    func precedenceAndGrouping(_ testCase: TreeCase) throws {
        #expect(try FilterParser().parse(testCase.source).root == testCase.expected)
    }

    static let operators: [TreeCase] = FilterOperator.allCases.flatMap { op -> [TreeCase] in
        let value: FilterValue = op.isPattern ? "a*" : 5
        var cases = [TreeCase("x \(op.symbol) \(FilterPrinter.format(value))", cond("x", op, value))]
        if op.isPattern {
            cases.append(TreeCase("x \(op.symbol.lowercased()) 'a*'", cond("x", op, value)))
        }
        return cases
    }

    @Test(arguments: operators)
    func everyOperatorParses(_ testCase: TreeCase) throws {
        let parsed = try FilterParser().parse(testCase.source)
        #expect(parsed.root == testCase.expected)
        #expect(parsed.spans.count == 1)
        #expect(parsed.spans.first?.property == 0..<1)
    }

    static let values: [TreeCase] = [
        TreeCase(#"x == "s""#, cond("x", .equal, "s")),
        TreeCase("x == 's'", cond("x", .equal, "s")),
        TreeCase("x == -12", cond("x", .equal, -12)),
        TreeCase("x == 1.25", cond("x", .equal, .double(1.25))),
        TreeCase("x == 1.0", cond("x", .equal, .double(1))),
        TreeCase("x == true", cond("x", .equal, true)),
        TreeCase("x == FALSE", cond("x", .equal, false)),
        TreeCase("x == null", cond("x", .equal, nil)),
    ]

    @Test(arguments: values)
    func everyValueKindParses(_ testCase: TreeCase) throws {
        #expect(try FilterParser().parse(testCase.source).root == testCase.expected)
    }

    @Test func spansPointAtEachPartOfEveryCondition() throws {
        let parsed = try FilterParser().parse(#"price < 100 && (name LIKE "*x*" || !stock >= 2)"#)
        #expect(parsed.spans.count == 3)
        #expect(parsed.spans.map(\.property) == [0..<5, 16..<20, 36..<41])
        #expect(parsed.spans.map(\.op) == [6..<7, 21..<25, 42..<44])
        #expect(parsed.spans.map(\.value) == [8..<11, 26..<31, 45..<46])
        #expect(parsed.root.conditions.map(\.property) == ["price", "name", "stock"])
    }

    static let syntaxErrors: [FilterErrorCase] = [
        FilterErrorCase("", .emptyExpression, 1),
        FilterErrorCase("   ", .emptyExpression, 4),
        FilterErrorCase("price <", .expectedValue, 8),
        FilterErrorCase("price", .expectedOperator, 6),
        FilterErrorCase("price 100", .expectedOperator, 7),
        FilterErrorCase("price && stock > 1", .expectedOperator, 7),
        FilterErrorCase("< 100", .expectedProperty, 1),
        FilterErrorCase("100 > price", .expectedProperty, 1),
        FilterErrorCase(#""x" == name"#, .expectedProperty, 1),
        FilterErrorCase("price < 100 &&", .expectedProperty, 15),
        FilterErrorCase("price < 100 || || stock > 0", .expectedProperty, 16),
        FilterErrorCase("price < 100 stock > 0", .unexpectedToken, 13),
        FilterErrorCase("(price < 100", .expectedClosingParenthesis, 13),
        FilterErrorCase("((price < 100)", .expectedClosingParenthesis, 15),
        FilterErrorCase("price < 100)", .unexpectedToken, 12),
        FilterErrorCase("(price < 100 stock", .unexpectedToken, 14),
        FilterErrorCase("status == active", .expectedValue, 11),
        FilterErrorCase("price < < 1", .expectedValue, 9),
        FilterErrorCase("price < (1)", .expectedValue, 9),
        FilterErrorCase("name LIKE", .expectedValue, 10),
        FilterErrorCase("()", .expectedProperty, 2),
        FilterErrorCase("!", .expectedProperty, 2),
        FilterErrorCase("!()", .expectedProperty, 3),
        FilterErrorCase("like == 1", .expectedProperty, 1),
        FilterErrorCase("null == 1", .expectedProperty, 1),
        FilterErrorCase("a == 1 && && b == 1", .expectedProperty, 11),
        FilterErrorCase(")", .expectedProperty, 1),
        FilterErrorCase("a == 1 b", .unexpectedToken, 8),
        FilterErrorCase("a == 1 (b == 1)", .unexpectedToken, 8),
        FilterErrorCase("a == 'x' 'y'", .unexpectedToken, 10),
    ]

    @Test(arguments: syntaxErrors)
    func syntaxErrorsReportCodeAndColumn(_ testCase: FilterErrorCase) throws {
        let error = try #require(throws: FilterError.self) { try FilterParser().parse(testCase.source) }
        #expect(error.code == testCase.code)
        #expect(error.column == testCase.column)
        #expect(error.source == testCase.source)
    }

    @Test func theDocumentedMessageForAMissingValue() throws {
        let error = try #require(throws: FilterError.self) { try FilterParser().parse("price <") }
        #expect(error.summary == "expected a value (string, number, true, false or null)")
        #expect(error.expected == "a value (string, number, true, false or null)")
        #expect(error.found == "end of input")
        #expect(
            error.message == "expected a value (string, number, true, false or null) at column 8, found end of input")
        #expect(
            error.rendered == """
                price <
                       ^
                expected a value (string, number, true, false or null) at column 8, found end of input
                """)
    }

    @Test func renderingUnderlinesTheWholeToken() throws {
        let error = try #require(throws: FilterError.self) {
            try FilterParser().parse("price < 100 && stock >= active")
        }
        #expect(error.found == "`active`")
        #expect(
            error.rendered == """
                price < 100 && stock >= active
                                        ^~~~~~
                expected a value (string, number, true, false or null) (strings must be quoted) at column 25, found `active`
                """)
    }

    @Test func renderingKeepsTabsAligned() throws {
        let error = try #require(throws: FilterError.self) { try FilterParser().parse("\tprice ! 1") }
        #expect(error.rendered.hasPrefix("\tprice ! 1\n\t      ^\n"))
    }

    @Test func multiLineErrorsNameTheLine() throws {
        let source = "price < 100 &&\n  stock =="
        let error = try #require(throws: FilterError.self) { try FilterParser().parse(source) }
        #expect(error.line == 2)
        #expect(error.column == 11)
        #expect(error.message.contains("at line 2, column 11"))
        #expect(error.rendered.hasPrefix("  stock ==\n          ^\n"))
    }

    @Test func nestingIsLimited() throws {
        let depth = FilterParser.defaultMaximumDepth
        let fine = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        #expect(try FilterParser().parse(fine).root == cond("a"))
        let tooDeep = "(" + fine + ")"
        let error = try #require(throws: FilterError.self) { try FilterParser().parse(tooDeep) }
        #expect(error.code == .nestingTooDeep)
        #expect(error.column == depth + 1)
        let nots = String(repeating: "!", count: depth + 1) + "a == 1"
        let notError = try #require(throws: FilterError.self) { try FilterParser().parse(nots) }
        #expect(notError.code == .nestingTooDeep)
        #expect(try FilterParser(maximumDepth: 200).parse(tooDeep).root == cond("a"))
        // `!(` counts as one level, so printing `!a` as `!(a)` never pushes a tree over the limit.
        let deepestNots = String(repeating: "!", count: depth) + "a == 1"
        let tree = try FilterParser().parse(deepestNots).root
        #expect(try FilterParser().parse(FilterPrinter.print(tree)).root == tree)
    }

    @Test func eachStringKeepsItsOwnEscapes() throws {
        // The lexer decodes escapes into one reused buffer; every value must still be its own.
        let source = #"a == "x\ty" || b == 'plain' || c == "\u00e9\\" || d == "n\*""#
        let parsed = try FilterParser().parse(source)
        #expect(
            parsed.root
                == .or([
                    cond("a", .equal, "x\ty"), cond("b", .equal, "plain"), cond("c", .equal, "\u{E9}\\"),
                    cond("d", .equal, "n\\*"),
                ]))
        let tokens = try FilterTokenizer.tokenize(source).compactMap { token -> String? in
            if case .string(let text) = token.kind { return text }
            return nil
        }
        #expect(tokens == ["x\ty", "plain", "\u{E9}\\", "n\\*"])
    }

    @Test func longChainsStayFlat() throws {
        let source = (0..<5000).map { "p\($0) == \($0)" }.joined(separator: " && ")
        let parsed = try FilterParser().parse(source)
        guard case .and(let operands) = parsed.root else {
            Issue.record("expected one && group")
            return
        }
        #expect(operands.count == 5000)
        #expect(parsed.spans.count == 5000)
        #expect(FilterPrinter.print(parsed.root) == source)
    }
}
