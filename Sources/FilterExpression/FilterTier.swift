/// Which listing parameter an expression is meant for, with its limits.
///
/// - ``filterFast``: the strongly consistent `filter_fast` parameter. Properties declared `simple`
///   or `full`; at most ``conditionLimit`` conditions (10 unless the keyset's limit was raised).
/// - ``filter``: the eventually consistent `filter` parameter. The full language, no condition
///   cap, properties declared `full` only.
///
/// ```swift
/// let tier = FilterTier.filterFast(conditionLimit: 25)  // a keyset with a raised cap
/// ```
public struct FilterTier: Hashable, Sendable, CustomStringConvertible {
    /// The two tiers.
    public enum Kind: String, Hashable, Sendable {
        /// Strongly consistent, condition-capped (`filter_fast` on the wire).
        case filterFast
        /// Eventually consistent, full language (`filter` on the wire).
        case filter
    }

    /// The default cap on conditions for ``Kind/filterFast``.
    public static let defaultConditionLimit = 10

    /// The tier.
    public var kind: Kind
    /// The maximum number of conditions, or `nil` for no cap.
    public var conditionLimit: Int?

    /// Creates a tier.
    public init(kind: Kind, conditionLimit: Int?) {
        self.kind = kind
        self.conditionLimit = conditionLimit
    }

    /// `filterFast` with the default cap of 10 conditions.
    public static let filterFast = FilterTier(kind: .filterFast, conditionLimit: defaultConditionLimit)

    /// `filterFast` with a custom cap (a keyset whose limit was raised).
    public static func filterFast(conditionLimit: Int) -> FilterTier {
        FilterTier(kind: .filterFast, conditionLimit: conditionLimit)
    }

    /// `filter`: no cap.
    public static let filter = FilterTier(kind: .filter, conditionLimit: nil)

    /// The query parameter this tier is sent as: `filter_fast` or `filter`.
    public var parameterName: String {
        switch kind {
        case .filterFast: return "filter_fast"
        case .filter: return "filter"
        }
    }

    /// The SDK-facing name: `filterFast` or `filter`.
    public var description: String { kind.rawValue }
}
