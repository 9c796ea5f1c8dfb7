/// One token of a filter expression with the UTF-8 byte range it was read from.
public struct FilterToken: Hashable, Sendable {
    /// What kind of token this is, with its decoded payload.
    public enum Kind: Hashable, Sendable {
        /// A property name such as `price` or `createdAt`.
        case identifier(String)
        /// A quoted string with its escapes decoded (quotes not included).
        case string(String)
        /// An integer literal that fits in 64 bits.
        case integer(Int64)
        /// Any other number literal.
        case double(Double)
        /// `true` (any letter case).
        case `true`
        /// `false` (any letter case).
        case `false`
        /// `null` (any letter case).
        case null
        /// A comparison or pattern operator: `==`, `!=`, `<`, `>`, `<=`, `>=`, `LIKE`, `SLIKE`, `ILIKE`.
        case op(FilterOperator)
        /// `&&` or the word `AND`.
        case and
        /// `||` or the word `OR`.
        case or
        /// `!` or the word `NOT`.
        case not
        /// `(`
        case leftParenthesis
        /// `)`
        case rightParenthesis
        /// The end of the input; always the last token.
        case endOfInput
    }

    /// The token's kind and payload.
    public var kind: Kind
    /// The UTF-8 byte offsets of the token in the source text.
    public var range: Range<Int>

    /// Creates a token.
    public init(kind: Kind, range: Range<Int>) {
        self.kind = kind
        self.range = range
    }

    /// Whether the token is a literal value (string, number, `true`, `false`, `null`).
    public var isValue: Bool {
        switch kind {
        case .string, .integer, .double, .true, .false, .null: return true
        default: return false
        }
    }
}
