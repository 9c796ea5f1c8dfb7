import FilterExpression
import JSONCore

/// PubNub's subscribe-side message filter (`filter-expr`), evaluated against each message's
/// publisher (`uuid`) and `meta` (`meta.<key>`, dots for nested keys).
///
/// Grammar: `or := and ("||" and)*`, `and := unary ("&&" unary)*`, `unary := "!" unary | "(" or ")" |
/// operand [op operand]`, where `op` is `==`, `!=`, `<`, `<=`, `>`, `>=`, `LIKE` or `CONTAINS`
/// (keywords in any case) and an operand is a variable, a quoted string (`'…'` or `"…"`, `\`
/// escapes the next character), a number, `true`, `false` or `null`. An operand alone is true when
/// it is present and not `false`/`null`.
struct StreamFilter: Sendable {
    indirect enum Node: Sendable {
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)
        case compare(Operand, Operator, Operand)
        case truthy(Operand)
    }

    enum Operand: Sendable {
        case uuid
        case meta([String])
        case literal(JSONValue)
    }

    enum Operator: String, Sendable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case like = "LIKE"
        case contains = "CONTAINS"
    }

    /// Why an expression was refused, with the character offset where parsing stopped.
    struct SyntaxError: Error, Sendable {
        var message: String
        var offset: Int
    }

    let root: Node

    /// The longest expression accepted, in UTF-8 bytes: what fits in the service's 32 KiB request
    /// line. Evaluation is linear in the expression and the message's `meta`, so this bounds the
    /// work one message costs a subscriber's catch-up.
    static let maximumLength = 32 * 1024
    /// The deepest nesting of `(` and `!` accepted: parsing and evaluation recurse once per level,
    /// and a deep enough expression would otherwise overflow the stack.
    static let maximumDepth = 64
    /// The most operands, `!` and `(` in one expression. `a && b && …` nests one level per
    /// operand in the parsed tree, so this bounds the recursion of evaluation too.
    static let maximumTerms = 512

    init(parsing source: String) throws(SyntaxError) {
        guard source.utf8.count <= Self.maximumLength else {
            throw SyntaxError(message: "expression longer than \(Self.maximumLength) bytes", offset: 0)
        }
        var parser = Parser(tokens: try Self.tokenize(source))
        root = try parser.parseOr()
        if let extra = parser.peek { throw SyntaxError(message: "unexpected \(extra.text)", offset: extra.offset) }
    }

    /// Whether a message from `publisher` with `meta` passes the filter.
    func matches(publisher: String?, meta: JSONValue?) -> Bool {
        Self.evaluate(root, publisher: publisher, meta: meta)
    }

    // MARK: Evaluation

    private static func evaluate(_ node: Node, publisher: String?, meta: JSONValue?) -> Bool {
        switch node {
        case .and(let left, let right):
            return evaluate(left, publisher: publisher, meta: meta) && evaluate(right, publisher: publisher, meta: meta)
        case .or(let left, let right):
            return evaluate(left, publisher: publisher, meta: meta) || evaluate(right, publisher: publisher, meta: meta)
        case .not(let inner):
            return !evaluate(inner, publisher: publisher, meta: meta)
        case .truthy(let operand):
            switch resolve(operand, publisher: publisher, meta: meta) {
            case nil, .null?, .bool(false)?: return false
            default: return true
            }
        case .compare(let left, let op, let right):
            guard let lhs = resolve(left, publisher: publisher, meta: meta),
                let rhs = resolve(right, publisher: publisher, meta: meta)
            else { return op == .notEqual }
            return compare(lhs, op, rhs)
        }
    }

    private static func resolve(_ operand: Operand, publisher: String?, meta: JSONValue?) -> JSONValue? {
        switch operand {
        case .uuid: return publisher.map(JSONValue.string)
        case .literal(let value): return value
        case .meta(let path):
            var current = meta
            for key in path { current = current?[key] }
            return current
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        if let number = value.doubleValue { return number }
        if let text = value.stringValue { return Double(text) }
        return nil
    }

    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        default: return nil
        }
    }

    private static func compare(_ lhs: JSONValue, _ op: Operator, _ rhs: JSONValue) -> Bool {
        switch op {
        case .equal, .notEqual:
            let same: Bool
            if let a = number(lhs), let b = number(rhs) { same = a == b } else { same = lhs == rhs }
            return (op == .equal) == same
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order: Int
            if let a = number(lhs), let b = number(rhs) {
                order = a < b ? -1 : (a > b ? 1 : 0)
            } else if let a = text(lhs), let b = text(rhs) {
                order = a < b ? -1 : (a > b ? 1 : 0)
            } else {
                return false
            }
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .like:
            guard let value = text(lhs), let pattern = text(rhs) else { return false }
            return like(value.lowercased(), pattern.lowercased())
        case .contains:
            if case .array(let elements) = lhs {
                return elements.contains { compare($0, .equal, rhs) }
            }
            guard let value = text(lhs), let part = text(rhs) else { return false }
            return part.isEmpty || like(value, "*" + part + "*", wildcards: false)
        }
    }

    /// `*` matches any run of characters; everything else matches itself; the whole value must
    /// match. Characters compare as Swift `Character`s (canonically equivalent ones are equal).
    /// With `wildcards` false only the outer `*` the caller added are wildcards (CONTAINS).
    static func like(_ value: String, _ pattern: String, wildcards: Bool = true) -> Bool {
        var steps = 0
        return like(value, pattern, wildcards: wildcards, steps: &steps)
    }

    /// ``like(_:_:wildcards:)``, adding to `steps` the comparisons made: linear in the value plus
    /// the pattern, however the pattern is built.
    static func like(_ value: String, _ pattern: String, wildcards: Bool, steps: inout Int) -> Bool {
        let characters = Array(pattern)
        let pieces: [[Character]]
        if wildcards {
            pieces = characters.split(separator: "*", omittingEmptySubsequences: false).map(Array.init)
        } else {
            pieces = [[], Array(characters.dropFirst().dropLast()), []]
        }
        return Array(value).withUnsafeBufferPointer { WildcardMatcher(pieces: pieces).matches($0, steps: &steps) }
    }

    // MARK: Tokens

    struct Token: Sendable {
        enum Kind: Sendable, Equatable {
            case word, string, number, symbol
        }
        var kind: Kind
        var text: String
        var offset: Int
    }

    private static func tokenize(_ source: String) throws(SyntaxError) -> [Token] {
        let chars = Array(source)
        var tokens: [Token] = []
        var index = 0
        while index < chars.count {
            let char = chars[index]
            if char.isWhitespace {
                index += 1
                continue
            }
            let start = index
            if char == "'" || char == "\"" {
                var text = ""
                index += 1
                var closed = false
                while index < chars.count {
                    if chars[index] == "\\", index + 1 < chars.count {
                        text.append(chars[index + 1])
                        index += 2
                    } else if chars[index] == char {
                        closed = true
                        index += 1
                        break
                    } else {
                        text.append(chars[index])
                        index += 1
                    }
                }
                guard closed else { throw SyntaxError(message: "unterminated string", offset: start) }
                tokens.append(Token(kind: .string, text: text, offset: start))
            } else if char.isNumber || (char == "-" && index + 1 < chars.count && chars[index + 1].isNumber) {
                index += 1
                while index < chars.count,
                    chars[index].isNumber || chars[index] == "." || chars[index] == "e"
                        || chars[index] == "E"
                {
                    index += 1
                }
                tokens.append(Token(kind: .number, text: String(chars[start..<index]), offset: start))
            } else if char.isLetter || char == "_" {
                while index < chars.count,
                    chars[index].isLetter || chars[index].isNumber || chars[index] == "_" || chars[index] == "."
                        || chars[index] == "-"
                {
                    index += 1
                }
                tokens.append(Token(kind: .word, text: String(chars[start..<index]), offset: start))
            } else {
                let two = index + 1 < chars.count ? String(chars[index...index + 1]) : ""
                if ["==", "!=", "<=", ">=", "&&", "||"].contains(two) {
                    tokens.append(Token(kind: .symbol, text: two, offset: start))
                    index += 2
                } else if "<>!()".contains(char) {
                    tokens.append(Token(kind: .symbol, text: String(char), offset: start))
                    index += 1
                } else {
                    throw SyntaxError(message: "unexpected character \(char)", offset: start)
                }
            }
        }
        return tokens
    }

    private struct Parser {
        let tokens: [Token]
        var position = 0
        var depth = 0
        var terms = 0

        var peek: Token? { position < tokens.count ? tokens[position] : nil }

        private var endOffset: Int { tokens.last.map { $0.offset + $0.text.count } ?? 0 }

        mutating func take(_ symbol: String) -> Bool {
            guard let token = peek, token.kind == .symbol || token.kind == .word,
                token.text.uppercased() == symbol
            else { return false }
            position += 1
            return true
        }

        mutating func parseOr() throws(SyntaxError) -> Node {
            var node = try parseAnd()
            while take("||") { node = .or(node, try parseAnd()) }
            return node
        }

        mutating func parseAnd() throws(SyntaxError) -> Node {
            var node = try parseUnary()
            while take("&&") { node = .and(node, try parseUnary()) }
            return node
        }

        mutating func parseUnary() throws(SyntaxError) -> Node {
            depth += 1
            terms += 1
            defer { depth -= 1 }
            guard depth <= StreamFilter.maximumDepth, terms <= StreamFilter.maximumTerms else {
                throw SyntaxError(
                    message:
                        "more than \(StreamFilter.maximumTerms) terms or \(StreamFilter.maximumDepth) levels of nesting",
                    offset: peek?.offset ?? endOffset)
            }
            if take("!") { return .not(try parseUnary()) }
            if take("(") {
                let inner = try parseOr()
                guard take(")") else { throw SyntaxError(message: "expected )", offset: peek?.offset ?? endOffset) }
                return inner
            }
            let left = try parseOperand()
            guard let token = peek else { return .truthy(left) }
            let op: Operator? =
                token.kind == .symbol
                ? Operator(rawValue: token.text)
                : (token.kind == .word ? Operator(rawValue: token.text.uppercased()) : nil)
            guard let op else { return .truthy(left) }
            position += 1
            return .compare(left, op, try parseOperand())
        }

        mutating func parseOperand() throws(SyntaxError) -> Operand {
            guard let token = peek else { throw SyntaxError(message: "expected a value", offset: endOffset) }
            position += 1
            switch token.kind {
            case .string: return .literal(.string(token.text))
            case .number:
                if let integer = Int64(token.text) { return .literal(.int(integer)) }
                guard let double = Double(token.text) else {
                    throw SyntaxError(message: "bad number \(token.text)", offset: token.offset)
                }
                return .literal(.double(double))
            case .word:
                switch token.text {
                case "uuid": return .uuid
                case "true": return .literal(.bool(true))
                case "false": return .literal(.bool(false))
                case "null": return .literal(.null)
                default:
                    let parts = token.text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                    guard parts.count >= 2, parts[0] == "meta", !parts.dropFirst().contains(where: \.isEmpty) else {
                        throw SyntaxError(message: "unknown variable \(token.text)", offset: token.offset)
                    }
                    return .meta(Array(parts.dropFirst()))
                }
            case .symbol:
                throw SyntaxError(message: "unexpected \(token.text)", offset: token.offset)
            }
        }
    }
}
