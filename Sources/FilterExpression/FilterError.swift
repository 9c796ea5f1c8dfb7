/// A problem with a filter expression or a sort specification: a syntax error thrown by the
/// tokenizer or parser, or one of the problems a ``FilterValidator`` reports.
///
/// Every error has a stable ``code`` (compare with the static members of ``Code``), a one-line
/// ``summary`` without position, and, when it comes from source text, the UTF-8 ``range`` of the
/// offending text with a 1-based ``line`` and ``column``. ``message`` joins them the way people
/// read them:
///
/// ```
/// expected a value (string, number, true, false or null) at column 8, found end of input
/// ```
///
/// and ``rendered`` adds the source line with a caret under the offending spot. A server can map
/// ``code`` and ``column`` straight into a 400 response.
public struct FilterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable error code. New codes may be added; compare against the static
    /// members rather than switching exhaustively.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable string form, for example `"expectedValue"`.
        public var rawValue: String

        /// Creates a code from its string form.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The raw value.
        public var description: String { rawValue }

        // MARK: Syntax (tokenizer and parser)

        /// The expression is empty or only whitespace.
        public static let emptyExpression = Code(rawValue: "emptyExpression")
        /// A character that cannot start any token, for example `=` or `#`.
        public static let unexpectedCharacter = Code(rawValue: "unexpectedCharacter")
        /// A quoted string has no closing quote.
        public static let unterminatedString = Code(rawValue: "unterminatedString")
        /// A backslash escape inside a string is not one of the supported ones.
        public static let invalidEscape = Code(rawValue: "invalidEscape")
        /// A number is malformed (`01`, `1.`, `1e`) or out of range (`1e999`).
        public static let invalidNumber = Code(rawValue: "invalidNumber")
        /// A property name (or `(`) was expected.
        public static let expectedProperty = Code(rawValue: "expectedProperty")
        /// An operator (`==`, `!=`, `<`, `>`, `<=`, `>=`, `LIKE`, `SLIKE`, `ILIKE`) was expected.
        public static let expectedOperator = Code(rawValue: "expectedOperator")
        /// A value (string, number, `true`, `false` or `null`) was expected.
        public static let expectedValue = Code(rawValue: "expectedValue")
        /// A `(` was never closed.
        public static let expectedClosingParenthesis = Code(rawValue: "expectedClosingParenthesis")
        /// A complete condition is followed by something other than `&&`, `||`, `)` or the end.
        public static let unexpectedToken = Code(rawValue: "unexpectedToken")
        /// Parentheses or `!` are nested deeper than the parser allows.
        public static let nestingTooDeep = Code(rawValue: "nestingTooDeep")

        // MARK: Validation

        /// A property name that the language cannot express (for example from the builder).
        public static let invalidPropertyName = Code(rawValue: "invalidPropertyName")
        /// The property is not declared on the class version being checked.
        public static let unknownProperty = Code(rawValue: "unknownProperty")
        /// The property can never be filtered on (`eTag`, `expiresAt`, or declared with mode `none`).
        public static let propertyNotFilterable = Code(rawValue: "propertyNotFilterable")
        /// The property can never be sorted on (`eTag`, `expiresAt`, or declared with mode `none`).
        public static let propertyNotSortable = Code(rawValue: "propertyNotSortable")
        /// The property is declared `simple` but is used with `filter`, which needs `full`.
        public static let propertyRequiresFullMode = Code(rawValue: "propertyRequiresFullMode")
        /// `LIKE`, `SLIKE` or `ILIKE` is used with a value that is not a string.
        public static let patternRequiresString = Code(rawValue: "patternRequiresString")
        /// `null` is used with an operator other than `==` or `!=`.
        public static let nullRequiresEquality = Code(rawValue: "nullRequiresEquality")
        /// A number that is not finite (only possible in expressions built in code).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// The expression has more conditions than the tier allows.
        public static let tooManyConditions = Code(rawValue: "tooManyConditions")
        /// The requested class version is not in the schema.
        public static let unknownClassVersion = Code(rawValue: "unknownClassVersion")
        /// An `&&`/`||` group with fewer than two operands (only possible in code-built trees).
        public static let malformedExpression = Code(rawValue: "malformedExpression")

        // MARK: Sort

        /// A sort list has an empty entry (`name,,price` or a trailing comma).
        public static let emptySortField = Code(rawValue: "emptySortField")
        /// A sort entry's direction is neither `asc` nor `desc`.
        public static let invalidSortDirection = Code(rawValue: "invalidSortDirection")
    }

    /// What went wrong.
    public var code: Code
    /// A one-line description without position, for example
    /// `expected a value (string, number, true, false or null)`.
    public var summary: String
    /// What the parser expected at this point, when that is meaningful.
    public var expected: String?
    /// What was found instead (`end of input` or the offending text in backticks), when known.
    public var found: String?
    /// The UTF-8 byte offsets of the offending text in ``source``; `nil` for problems found in a
    /// tree that did not come from source text.
    public var range: Range<Int>?
    /// The source text the error refers to, when there is one.
    public var source: String?
    /// The 1-based line of ``range``'s start (lines split at `\n`).
    public var line: Int?
    /// The 1-based column of ``range``'s start within its line, counted in characters.
    public var column: Int?

    /// Creates an error and computes its line and column from `source` and `range`.
    public init(
        code: Code, summary: String, expected: String? = nil, found: String? = nil,
        range: Range<Int>? = nil, source: String? = nil
    ) {
        self.code = code
        self.summary = summary
        self.expected = expected
        self.found = found
        self.range = range
        self.source = source
        if let range, let source {
            let location = SourceLocation(offset: range.lowerBound, in: source)
            self.line = location.line
            self.column = location.column
        }
    }

    /// The summary with its position and what was found, for example
    /// `expected a value (string, number, true, false or null) at column 8, found end of input`.
    public var message: String {
        var text = summary
        if let column {
            let multiline = source?.utf8.contains(UInt8(ascii: "\n")) ?? false
            if let line, multiline {
                text += " at line \(line), column \(column)"
            } else {
                text += " at column \(column)"
            }
        }
        if let found { text += ", found \(found)" }
        return text
    }

    /// The ``message``.
    public var description: String { message }

    /// The offending source line with a caret (`^`, then `~` for the rest of the token) under the
    /// offending text, followed by ``message``. Without a position this is just ``message``.
    ///
    /// ```
    /// price <
    ///        ^
    /// expected a value (string, number, true, false or null) at column 8, found end of input
    /// ```
    public var rendered: String {
        guard let range, let source else { return message }
        let bytes = Array(source.utf8)
        let start = min(max(range.lowerBound, 0), bytes.count)
        var lineStart = start
        while lineStart > 0, bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
        var lineEnd = start
        while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
        let lineText = String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self)
        // Tabs are copied so the caret lines up under tab-indented text.
        let prefix = String(decoding: bytes[lineStart..<start], as: UTF8.self)
        let padding = String(prefix.map { $0 == "\t" ? "\t" : " " })
        let end = min(max(range.upperBound, start), lineEnd)
        let width = String(decoding: bytes[start..<end], as: UTF8.self).count
        let marker = "^" + String(repeating: "~", count: max(width - 1, 0))
        return lineText + "\n" + padding + marker + "\n" + message
    }
}

/// A 1-based line and column computed from a UTF-8 offset.
struct SourceLocation {
    var line: Int
    var column: Int

    init(offset: Int, in source: String) {
        let bytes = Array(source.utf8)
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<end where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        self.line = line
        self.column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
    }
}
