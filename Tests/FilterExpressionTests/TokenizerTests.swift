import FilterExpression
import Testing

@Suite struct TokenizerTests {
    typealias TokenCase = ExpressionCase<FilterToken.Kind>

    static let singleTokens: [TokenCase] = [
        TokenCase("price", .identifier("price")),
        TokenCase("_x1", .identifier("_x1")),
        TokenCase("createdAt", .identifier("createdAt")),
        TokenCase("prix_\u{E9}t\u{E9}", .identifier("prix_\u{E9}t\u{E9}")),
        TokenCase("\u{540D}\u{524D}", .identifier("\u{540D}\u{524D}")),
        TokenCase("android", .identifier("android")),
        TokenCase("nullable", .identifier("nullable")),
        TokenCase("likes", .identifier("likes")),
        TokenCase(#""abc""#, .string("abc")),
        TokenCase("'abc'", .string("abc")),
        TokenCase(#""""#, .string("")),
        TokenCase(#""a\"b""#, .string("a\"b")),
        TokenCase(#"'it\'s'"#, .string("it's")),
        TokenCase(#"'say "hi"'"#, .string("say \"hi\"")),
        TokenCase(#""it's""#, .string("it's")),
        TokenCase(#""back\\slash""#, .string("back\\slash")),
        TokenCase(#""a\/b""#, .string("a/b")),
        TokenCase(#""\n\t\r\b\f""#, .string("\n\t\r\u{8}\u{C}")),
        TokenCase(#""\u00e9\u00C9""#, .string("\u{E9}\u{C9}")),
        TokenCase(#""\ud83d\ude00""#, .string("\u{1F600}")),
        TokenCase(#""a\*b""#, .string("a\\*b")),
        TokenCase(#""*sneaker*""#, .string("*sneaker*")),
        TokenCase("\"caf\u{E9} \u{1F600}\"", .string("caf\u{E9} \u{1F600}")),
        TokenCase("0", .integer(0)),
        TokenCase("42", .integer(42)),
        TokenCase("-7", .integer(-7)),
        TokenCase("-0", .integer(0)),
        TokenCase("9223372036854775807", .integer(.max)),
        TokenCase("-9223372036854775808", .integer(.min)),
        TokenCase("9223372036854775808", .double(9_223_372_036_854_775_808.0)),
        TokenCase("79.99", .double(79.99)),
        TokenCase("0.5", .double(0.5)),
        TokenCase("-0.5", .double(-0.5)),
        TokenCase("1e3", .double(1000)),
        TokenCase("1E+3", .double(1000)),
        TokenCase("2.5e-3", .double(0.0025)),
        TokenCase("true", .true),
        TokenCase("TRUE", .true),
        TokenCase("False", .false),
        TokenCase("null", .null),
        TokenCase("NULL", .null),
        TokenCase("==", .op(.equal)),
        TokenCase("!=", .op(.notEqual)),
        TokenCase("<", .op(.less)),
        TokenCase(">", .op(.greater)),
        TokenCase("<=", .op(.lessOrEqual)),
        TokenCase(">=", .op(.greaterOrEqual)),
        TokenCase("LIKE", .op(.like)),
        TokenCase("like", .op(.like)),
        TokenCase("SLIKE", .op(.slike)),
        TokenCase("sLike", .op(.slike)),
        TokenCase("ILIKE", .op(.ilike)),
        TokenCase("ilike", .op(.ilike)),
        TokenCase("&&", .and),
        TokenCase("AND", .and),
        TokenCase("and", .and),
        TokenCase("||", .or),
        TokenCase("OR", .or),
        TokenCase("or", .or),
        TokenCase("!", .not),
        TokenCase("NOT", .not),
        TokenCase("not", .not),
        TokenCase("(", .leftParenthesis),
        TokenCase(")", .rightParenthesis),
    ]

    @Test(arguments: singleTokens)
    func eachTokenKindIsRecognisedWithItsRange(_ testCase: TokenCase) throws {
        let length = testCase.source.utf8.count
        let tokens = try FilterTokenizer.tokenize(testCase.source)
        #expect(
            tokens == [
                FilterToken(kind: testCase.expected, range: 0..<length),
                FilterToken(kind: .endOfInput, range: length..<length),
            ])
        // Surrounding whitespace shifts the range and is otherwise ignored.
        let padded = try FilterTokenizer.tokenize(" \t\n" + testCase.source + "\r\n ")
        #expect(padded.first == FilterToken(kind: testCase.expected, range: 3..<(3 + length)))
        #expect(padded.count == 2)
    }

    @Test(arguments: singleTokens)
    func tokensFollowedByMoreTextAreRecognisedToo(_ testCase: TokenCase) throws {
        // With eight bytes after a word's start, keywords are read with one word load instead of
        // byte by byte (and property names looked up the same way); both paths must agree.
        let length = testCase.source.utf8.count
        let tokens = try FilterTokenizer.tokenize(testCase.source + "        x")
        #expect(tokens.first == FilterToken(kind: testCase.expected, range: 0..<length))
        #expect(tokens.dropFirst().first == FilterToken(kind: .identifier("x"), range: (length + 8)..<(length + 9)))
    }

    @Test(arguments: ["likes", "lik", "LIKE1", "LIK_", "nul_", "not_", "an1", "o_r", "tru3", "fals", "_or", "or9"])
    func wordsThatAreNotKeywordsAreNames(_ word: String) throws {
        for source in [word, word + "        x", word + " == 1 && a > 2"] {
            let tokens = try FilterTokenizer.tokenize(source)
            #expect(tokens.first?.kind == .identifier(word), "\(source)")
        }
    }

    @Test(
        arguments: [
            ("0", Int64(0)), ("-0", 0), ("7", 7), ("-7", -7), ("123456789012345678", 123_456_789_012_345_678),
            ("-123456789012345678", -123_456_789_012_345_678), ("1234567890123456789", 1_234_567_890_123_456_789),
            ("9223372036854775807", .max), ("-9223372036854775808", .min),
        ])
    func integersAreReadWithTheirDigits(_ text: String, _ value: Int64) throws {
        for source in [text, "a == " + text + " && b > 1"] {
            let tokens = try FilterTokenizer.tokenize(source)
            #expect(tokens.contains { $0.kind == .integer(value) }, "\(source)")
        }
        // Past Int64 the literal is a double, as before.
        let past = try FilterTokenizer.tokenize("9223372036854775808")
        #expect(past.first?.kind == .double(9.223_372_036_854_775_808e18))
    }

    @Test func tokensNeedNoWhitespaceBetweenThem() throws {
        let tokens = try FilterTokenizer.tokenize("price<=-1.5&&!(name LIKE'a*')||x!=null")
        let kinds = tokens.map(\.kind)
        #expect(
            kinds == [
                .identifier("price"), .op(.lessOrEqual), .double(-1.5), .and, .not, .leftParenthesis,
                .identifier("name"), .op(.like), .string("a*"), .rightParenthesis, .or, .identifier("x"),
                .op(.notEqual), .null, .endOfInput,
            ])
        #expect(tokens.map(\.range.lowerBound) == [0, 5, 7, 11, 13, 14, 15, 20, 24, 28, 29, 31, 32, 34, 38])
    }

    static let lexicalErrors: [FilterErrorCase] = [
        FilterErrorCase("price = 5", .unexpectedCharacter, 7),
        FilterErrorCase("a == 1 & b == 2", .unexpectedCharacter, 8),
        FilterErrorCase("a == 1 | b == 2", .unexpectedCharacter, 8),
        FilterErrorCase("#", .unexpectedCharacter, 1),
        FilterErrorCase("a.b == 1", .unexpectedCharacter, 2),
        FilterErrorCase("price == .5", .unexpectedCharacter, 10),
        FilterErrorCase("price == -", .unexpectedCharacter, 10),
        FilterErrorCase("price == - 1", .unexpectedCharacter, 10),
        FilterErrorCase("name == \"x\" \u{1F600}", .unexpectedCharacter, 13),
        FilterErrorCase(#"name == "abc"#, .unterminatedString, 9),
        FilterErrorCase(#"name == 'abc""#, .unterminatedString, 9),
        FilterErrorCase(#"name == "abc\"#, .unterminatedString, 9),
        FilterErrorCase(#"name == "a\qb""#, .invalidEscape, 11),
        FilterErrorCase(#"name == "\u12""#, .invalidEscape, 10),
        FilterErrorCase(#"name == "\u12zz""#, .invalidEscape, 10),
        FilterErrorCase(#"name == "\ud800""#, .invalidEscape, 10),
        FilterErrorCase(#"name == "\ud800\u0041""#, .invalidEscape, 10),
        FilterErrorCase(#"name == "\udc00""#, .invalidEscape, 10),
        FilterErrorCase("name == \"\\\u{E9}\"", .invalidEscape, 10),
        FilterErrorCase("price == 01", .invalidNumber, 10),
        FilterErrorCase("price == -01", .invalidNumber, 10),
        FilterErrorCase("price == 1.", .invalidNumber, 10),
        FilterErrorCase("price == 1.e5", .invalidNumber, 10),
        FilterErrorCase("price == 1e", .invalidNumber, 10),
        FilterErrorCase("price == 1e+", .invalidNumber, 10),
        FilterErrorCase("price == 12abc", .invalidNumber, 10),
        FilterErrorCase("price == 1.5.3", .invalidNumber, 10),
        FilterErrorCase("price == 1e999", .invalidNumber, 10),
        FilterErrorCase("price == -1e999", .invalidNumber, 10),
    ]

    @Test(arguments: lexicalErrors)
    func lexicalErrorsReportCodeAndColumn(_ testCase: FilterErrorCase) {
        #expect {
            _ = try FilterTokenizer.tokenize(testCase.source)
        } throws: { error in
            guard let error = error as? FilterError else { return false }
            return error.code == testCase.code && error.column == testCase.column && error.line == 1
        }
    }

    @Test func columnsCountCharactersWhileRangesCountBytes() throws {
        let source = "name == \"\u{E9}t\u{E9}\" #"
        let error = try #require(throws: FilterError.self) { try FilterTokenizer.tokenize(source) }
        #expect(error.column == 15)
        #expect(error.range == 16..<17)
        #expect(error.found == "`#`")
    }

    @Test func dottedNamesGetAPathHint() throws {
        let error = try #require(throws: FilterError.self) { try FilterTokenizer.tokenize("payload.price > 1") }
        #expect(error.summary.contains("not by path"))
        #expect(error.column == 8)
    }

    @Test(arguments: ["price", "_a", "createdAt", "\u{E9}l\u{E8}ve", "android", "x1"])
    func validPropertyNames(_ name: String) {
        #expect(FilterTokenizer.isValidPropertyName(name))
    }

    @Test(arguments: ["", "1a", "-price", "+price", "a.b", "my prop", "like", "AND", "null", "True", "a-b"])
    func invalidPropertyNames(_ name: String) {
        #expect(!FilterTokenizer.isValidPropertyName(name))
    }
}
