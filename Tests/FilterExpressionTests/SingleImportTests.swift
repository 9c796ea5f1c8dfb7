import FilterExpression
import Testing

/// Compiles with `import FilterExpression` alone: `JSONValue` comes with the module.
@Suite("FilterExpression alone")
struct FilterExpressionSingleImportTests {
    @Test("a filter evaluates against a JSON value with only FilterExpression imported")
    func evaluateWithOneImport() throws {
        let filter = try Filter(parsing: "price < 10")
        let cheap: JSONValue = ["price": 5]
        let dear: JSONValue = ["price": 50]
        #expect(filter.matches(cheap))
        #expect(!filter.matches(dear))
    }
}
