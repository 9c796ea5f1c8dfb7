/// One version of a class whose filterable properties are known at compile time, so that filters
/// and sort keys over it can be typed.
///
/// `datasync-codegen` (the `DataSyncCodegenPlugin` build-tool plugin) generates a conforming
/// type for every version of every class in a definition file; you can also write one by hand.
///
/// ```swift
/// enum ProductV1: FilterClassVersion {
///     static let className = "Product"
///     static let classVersion = 1
///     static let filterSchema = FilterSchema(className: "Product", versions: [1: ["price": .full]])
/// }
/// let price = TypedFilterProperty<ProductV1, FilterTier.Full, Double>("price")
/// let cheap = price < 100  // TypedFilter<ProductV1, FilterTier.Full>
/// ```
public protocol FilterClassVersion: Sendable {
    /// The class name, as the list calls send it.
    static var className: String { get }
    /// The class version whose properties the typed filters and sort keys use.
    static var classVersion: Int { get }
    /// The filterable properties of every version of the class (its parent's included), for
    /// validation.
    static var filterSchema: FilterSchema { get }
}

/// A tier at the type level: ``FilterTier/Fast`` (`filterFast`) or ``FilterTier/Full``
/// (`filter`). Typed filters and sort keys carry one, so a property a tier does not permit cannot
/// be passed where that tier is expected.
public protocol FilterTierMarker: Sendable {
    /// The tier (with its default condition cap), used by validation.
    static var tier: FilterTier { get }
}

extension FilterTier {
    /// The `filterFast` tier at the type level: properties declared `simple` or `full`. Sort keys
    /// of this tier are usable alone or alongside `filterFast`.
    public enum Fast: FilterTierMarker {
        /// ``FilterTier/filterFast`` with the default cap of 10 conditions.
        public static var tier: FilterTier { .filterFast }
    }

    /// The `filter` tier at the type level: properties declared `full`. Sort keys of this tier are
    /// usable in every context.
    public enum Full: FilterTierMarker {
        /// ``FilterTier/filter``.
        public static var tier: FilterTier { .filter }
    }
}

/// A ``Filter`` over the properties of `Class` that `Tier` permits.
///
/// Make one from ``TypedFilterProperty`` comparisons and combine them with `&&`, `||` and `!`;
/// only filters of the same class version and tier combine, so a `simple` property never ends up
/// in a `filter` expression.
///
/// ```swift
/// let filter = Product.Filters.price < 100 && Product.Filters.category == "shoes"
/// filter.expression  // price < 100 && category == "shoes"
/// ```
public struct TypedFilter<Class: FilterClassVersion, Tier: FilterTierMarker>: Hashable, Sendable,
    CustomStringConvertible
{
    /// The untyped filter.
    public var filter: Filter

    /// Wraps an untyped filter. Nothing is checked: use it for conditions the typed properties
    /// cannot express, and ``validate()`` the result.
    public init(_ filter: Filter) { self.filter = filter }

    /// The canonical expression text, as the list calls send it.
    public var expression: String { filter.expression }

    /// The canonical expression text.
    public var description: String { filter.expression }

    /// Problems with this filter under the class's schema, at ``FilterClassVersion/classVersion``
    /// and for `Tier` (with its default condition cap); empty when it is valid.
    public func validate() -> [FilterError] {
        filter.validate(schema: Class.filterSchema, classVersion: Class.classVersion, tier: Tier.tier)
    }

    /// Both filters must match.
    public static func && (lhs: Self, rhs: Self) -> Self { Self(lhs.filter && rhs.filter) }

    /// At least one filter must match.
    public static func || (lhs: Self, rhs: Self) -> Self { Self(lhs.filter || rhs.filter) }

    /// The filter must not match.
    public static prefix func ! (operand: Self) -> Self { Self(!operand.filter) }

    /// All of `filters` must match; `nil` when the list is empty.
    public static func all(_ filters: [Self]) -> Self? { Filter.all(filters.map(\.filter)).map(Self.init) }

    /// At least one of `filters` must match; `nil` when the list is empty.
    public static func any(_ filters: [Self]) -> Self? { Filter.any(filters.map(\.filter)).map(Self.init) }
}

