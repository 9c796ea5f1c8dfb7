/// The source positions of one condition, kept beside the tree so that ``FilterNode`` stays a pure
/// value that compares equal regardless of spacing.
public struct ConditionSpan: Hashable, Sendable {
    /// UTF-8 range of the property name.
    public var property: Range<Int>
    /// UTF-8 range of the operator.
    public var op: Range<Int>
    /// UTF-8 range of the value literal (quotes included).
    public var value: Range<Int>

    /// Creates a span.
    public init(property: Range<Int>, op: Range<Int>, value: Range<Int>) {
        self.property = property
        self.op = op
        self.value = value
    }

    /// From the start of the property to the end of the value.
    public var whole: Range<Int> { property.lowerBound..<value.upperBound }
}

/// The result of parsing: the source, its tree, and where each condition came from.
public struct ParsedFilter: Hashable, Sendable {
    /// The text that was parsed.
    public var source: String
    /// The syntax tree.
    public var root: FilterNode
    /// One span per condition, in the same order as ``FilterNode/conditions``.
    public var spans: [ConditionSpan]

    /// Creates a parse result.
    public init(source: String, root: FilterNode, spans: [ConditionSpan]) {
        self.source = source
        self.root = root
        self.spans = spans
    }
}

/// A recursive-descent parser for filter expressions.
///
/// Grammar (`!` binds tighter than `&&`, which binds tighter than `||`; both binary operators are
/// left-associative and chains become one n-ary node):
///
/// ```
/// expression := or
/// or         := and ( ("||" | OR) and )*
/// and        := unary ( ("&&" | AND) unary )*
/// unary      := ("!" | NOT) unary | primary
/// primary    := "(" or ")" | condition
/// condition  := property operator value
/// operator   := "==" | "!=" | "<" | ">" | "<=" | ">=" | LIKE | SLIKE | ILIKE
/// value      := string | number | true | false | null
/// ```
///
/// Syntax only: whether `LIKE` gets a string or `null` meets `<` is the ``FilterValidator``'s
/// business, so that all such problems can be reported together.
///
/// ```swift
/// let parsed = try FilterParser().parse("(price < 100 && stock > 0) || price > 500")
/// print(parsed.root.conditionCount)  // 3
/// ```
public struct FilterParser: Sendable {
    /// The default limit on nested parentheses and `!`.
    public static let defaultMaximumDepth = 64

    /// How deeply parentheses and `!` may nest before parsing fails with
    /// ``FilterError/Code/nestingTooDeep``; this keeps hostile input from exhausting the stack.
    public var maximumDepth: Int

