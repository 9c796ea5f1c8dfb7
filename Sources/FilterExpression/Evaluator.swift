public import JSONCore

/// Decides whether objects match a filter expression, the way the service does.
///
/// Semantics:
/// - A property is looked up through a resolver; a missing property (`nil`) is `null`. On a
///   `JSONObject` names are compared by Unicode scalars, with no normalisation.
/// - `== null` matches `null`/missing; `!= null` matches anything else (arrays and objects too).
/// - Otherwise both sides must have the same type, or the condition does not match, for every
///   operator including `!=`: `status != "x"` does not match an object without `status`.
/// - Numbers compare numerically (integers and doubles exactly, without rounding);
///   strings compare by Unicode scalar values (no normalisation); booleans support `==` and `!=`
///   only; arrays and objects never match a literal.
/// - `LIKE`/`ILIKE` match case-insensitively, `SLIKE` case-sensitively (see ``LikePattern``).
/// - Conditions the validator would reject (`LIKE 5`, `< null`) never match; an empty `&&` group
///   matches and an empty `||` group does not.
///
/// Patterns are compiled once at initialisation, so keep one evaluator per expression.
///
/// ```swift
/// let evaluator = try FilterEvaluator(parsing: #"name LIKE "*sneaker*" && price < 100"#)
/// evaluator.matches(["name": "Blue Sneaker", "price": 79.99])  // true
/// ```
public struct FilterEvaluator: Sendable {
    private indirect enum Compiled: Sendable {
        case condition(CompiledCondition)
        case and([Compiled])
        case or([Compiled])
        case not(Compiled)
    }

    private struct CompiledCondition: Sendable {
        var property: String
        var op: FilterOperator
        var value: FilterValue
        var pattern: LikePattern?
    }

    private let root: Compiled

    /// The expression being evaluated.
    public let node: FilterNode

    /// Compiles `node`.
    public init(_ node: FilterNode) {
        self.node = node
        self.root = Self.compile(node)
    }

    /// Parses and compiles `source`.
    ///
    /// - Throws: ``FilterError`` when `source` does not parse.
    public init(parsing source: String) throws(FilterError) {
        self.init(try FilterParser().parse(source).root)
    }

    /// Whether the object whose properties `resolve` returns matches. `resolve` is called with
    /// property names as written in the expression and returns `nil` for a missing property.
    public func matches(_ resolve: (String) -> JSONValue?) -> Bool {
        Self.evaluate(root, resolve)
    }

    /// Whether a JSON object matches, resolving names as its top-level keys, compared by Unicode
    /// scalars like every `JSONObject` name (`é` does not find a member spelled `e\u{301}`). A
    /// value that is not an object has no properties.
    public func matches(_ object: JSONValue) -> Bool {
        guard case .object(let members) = object else { return matches { _ in nil } }
        return matches(members)
    }

    /// Whether an object's members match, names compared by Unicode scalars.
    public func matches(_ properties: JSONObject) -> Bool {
        Self.evaluate(root) { properties[$0] }
    }

    /// Whether a dictionary of properties matches. A Swift dictionary looks names up by canonical
    /// equivalence; pass a `JSONObject` to compare them by scalars.
    public func matches(_ properties: [String: JSONValue]) -> Bool {
        Self.evaluate(root) { properties[$0] }
    }

    /// Whether one condition holds for `actual` (the property's value, `nil` when missing).
    public static func test(_ actual: JSONValue?, _ op: FilterOperator, _ value: FilterValue) -> Bool {
        test(actual ?? .null, op, value, pattern: LikePattern.compile(value, op))
    }

    // MARK: - Internals

    private static func compile(_ node: FilterNode) -> Compiled {
        switch node {
        case .condition(let condition):
            return .condition(
                CompiledCondition(
                    property: condition.property, op: condition.op, value: condition.value,
                    pattern: LikePattern.compile(condition.value, condition.op)))
        case .and(let operands): return .and(operands.map(compile))
        case .or(let operands): return .or(operands.map(compile))
        case .not(let operand): return .not(compile(operand))
        }
    }

    private static func evaluate(_ node: Compiled, _ resolve: (String) -> JSONValue?) -> Bool {
        switch node {
        case .condition(let condition):
            return test(resolve(condition.property) ?? .null, condition.op, condition.value, pattern: condition.pattern)
        case .and(let operands):
            for operand in operands where !evaluate(operand, resolve) { return false }
            return true
        case .or(let operands):
            for operand in operands where evaluate(operand, resolve) { return true }
            return false
        case .not(let operand):
            return !evaluate(operand, resolve)
        }
    }

    private static func test(_ actual: JSONValue, _ op: FilterOperator, _ value: FilterValue, pattern: LikePattern?)
        -> Bool
    {
        if case .null = value {
            switch op {
            case .equal: return actual.isNull
            case .notEqual: return !actual.isNull
            default: return false
            }
        }
        let order: Int?
        switch (actual, value) {
        case (.string(let text), .string(let expected)):
            if op.isPattern { return pattern?.matches(text) ?? false }
            order = ScalarText.compare(text, expected)
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double):
            order = compareNumbers(actual, value)
        case (.bool(let flag), .bool(let expected)):
            guard op.isEquality else { return false }
            order = flag == expected ? 0 : 1
        default:
            return false
        }
        guard let order, !op.isPattern else { return false }
        switch op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .greater: return order > 0
        case .lessOrEqual: return order <= 0
        case .greaterOrEqual: return order >= 0
        case .like, .slike, .ilike: return false
        }
    }

    /// Three-way numeric comparison without rounding integers through `Double`; `nil` for NaN.
    static func compareNumbers(_ actual: JSONValue, _ value: FilterValue) -> Int? {
        switch (actual, value) {
        case (.int(let a), .int(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.double(let a), .double(let b)):
            if a.isNaN || b.isNaN { return nil }
            return a < b ? -1 : (a > b ? 1 : 0)
        case (.int(let a), .double(let b)): return compare(a, b)
        case (.double(let a), .int(let b)): return compare(b, a).map { -$0 }
        default: return nil
        }
    }

    private static func compare(_ integer: Int64, _ double: Double) -> Int? {
        if double.isNaN { return nil }
        if double >= 9_223_372_036_854_775_808.0 { return -1 }
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = double.rounded(.towardZero)
        let truncated = Int64(whole)
        if integer != truncated { return integer < truncated ? -1 : 1 }
        let fraction = double - whole
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }
}

extension LikePattern {
    /// The compiled pattern for a pattern operator with a string value, otherwise `nil`.
    static func compile(_ value: FilterValue, _ op: FilterOperator) -> LikePattern? {
        guard case .string(let text) = value else { return nil }
        return LikePattern(text, for: op)
    }
}
