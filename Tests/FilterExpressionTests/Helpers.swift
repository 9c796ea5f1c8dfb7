import DataSyncTestSupport
import FilterExpression
import Testing

/// A condition node, for writing expected trees compactly.
func cond(_ property: String, _ op: FilterOperator = .equal, _ value: FilterValue = 1) -> FilterNode {
    .condition(FilterCondition(property: property, op: op, value: value))
}

/// One row of a table test: expression text and what it must give (a token, a tree, a canonical
/// text), or the built filter it must read as. The text names the row in the test report.
struct ExpressionCase<Expected: Sendable>: Sendable, CustomTestStringConvertible {
    var source: String
    var expected: Expected
    var testDescription: String { source }
    init(_ source: String, _ expected: Expected) {
        self.source = source
        self.expected = expected
    }
}

extension ExpressionCase where Expected == Filter {
    /// A row for a filter built in Swift and the text it must print as.
    init(_ filter: Filter, _ source: String) { self.init(source, filter) }
}

/// An expression that must fail, with the error code and the 1-based column it must report.
struct FilterErrorCase: Sendable, CustomTestStringConvertible {
    var source: String
    var code: FilterError.Code
    var column: Int
    var testDescription: String { source }
    init(_ source: String, _ code: FilterError.Code, _ column: Int) {
        self.source = source
        self.code = code
        self.column = column
    }
}

/// The schema the validator tests use: class `Product` with two versions.
let productSchema = FilterSchema(
    className: "Product",
    versions: [
        1: ["price": .full, "stock": .simple, "name": .full, "archived": FilteringMode.none],
        2: ["price": .full, "stock": .full, "name": .full, "color": .simple, "archived": FilteringMode.none],
    ])
