public import JSONCore

/// A filter expression: build it type-safely, parse it, print it, validate it, evaluate it.
///
/// ```swift
/// let cheapInStock = Filter.property("price") < 100 && Filter.property("stock") > 0
/// cheapInStock.expression  // price < 100 && stock > 0
///
/// let sneakers = Filter.property("name").like("*sneaker*")
/// let active = !(Filter.property("status") == "discontinued")
/// let unnamed = Filter.property("nickname") == nil
/// let quoted = Filter.property("title") == #"say "hi" \ bye"#
/// quoted.expression  // title == "say \"hi\" \\ bye"
/// ```
///
/// `&&` and `||` keep the usual precedence, and chains are flattened the same way the parser
/// flattens them, so `Filter(parsing: filter.expression) == filter` for every filter built from
/// valid property names and finite numbers.
public struct Filter: Hashable, Sendable, CustomStringConvertible {
    /// The syntax tree.
    public var node: FilterNode

    /// Wraps a tree.
    public init(_ node: FilterNode) { self.node = node }

    /// Parses an expression.
    ///
    /// - Throws: ``FilterError`` with the position of the first syntax error.
    public init(parsing source: String) throws(FilterError) {
        self.node = try FilterParser().parse(source).root
    }

    /// A reference to a property, to compare with a value.
    public static func property(_ name: String) -> FilterProperty { FilterProperty(name) }

    /// The canonical expression text, ready to send as `filterFast` or `filter`.
    public var expression: String { FilterPrinter.print(node) }

    /// The canonical expression text.
    public var description: String { expression }

    /// The number of conditions (what the `filterFast` cap counts).
    public var conditionCount: Int { node.conditionCount }

    /// Both filters must match.
    public static func && (lhs: Filter, rhs: Filter) -> Filter {
        Filter(.and(operands(of: lhs.node, ifAnd: true) + operands(of: rhs.node, ifAnd: true)))
    }

    /// At least one filter must match.
    public static func || (lhs: Filter, rhs: Filter) -> Filter {
        Filter(.or(operands(of: lhs.node, ifAnd: false) + operands(of: rhs.node, ifAnd: false)))
    }

    /// The filter must not match.
    public static prefix func ! (operand: Filter) -> Filter { Filter(.not(operand.node)) }

    /// All of `filters` must match; `nil` when the list is empty, the filter itself for one.
    public static func all(_ filters: [Filter]) -> Filter? {
        guard let first = filters.first else { return nil }
        return filters.dropFirst().reduce(first, &&)
    }

    /// At least one of `filters` must match; `nil` when the list is empty.
    public static func any(_ filters: [Filter]) -> Filter? {
        guard let first = filters.first else { return nil }
        return filters.dropFirst().reduce(first, ||)
    }

    /// Problems with this filter under `schema`, `classVersion` and `tier` (see ``FilterValidator``).
    public func validate(
        schema: FilterSchema? = nil, classVersion: Int? = nil, tier: FilterTier? = nil
    ) -> [FilterError] {
        FilterValidator(schema: schema, classVersion: classVersion).validate(node, tier: tier)
    }

    /// Whether `object` matches (see ``FilterEvaluator``). To test many objects, create one
    /// ``FilterEvaluator`` and reuse it.
    public func matches(_ object: JSONValue) -> Bool { FilterEvaluator(node).matches(object) }

    private static func operands(of node: FilterNode, ifAnd: Bool) -> [FilterNode] {
        switch node {
        case .and(let operands) where ifAnd: return operands
        case .or(let operands) where !ifAnd: return operands
        default: return [node]
        }
    }
}

/// A property reference in the ``Filter`` builder; compare it with a value to get a ``Filter``.
///
/// Values are anything ``FilterValueConvertible``: strings, integers, doubles, booleans, optionals
/// of those (`nil` is `null`), and ``FilterValue``.
public struct FilterProperty: Sendable {
    /// The property name.
    public let name: String

    /// Creates a reference to `name`.
    public init(_ name: String) { self.name = name }

    private func condition(_ op: FilterOperator, _ value: FilterValue) -> Filter {
        Filter(.condition(FilterCondition(property: name, op: op, value: value)))
    }

