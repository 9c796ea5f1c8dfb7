import FilterExpression
import JSONCore
import Testing

@Suite struct BuilderTests {
    typealias BuiltCase = ExpressionCase<Filter>

    static let price = Filter.property("price")
    static let stock = Filter.property("stock")
    static let name = Filter.property("name")
    static let status = Filter.property("status")

    static let cases: [BuiltCase] = [
        BuiltCase(price < 100 && stock > 0, "price < 100 && stock > 0"),
        BuiltCase(name.like("*sneaker*"), #"name LIKE "*sneaker*""#),
        BuiltCase(name.slike("A*"), #"name SLIKE "A*""#),
        BuiltCase(name.ilike("a*"), #"name ILIKE "a*""#),
        BuiltCase(!(status == "discontinued"), #"!(status == "discontinued")"#),
        BuiltCase(Filter.property("nickname") == nil, "nickname == null"),
        BuiltCase(Filter.property("nickname") != nil, "nickname != null"),
        BuiltCase(price <= 79.99 || price >= 500, "price <= 79.99 || price >= 500"),
        BuiltCase(price != 5, "price != 5"),
        BuiltCase(Filter.property("isActive") == true, "isActive == true"),
        BuiltCase((price < 100 && stock > 0) || price > 500, "price < 100 && stock > 0 || price > 500"),
        BuiltCase((price < 100 || stock > 0) && price > 500, "(price < 100 || stock > 0) && price > 500"),
        BuiltCase(price < 1 || stock < 2 && name == "x", #"price < 1 || stock < 2 && name == "x""#),
        BuiltCase(price < 1 && (stock < 2 && name == "x"), #"price < 1 && stock < 2 && name == "x""#),
        BuiltCase(!(price < 1) && !(!(stock < 2)), "!(price < 1) && !(!(stock < 2))"),
        BuiltCase(Filter.property("title") == #"say "hi" \ bye"#, #"title == "say \"hi\" \\ bye""#),
        BuiltCase(Filter.property("title") == "it's", #"title == "it's""#),
        BuiltCase(Filter.property("title") == "line\nbreak", #"title == "line\nbreak""#),
        BuiltCase(name.contains("5*"), #"name LIKE "*5\**""#),
        BuiltCase(name.hasPrefix("C:\\"), #"name LIKE "C:\\\*""#),
        BuiltCase(Filter.property("count") == Int64.min, "count == -9223372036854775808"),
        BuiltCase(Filter.property("ratio") == 1.0, "ratio == 1.0"),
        BuiltCase(Filter.property("ratio") == Float(0.5), "ratio == 0.5"),
        BuiltCase(Filter.property("v") == FilterValue.null, "v == null"),
    ]

    @Test(arguments: cases)
    func builtFiltersPrintAndParseBack(_ testCase: BuiltCase) throws {
        let (filter, expression) = (testCase.expected, testCase.source)
        #expect(filter.expression == expression)
        #expect(filter.description == expression)
        #expect(try Filter(parsing: expression) == filter)
        #expect(FilterValidator().validate(filter.node).isEmpty)
    }

    @Test func valuesFromVariablesAndOptionals() {
        let limit = 100
        let missing: String? = nil
        let present: String? = "x"
        let substring = "abc".dropFirst()
        #expect((Filter.property("price") < limit).expression == "price < 100")
        #expect((Filter.property("a") == missing).expression == "a == null")
        #expect((Filter.property("a") == present).expression == #"a == "x""#)
        #expect((Filter.property("a") == substring).expression == #"a == "bc""#)
        #expect((Filter.property("a") == Int32(7)).expression == "a == 7")
    }

    @Test func allAndAnyCombineLists() throws {
        let parts = [Filter.property("a") == 1, Filter.property("b") == 2, Filter.property("c") == 3]
        #expect(Filter.all(parts)?.expression == "a == 1 && b == 2 && c == 3")
        #expect(Filter.any(parts)?.expression == "a == 1 || b == 2 || c == 3")
        #expect(Filter.all([]) == nil)
        #expect(Filter.any(Array(parts.prefix(1)))?.expression == "a == 1")
        #expect(try #require(Filter.all(parts)).conditionCount == 3)
    }

    @Test func builtPatternsMatchWhatTheyEscape() {
        let filter = Filter.property("name").contains("5*")
        #expect(filter.matches(["name": "size 5* only"]))
        #expect(!filter.matches(["name": "size 55 only"]))
        let prefix = Filter.property("path").hasPrefix("C:\\")
        #expect(prefix.matches(["path": "c:\\Windows"]))
        #expect(!prefix.matches(["path": "C:/Windows"]))
    }
}

@Suite struct DocumentationExampleTests {
    @Test func theOverviewExampleHolds() throws {
        let filter = Filter.property("price") < 100 && Filter.property("name").like("*sneaker*")
        #expect(filter.expression == #"price < 100 && name LIKE "*sneaker*""#)
        var schema = FilterSchema(className: "Product")
        schema.declare("price", mode: .full, version: 1)
        schema.declare("name", mode: .simple, version: 1)
        let validator = FilterValidator(schema: schema)
        #expect(validator.validate(filter.expression, tier: .filterFast).isEmpty)
        let problems = validator.validate(filter.expression, tier: .filter)
        #expect(problems.map(\.code) == [.propertyRequiresFullMode])
        #expect(problems.first?.column == 16)
        #expect(validator.validateSort("name,price:desc").isEmpty)
        let evaluator = try FilterEvaluator(parsing: filter.expression)
        #expect(evaluator.matches(["price": 79.99, "name": "Blue Sneaker"] as JSONValue))
    }
}
