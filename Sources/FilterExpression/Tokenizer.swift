/// Splits a filter expression into ``FilterToken``s.
///
/// Lexical rules (see `Documentation/FilterLanguage.md` for the reasoning):
/// - whitespace (space, tab, CR, LF) separates tokens and is otherwise ignored;
/// - a property name starts with a letter or `_` and continues with letters, digits and `_`
///   (Unicode letters and digits included); a `.` after a name is rejected, because properties
///   are referenced by name, not path;
/// - the words `LIKE`, `SLIKE`, `ILIKE`, `AND`, `OR`, `NOT`, `true`, `false`, `null` are keywords in
///   any letter case and cannot be property names;
/// - strings are quoted with `"` or `'`; escapes are `\"`, `\'`, `\\`, `\/`, `\b`, `\f`, `\n`,
///   `\r`, `\t`, `\uXXXX` (UTF-16, surrogate pairs combined), and `\*`, which is kept as the two
///   characters `\*` so that it reaches a pattern as an escaped (literal) asterisk;
/// - numbers use JSON syntax: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
///
/// The tokenizer never traps: malformed input produces a ``FilterError`` with the position.
public struct FilterTokenizer: Sendable {
    private let source: String
    private let bytes: [UInt8]
    private var position = 0

    /// Creates a tokenizer over `source`.
    public init(_ source: String) {
        self.source = source
        self.bytes = Array(source.utf8)
    }

    /// Tokenizes the whole source; the last token is always ``FilterToken/Kind/endOfInput``.
    ///
    /// - Throws: ``FilterError`` for the first lexical error.
    public static func tokenize(_ source: String) throws(FilterError) -> [FilterToken] {
        var tokenizer = FilterTokenizer(source)
        var tokens: [FilterToken] = []
        while true {
            let token = try tokenizer.next()
            tokens.append(token)
            if token.kind == .endOfInput { return tokens }
        }
    }

    /// Whether `name` can be written as a property name in an expression (it follows the name
    /// rules above and is not a keyword).
    public static func isValidPropertyName(_ name: String) -> Bool {
        var scalars = name.unicodeScalars.makeIterator()
        guard let first = scalars.next(), FilterLexer.isIdentifierStart(first) else { return false }
        while let scalar = scalars.next() {
            guard FilterLexer.isIdentifierContinue(scalar) else { return false }
        }
        return FilterLexer.keyword(for: Array(name.utf8)) == nil
    }

    /// Reads the next token.
    ///
    /// - Throws: ``FilterError`` when the text at the current position is not a valid token.
    public mutating func next() throws(FilterError) -> FilterToken {
        let start = position
        let result: Result<FilterToken, FilterError> = bytes.withUnsafeBufferPointer { buffer in
            var lexer = FilterLexer(bytes: buffer, source: source, position: start)
            defer { position = lexer.position }
            do throws(FilterError) {
                let raw = try lexer.next()
                return .success(FilterToken(kind: lexer.publicKind(of: raw), range: raw.start..<raw.end))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// A token without its text: what kind it is, where it is, and the number for numeric literals.
/// Names and strings are turned into `String`s only when the parser builds a condition.
struct RawToken {
    enum Kind: UInt8 {
        case identifier, string, integer, double, `true`, `false`, null, op, and, or, not
        case leftParenthesis, rightParenthesis, endOfInput
    }

    var kind: Kind
    /// The operator, when `kind` is `.op`.
    var op: FilterOperator = .equal
    /// For `.string`: whether the content had escapes, so its value is in the lexer's `decoded`.
    var hasEscapes = false
    /// For `.integer` and `.double`: the value's bits, in one field (the parser copies a token
    /// on every step, so a smaller token is cheaper).
    private var payload: UInt64 = 0
    var start: Int
    var end: Int

    init(_ kind: Kind, start: Int, end: Int) {
        self.kind = kind
        self.start = start
        self.end = end
    }

    var range: Range<Int> { start..<end }

    /// For `.integer`: the value.
    var integer: Int64 {
        get { Int64(bitPattern: payload) }
        set { payload = UInt64(bitPattern: newValue) }
    }

    /// For `.double`: the value.
    var double: Double {
        get { Double(bitPattern: payload) }
        set { payload = newValue.bitPattern }
    }

    var isValue: Bool {
        switch kind {
        case .string, .integer, .double, .true, .false, .null: return true
        default: return false
        }
    }
}