    /// `property == value`
    public static func == (lhs: FilterProperty, rhs: some FilterValueConvertible) -> Filter {
        lhs.condition(.equal, rhs.filterValue)
    }

    /// `property != value`
    public static func != (lhs: FilterProperty, rhs: some FilterValueConvertible) -> Filter {
        lhs.condition(.notEqual, rhs.filterValue)
    }

    /// `property == null`
    public static func == (lhs: FilterProperty, rhs: _OptionalNilComparisonType) -> Filter {
        lhs.condition(.equal, .null)
    }

    /// `property != null`
    public static func != (lhs: FilterProperty, rhs: _OptionalNilComparisonType) -> Filter {
        lhs.condition(.notEqual, .null)
    }

    /// `property < value`
    public static func < (lhs: FilterProperty, rhs: some FilterValueConvertible) -> Filter {
        lhs.condition(.less, rhs.filterValue)
    }

    /// `property > value`
    public static func > (lhs: FilterProperty, rhs: some FilterValueConvertible) -> Filter {
        lhs.condition(.greater, rhs.filterValue)
    }

    /// `property <= value`
    public static func <= (lhs: FilterProperty, rhs: some FilterValueConvertible) -> Filter {
        lhs.condition(.lessOrEqual, rhs.filterValue)
    }

    /// `property >= value`
    public static func >= (lhs: FilterProperty, rhs: some FilterValueConvertible) -> Filter {
        lhs.condition(.greaterOrEqual, rhs.filterValue)
    }

    /// `property LIKE pattern`: case-insensitive; `*` matches any run of characters. Escape
    /// literal text with ``LikePattern/escape(_:)``.
    public func like(_ pattern: String) -> Filter { condition(.like, .string(pattern)) }

    /// `property SLIKE pattern`: like ``like(_:)`` but case-sensitive.
    public func slike(_ pattern: String) -> Filter { condition(.slike, .string(pattern)) }

    /// `property ILIKE pattern`: case-insensitive, the same as ``like(_:)``.
    public func ilike(_ pattern: String) -> Filter { condition(.ilike, .string(pattern)) }

    /// `property LIKE "*text*"` with `text` escaped: a case-insensitive substring match.
    public func contains(_ text: String) -> Filter { like("*" + LikePattern.escape(text) + "*") }

    /// `property LIKE "text*"` with `text` escaped: a case-insensitive prefix match.
    public func hasPrefix(_ text: String) -> Filter { like(LikePattern.escape(text) + "*") }
}

/// A Swift value that can be the right-hand side of a condition.
public protocol FilterValueConvertible: Sendable {
    /// The value as a filter literal.
    var filterValue: FilterValue { get }
}

extension FilterValue: FilterValueConvertible {
    /// The value itself.
    public var filterValue: FilterValue { self }
}

extension String: FilterValueConvertible {
    /// A string literal.
    public var filterValue: FilterValue { .string(self) }
}

extension Substring: FilterValueConvertible {
    /// A string literal.
    public var filterValue: FilterValue { .string(String(self)) }
}

extension Int: FilterValueConvertible {
    /// An integer literal.
    public var filterValue: FilterValue { .int(Int64(self)) }
}

extension Int32: FilterValueConvertible {
    /// An integer literal.
    public var filterValue: FilterValue { .int(Int64(self)) }
}

extension Int64: FilterValueConvertible {
    /// An integer literal.
    public var filterValue: FilterValue { .int(self) }
}

extension Double: FilterValueConvertible {
    /// A number literal.
    public var filterValue: FilterValue { .double(self) }
}

extension Float: FilterValueConvertible {
    /// A number literal.
    public var filterValue: FilterValue { .double(Double(self)) }
}

extension Bool: FilterValueConvertible {
    /// `true` or `false`.
    public var filterValue: FilterValue { .bool(self) }
}

extension Optional: FilterValueConvertible where Wrapped: FilterValueConvertible {
    /// The wrapped value, or `null`.
    public var filterValue: FilterValue { self?.filterValue ?? .null }
}
