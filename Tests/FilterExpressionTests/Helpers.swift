import DataSyncTestSupport
import FilterExpression

/// A condition node, for writing expected trees compactly.
func cond(_ property: String, _ op: FilterOperator = .equal, _ value: FilterValue = 1) -> FilterNode {
    .condition(FilterCondition(property: property, op: op, value: value))
}

/// The schema the validator tests use: class `Product` with two versions.
let productSchema = FilterSchema(
    className: "Product",
    versions: [
        1: ["price": .full, "stock": .simple, "name": .full, "archived": FilteringMode.none],
        2: ["price": .full, "stock": .full, "name": .full, "color": .simple, "archived": FilteringMode.none],
    ])
