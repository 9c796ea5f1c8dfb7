public import JSONCore

/// The syntax tree of a filter expression.
///
/// `&&` and `||` are n-ary: a chain `a && b && c` is one ``and(_:)`` node with three operands, so
/// long chains never make the tree deep. Parentheses only create a node when they change the
/// structure: `a && (b && c)` is `and([a, and([b, c])])`, which ``FilterPrinter`` prints back with
/// the parentheses. Trees produced by ``FilterParser`` always have at least two operands in every
/// group; ``FilterValidator`` reports hand-built groups that do not.
///
/// Equality is structural, which is what makes `parse(print(tree)) == tree` a meaningful check.
///
/// Only ``not(_:)`` is stored indirectly: conditions sit inline in their parent's operand array,
/// so a tree costs one allocation per `&&`/`||` group rather than one per node.
public enum FilterNode: Hashable, Sendable {
    /// One `property operator value` condition.
    case condition(FilterCondition)
    /// All operands must match (`&&`).
    case and([FilterNode])
    /// At least one operand must match (`||`).
    case or([FilterNode])
    /// The operand must not match (`!`).
    indirect case not(FilterNode)

    /// The conditions of the tree in source order (a pre-order walk).
    public var conditions: [FilterCondition] {
        var result: [FilterCondition] = []
        collectConditions(into: &result)
        return result
    }

    /// The number of conditions in the tree; this is what the `filterFast` cap counts.
    public var conditionCount: Int {
        switch self {
        case .condition: return 1
        case .and(let operands), .or(let operands): return operands.reduce(0) { $0 + $1.conditionCount }
        case .not(let operand): return operand.conditionCount
        }
    }

    private func collectConditions(into result: inout [FilterCondition]) {
        switch self {
        case .condition(let condition): result.append(condition)
        case .and(let operands), .or(let operands):
            for operand in operands { operand.collectConditions(into: &result) }
        case .not(let operand): operand.collectConditions(into: &result)
        }
    }
}

/// One condition: a property name, an operator and a literal value, for example `price < 100`.
public struct FilterCondition: Hashable, Sendable {
    /// The property name as written (built-in such as `createdAt`, or a declared payload property).
    public var property: String
    /// The operator.
    public var op: FilterOperator
    /// The literal on the right-hand side. For the pattern operators this is the pattern text, in
    /// which `*` is a wildcard (see ``LikePattern``).
    public var value: FilterValue

    /// Creates a condition.
    public init(property: String, op: FilterOperator, value: FilterValue) {
        self.property = property
        self.op = op
        self.value = value
    }
}

/// The operators of the filter language.
public enum FilterOperator: String, Hashable, Sendable, CaseIterable {
    /// `==`
    case equal = "=="
    /// `!=`
    case notEqual = "!="
    /// `<`
    case less = "<"
    /// `>`
    case greater = ">"
    /// `<=`
    case lessOrEqual = "<="
    /// `>=`
    case greaterOrEqual = ">="
    /// `LIKE`: case-insensitive pattern match.
    case like = "LIKE"
    /// `SLIKE`: case-sensitive pattern match.
    case slike = "SLIKE"
    /// `ILIKE`: case-insensitive pattern match, the same as `LIKE`.
    case ilike = "ILIKE"

    /// The canonical spelling, as the printer writes it.
    public var symbol: String { rawValue }

    /// Whether this is `LIKE`, `SLIKE` or `ILIKE`.
    public var isPattern: Bool { self == .like || self == .slike || self == .ilike }

    /// Whether this is `==` or `!=`, the only operators `null` may be used with.
    public var isEquality: Bool { self == .equal || self == .notEqual }

    /// Whether this is `<`, `>`, `<=` or `>=`.
    public var isOrdering: Bool { !isPattern && !isEquality }
}

/// A literal value in a condition.
///
/// Integers and other numbers are kept apart so that printing reproduces the literal's kind
/// (`1` versus `1.0`); evaluation compares all numbers by value. The literal conformances let the
/// builder and tests write values directly: `"x"`, `100`, `1.5`, `true`, `nil`.
public enum FilterValue: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    /// A quoted string (already unescaped).
    case string(String)
    /// A number written without fraction or exponent that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// Creates a string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates an integer value.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// Creates a floating-point value.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// Creates a Boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates `null`.
    public init(nilLiteral: ()) { self = .null }

    /// Converts a scalar JSON value; returns `nil` for arrays and objects.
    public init?(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array, .object: return nil
        }
    }

    /// The value as JSON.
    public var jsonValue: JSONValue {
        switch self {
        case .string(let value): return .string(value)
        case .int(let value): return .int(value)
        case .double(let value): return .double(value)
        case .bool(let value): return .bool(value)
        case .null: return .null
        }
    }

    /// Whether this is a string.
    public var isString: Bool {
        if case .string = self { return true }
        return false
    }

    /// A short name of the value's kind: `string`, `number`, `boolean` or `null`.
    public var kindName: String {
        switch self {
        case .string: return "string"
        case .int, .double: return "number"
        case .bool: return "boolean"
        case .null: return "null"
        }
    }

    /// The value as the printer writes it (strings quoted and escaped).
    public var description: String { FilterPrinter.format(self) }
}
