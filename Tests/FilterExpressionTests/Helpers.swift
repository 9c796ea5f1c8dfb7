import FilterExpression

/// A condition node, for writing expected trees compactly.
func cond(_ property: String, _ op: FilterOperator = .equal, _ value: FilterValue = 1) -> FilterNode {
    .condition(FilterCondition(property: property, op: op, value: value))
}

/// A small deterministic generator (SplitMix64), so generated tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The schema the validator tests use: class `Product` with two versions.
let productSchema = FilterSchema(
    className: "Product",
    versions: [
        1: ["price": .full, "stock": .simple, "name": .full, "archived": FilteringMode.none],
        2: ["price": .full, "stock": .full, "name": .full, "color": .simple, "archived": FilteringMode.none],
    ])