    /// Creates a parser.
    public init(maximumDepth: Int = FilterParser.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// Parses `source` into a tree with source positions.
    ///
    /// - Throws: ``FilterError`` describing the first syntax error, with its position.
    public func parse(_ source: String) throws(FilterError) -> ParsedFilter {
        let (root, spans, _) = try parse(source, screen: nil)
        return ParsedFilter(source: source, root: consume root, spans: consume spans)
    }

    /// Parses `source`, and with a `screen` checks each condition as it is read (see
    /// ``ConditionScreen``): the result lists the conditions the screen could not clear.
    func parse(_ source: String, screen: ConditionScreen?) throws(FilterError) -> (
        root: FilterNode, spans: [ConditionSpan], deferred: [(index: Int, condition: FilterCondition)]
    ) {
        // The lexer reads the string's own UTF-8 storage (a copy is made only for a string that
        // is not stored contiguously, such as a bridged one). The closure stores into locals
        // rather than returning a `Result`, which would be copied out again.
        var text = source
        var root = FilterNode.and([])
        var spans: [ConditionSpan] = []
        var deferred: [(index: Int, condition: FilterCondition)] = []
        var failure: FilterError?
        text.withUTF8 { bytes in
            var state = ParserState(
                lexer: FilterLexer(bytes: bytes, source: source), maximumDepth: maximumDepth, screen: screen)
            do throws(FilterError) {
                try state.advance()
                root = try state.parseExpression()
                // Swapped out rather than copied, so no retain and release per array.
                swap(&spans, &state.spans)
                swap(&deferred, &state.deferred)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return (root, spans, deferred)
    }
}

/// What a ``FilterValidator`` lends the parser so that the common case of a condition, a known
/// property that the tier permits with a value its operator accepts, is settled while the
/// condition is read, without a second walk over the tree and without decoding the property name
/// (the table holds the `String`). Anything else is left to the validator's own checks.
struct ConditionScreen {
    /// The validator's property table.
    let table: PropertyTable
    /// Whether the tier is `filter` (which needs mode `full`); otherwise `filterFast` or none.
    let isFilterTier: Bool
    /// Whether there are no declared properties to check against (no schema, or an unknown
    /// version): then a name only has to be expressible, which every identifier the lexer reads
    /// is, and an ASCII name that is not a system property needs no further check.
    let acceptsUnknownNames: Bool

    /// Whether `op` and `value` pass every value rule of ``FilterValidator`` (the same conditions
    /// under which its condition check reports nothing about the value).
    static func valueIsValid(_ op: FilterOperator, _ value: FilterValue) -> Bool {
        switch value {
        case .string: return true
        case .int, .bool: return !op.isPattern
        case .double(let number): return !op.isPattern && number.isFinite
        case .null: return op.isEquality
        }
    }
}

private struct ParserState {
    let maximumDepth: Int
    var lexer: FilterLexer
    var current: RawToken
    var spans: [ConditionSpan] = []
    var depth = 0
    let screen: ConditionScreen?
    var deferred: [(index: Int, condition: FilterCondition)] = []

    var source: String { lexer.source }

    /// Call ``advance()`` once before parsing to read the first token. (A throwing initialiser
    /// would build the state in a temporary and copy it, retains included.)
    init(lexer: FilterLexer, maximumDepth: Int, screen: ConditionScreen?) {
        self.maximumDepth = maximumDepth
        self.lexer = lexer
        self.screen = screen
        self.current = RawToken(.endOfInput, start: 0, end: 0)
        // A guess that saves the array's regrowth for common sizes: every condition takes at least
        // a handful of bytes (`a<1 && ` is eight), and a typical one ten or more.
        spans.reserveCapacity(min(16, max(4, lexer.bytes.count / 10)))
    }

    /// Room for the operands of a `&&`/`||` chain starting here: a chain of n conditions takes at
    /// least some 12 bytes per condition in practice (`price < 1 && `), so sizing from the bytes
    /// left saves regrowing long chains without much waste on short ones.
    private var operandCapacity: Int { min(16, max(4, (lexer.bytes.count - current.start) / 12)) }

    mutating func advance() throws(FilterError) {
        current = try lexer.next()
    }

    var atEnd: Bool { current.kind == .endOfInput }

    mutating func parseExpression() throws(FilterError) -> FilterNode {
        if atEnd {
            throw FilterError(
                code: .emptyExpression, summary: "empty filter expression",
                expected: "a condition such as `price < 100`", found: "end of input", range: current.range,
                source: source)
        }
        let root = try parseOr()
        guard atEnd else {
            throw error(.unexpectedToken, expected: "'&&', '||' or end of input")
        }
        return root
    }

    // A lone operand is returned as it is, so the common single-operand levels allocate no array;
    // a group starts with room for a few operands so that short chains never regrow.
    private mutating func parseOr() throws(FilterError) -> FilterNode {
        let first = try parseAnd()
        guard current.kind == .or else { return first }
        var operands: [FilterNode] = []
        operands.reserveCapacity(operandCapacity)
        // Moved, not copied: a copy would retain the operand's strings and arrays once more.
        operands.append(consume first)
        while current.kind == .or {
            try advance()
            operands.append(try parseAnd())
        }
        return .or(operands)
    }

    private mutating func parseAnd() throws(FilterError) -> FilterNode {
        let first = try parseUnary()
        guard current.kind == .and else { return first }
        var operands: [FilterNode] = []
        operands.reserveCapacity(operandCapacity)
        // Moved, not copied: a copy would retain the operand's strings and arrays once more.
        operands.append(consume first)
        while current.kind == .and {
            try advance()
            operands.append(try parseUnary())
        }
        return .and(operands)
    }

    /// `afterNot`: the operand of a `!`. A `(` right after `!` shares the `!`'s nesting level, so
    /// that the printer's `!(…)` is never deeper than the text it was parsed from.
    ///
    /// This and ``parsePrimary(afterNot:)`` are inlined into their callers, so a condition (the
    /// usual operand) is read with no call levels in between; `!` and parentheses go out of line.
    @inline(__always)
    private mutating func parseUnary(afterNot: Bool = false) throws(FilterError) -> FilterNode {
        guard current.kind == .not else { return try parsePrimary(afterNot: afterNot) }
        return try parseNot()
    }

    @inline(never)
    private mutating func parseNot() throws(FilterError) -> FilterNode {
        try enter()
        try advance()
        let operand = try parseUnary(afterNot: true)
        depth -= 1
        return .not(consume operand)
    }

    @inline(__always)
    private mutating func parsePrimary(afterNot: Bool) throws(FilterError) -> FilterNode {
        if current.kind == .identifier { return try parseCondition() }
        return try parseGroup(afterNot: afterNot)
    }

    /// A parenthesised group, or the error for a token that cannot start an operand.
    @inline(never)
    private mutating func parseGroup(afterNot: Bool) throws(FilterError) -> FilterNode {
        switch current.kind {
        case .leftParenthesis:
            let open = current
            if !afterNot { try enter() }
            try advance()
            let inner = try parseOr()
            switch current.kind {
            case .rightParenthesis:
                try advance()
            case .endOfInput:
                let column = SourceLocation(offset: open.start, in: source).column
                throw error(.expectedClosingParenthesis, expected: "')' to close the '(' at column \(column)")
            default:
                throw error(.unexpectedToken, expected: "'&&', '||' or ')'")
            }
            if !afterNot { depth -= 1 }
            return inner
        case .identifier:
            return try parseCondition()
        default:
            var hint = ""
            if current.isValue { hint = " (a condition starts with the property name, as in `price < 100`)" }
            throw error(.expectedProperty, expected: "a property name or '('", hint: hint)
        }
    }

    private mutating func parseCondition() throws(FilterError) -> FilterNode {
        let propertyRange = current.range
        let property: String
        // Whether the property alone raises no problem (only known with a screen).
        var propertyIsValid = false
        if let screen {
            switch screen.table.lookup(in: lexer.bytes, from: current.start, to: current.end) {
            case .found(let index):
                property = screen.table.name(index)
                let entry = screen.table.entry(index)
                switch entry.kind {
                case .builtIn: propertyIsValid = true
                case .declared: propertyIsValid = screen.isFilterTier ? entry.permitsFilter : entry.permitsAnyTier
                case .unfilterable: break
                }
            case .missing:
                property = lexer.identifier(current)
                propertyIsValid = screen.acceptsUnknownNames
            case .notASCII:
                property = lexer.identifier(current)
            }
        } else {
            property = lexer.identifier(current)
        }
        try advance()
        guard current.kind == .op else {
            throw error(.expectedOperator, expected: "an operator (==, !=, <, >, <=, >=, LIKE, SLIKE or ILIKE)")
        }
        let op = current.op
        let opRange = current.range
        try advance()
        let value: FilterValue
        switch current.kind {
        case .string: value = .string(lexer.stringValue(current))
        case .integer: value = .int(current.integer)
        case .double: value = .double(current.double)
        case .true: value = .bool(true)
        case .false: value = .bool(false)
        case .null: value = .null
        case .identifier:
            throw error(
                .expectedValue, expected: "a value (string, number, true, false or null)",
                hint: " (strings must be quoted)")
        default:
            throw error(.expectedValue, expected: "a value (string, number, true, false or null)")
        }
        spans.append(ConditionSpan(property: propertyRange, op: opRange, value: current.range))
        try advance()
        // Decided before the condition is made, so the value and the name are moved into it
        // rather than copied (a retain and a release each).
        let isDeferred = screen != nil && (!propertyIsValid || !ConditionScreen.valueIsValid(op, value))
        let condition = FilterCondition(property: consume property, op: op, value: consume value)
        if isDeferred { deferred.append((spans.count - 1, condition)) }
        return .condition(consume condition)
    }
    private mutating func enter() throws(FilterError) {
        depth += 1
        guard depth <= maximumDepth else {
            throw FilterError(
                code: .nestingTooDeep, summary: "parentheses and '!' nested deeper than \(maximumDepth) levels",
                found: found(), range: current.range, source: source)
        }
    }

    private func found() -> String {
        if atEnd { return "end of input" }
        let bytes = source.utf8.dropFirst(current.range.lowerBound).prefix(current.range.count)
        var text = String(decoding: bytes, as: UTF8.self)
        if text.count > 40 { text = String(text.prefix(40)) + "…" }
        return "`\(text)`"
    }

    private func error(_ code: FilterError.Code, expected: String, hint: String = "") -> FilterError {
        FilterError(
            code: code, summary: "expected \(expected)\(hint)", expected: expected, found: found(),
            range: current.range, source: source)
    }
}