/// A property of `Class` that `Tier` permits, holding values of `Value`; compare it with a value to
/// get a ``TypedFilter``.
///
/// `==` and `!=` take a `Value` or `nil`; `<`, `>`, `<=` and `>=` need a `Comparable` value (not
/// booleans); `like`, `slike`, `ilike`, `contains` and `hasPrefix` need a `String` property.
public struct TypedFilterProperty<Class: FilterClassVersion, Tier: FilterTierMarker, Value: FilterValueConvertible>:
    Sendable
{
    /// The property name, as expressions use it.
    public let name: String

    /// Creates a reference to `name`. Generated code makes these; a hand-made one is checked only
    /// by ``TypedFilter/validate()``.
    public init(_ name: String) { self.name = name }

    /// The same property in the untyped builder.
    public var untyped: FilterProperty { FilterProperty(name) }

    private func condition(_ op: FilterOperator, _ value: FilterValue) -> TypedFilter<Class, Tier> {
        TypedFilter(Filter(.condition(FilterCondition(property: name, op: op, value: value))))
    }

    /// `property == value`
    public static func == (lhs: Self, rhs: Value) -> TypedFilter<Class, Tier> {
        lhs.condition(.equal, rhs.filterValue)
    }

    /// `property != value`
    public static func != (lhs: Self, rhs: Value) -> TypedFilter<Class, Tier> {
        lhs.condition(.notEqual, rhs.filterValue)
    }

    /// `property == null`: absent or null.
    public static func == (lhs: Self, rhs: _OptionalNilComparisonType) -> TypedFilter<Class, Tier> {
        lhs.condition(.equal, .null)
    }

    /// `property != null`: present and not null.
    public static func != (lhs: Self, rhs: _OptionalNilComparisonType) -> TypedFilter<Class, Tier> {
        lhs.condition(.notEqual, .null)
    }
}

extension TypedFilterProperty where Value: Comparable {
    /// `property < value`
    public static func < (lhs: Self, rhs: Value) -> TypedFilter<Class, Tier> {
        lhs.condition(.less, rhs.filterValue)
    }

    /// `property > value`
    public static func > (lhs: Self, rhs: Value) -> TypedFilter<Class, Tier> {
        lhs.condition(.greater, rhs.filterValue)
    }

    /// `property <= value`
    public static func <= (lhs: Self, rhs: Value) -> TypedFilter<Class, Tier> {
        lhs.condition(.lessOrEqual, rhs.filterValue)
    }

    /// `property >= value`
    public static func >= (lhs: Self, rhs: Value) -> TypedFilter<Class, Tier> {
        lhs.condition(.greaterOrEqual, rhs.filterValue)
    }
}

extension TypedFilterProperty where Value == String {
    /// `property LIKE pattern`: case-insensitive; `*` matches any run of characters.
    public func like(_ pattern: String) -> TypedFilter<Class, Tier> { TypedFilter(untyped.like(pattern)) }

    /// `property SLIKE pattern`: case-sensitive.
    public func slike(_ pattern: String) -> TypedFilter<Class, Tier> { TypedFilter(untyped.slike(pattern)) }

    /// `property ILIKE pattern`: case-insensitive, the same as ``like(_:)``.
    public func ilike(_ pattern: String) -> TypedFilter<Class, Tier> { TypedFilter(untyped.ilike(pattern)) }

    /// A case-insensitive substring match, `text` escaped.
    public func contains(_ text: String) -> TypedFilter<Class, Tier> { TypedFilter(untyped.contains(text)) }

    /// A case-insensitive prefix match, `text` escaped.
    public func hasPrefix(_ text: String) -> TypedFilter<Class, Tier> { TypedFilter(untyped.hasPrefix(text)) }
}

/// A sort key over a property of `Class` that `Tier` permits for sorting: with
/// ``FilterTier/Fast`` alone or alongside `filterFast`, with ``FilterTier/Full`` in every
/// context.
///
/// ```swift
/// let newestFirst = Product.Sort.createdAt.descending
/// newestFirst.field  // Field(property: "createdAt", ascending: false)
/// ```
public struct TypedSortField<Class: FilterClassVersion, Tier: FilterTierMarker>: Hashable, Sendable,
    CustomStringConvertible
{
    /// The property name.
    public let property: String
    /// `true` for ascending order (the default).
    public let ascending: Bool

    /// Creates a sort key. Generated code makes these; a hand-made one is checked only by
    /// ``validate(_:)``.
    public init(_ property: String, ascending: Bool = true) {
        self.property = property
        self.ascending = ascending
    }

    /// The same key, ascending.
    public var ascendingOrder: Self { Self(property, ascending: true) }

    /// The same key, descending.
    public var descending: Self { Self(property, ascending: false) }

    /// The key in the untyped form.
    public var field: FilterSort.Field { FilterSort.Field(property, ascending: ascending) }

    /// The key in wire form: `property` or `property:desc`.
    public var description: String { ascending ? property : property + ":desc" }

    /// Problems with `fields` under the class's schema at ``FilterClassVersion/classVersion``,
    /// sorting alongside `Tier` (`filter` for ``FilterTier/Full``, `filterFast` for
    /// ``FilterTier/Fast``); empty when they are valid.
    public static func validate(_ fields: [Self]) -> [FilterError] {
        FilterValidator(schema: Class.filterSchema, classVersion: Class.classVersion)
            .validateSort(FilterSort(fields.map(\.field)), alongside: Tier.tier)
    }
}
