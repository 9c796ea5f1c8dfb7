import FilterExpression
import Testing

@Suite struct DocumentedExampleTests {
    struct Example: Sendable, CustomTestStringConvertible {
        var source: String
        var tier: FilterTier
        var testDescription: String { "\(tier): \(source)" }
        init(_ source: String, _ tier: FilterTier) {
            self.source = source
            self.tier = tier
        }
    }

    /// A class declaring every payload property the documented examples use.
    static let schema = FilterSchema(
        className: "Example",
        versions: [
            1: [
                "price": .full, "stock": .simple, "name": .full, "department": .full, "location": .full,
                "isActive": .simple, "creditScore": .simple, "city": .simple, "username": .full,
            ]
        ])

    static let examples: [Example] = [
        // The issue and the DataSync docs.
        Example("price < 100", .filterFast),
        Example("price < 100", .filter),
        Example(#"name LIKE "*sneaker*""#, .filter),
        Example(#"(price < 100 && stock > 0) || price > 500"#, .filterFast),
        Example(#"!(status == "discontinued")"#, .filter),
        Example("price < 100 && stock > 0", .filterFast),
        // The protocol notes (§5.3): live-verified forms.
        Example(#"name == "x""#, .filterFast),
        Example(#"name LIKE "prefix*""#, .filterFast),
        Example(#"status == "st-7f3a""#, .filterFast),
        Example("name == 'group'", .filter),
        Example("city == 'Pune'", .filterFast),
        // The protocol notes: forms seen against mocks.
        Example("(department == 'Engineering') AND (location == 'Pune')", .filter),
        Example("isActive == true", .filterFast),
        Example("creditScore >= 700 && city == 'Pune'", .filterFast),
        Example(#"username LIKE "a*""#, .filter),
        // The App Context filtering reference.
        Example(#"name LIKE "John*" && status == "active""#, .filter),
        // Built-ins on any class.
        Example(#"createdAt > "2026-01-01T00:00:00Z" && updatedAt <= "2026-12-31""#, .filterFast),
        Example(#"id == "u-1" || id SLIKE "tmp-*""#, .filter),
    ]

    @Test(arguments: examples)
    func documentedExamplesParseValidateAndRoundTrip(_ example: Example) throws {
        let parsed = try FilterParser().parse(example.source)
        #expect(FilterValidator(schema: Self.schema).validate(parsed, tier: example.tier).isEmpty)
        #expect(FilterValidator().validate(example.source, tier: example.tier).isEmpty)
        let printed = FilterPrinter.print(parsed.root)
        #expect(try FilterParser().parse(printed).root == parsed.root)
    }

    @Test func simplePropertiesAreRejectedUnderFilter() {
        let problems = FilterValidator(schema: Self.schema).validate("city == 'Pune'", tier: .filter)
        #expect(problems.map(\.code) == [.propertyRequiresFullMode])
    }
}

@Suite struct ValidatorTests {
    struct Violation: Sendable, CustomTestStringConvertible {
        var source: String
        var tier: FilterTier?
        var useSchema: Bool
        var version: Int?
        var expected: [Expected]
        var testDescription: String { source }

        struct Expected: Sendable, Equatable, CustomStringConvertible {
            var code: FilterError.Code
            var column: Int?
            var description: String { "\(code)@\(column.map(String.init) ?? "-")" }
        }

        init(
            _ source: String, tier: FilterTier? = nil, schema: Bool = false, version: Int? = nil,
            _ expected: [(FilterError.Code, Int?)]
        ) {
            self.source = source
            self.tier = tier
            self.useSchema = schema
            self.version = version
            self.expected = expected.map { Expected(code: $0.0, column: $0.1) }
        }
    }

    static let eleven = (1...11).map { "p\($0) == \($0)" }.joined(separator: " && ")

    static let violations: [Violation] = [
        Violation("name LIKE 5", [(.patternRequiresString, 11)]),
        Violation("name SLIKE true", [(.patternRequiresString, 12)]),
        Violation("name ILIKE 1.5", [(.patternRequiresString, 12)]),
        Violation("name LIKE null", [(.nullRequiresEquality, 6), (.patternRequiresString, 11)]),
        Violation("price < null", [(.nullRequiresEquality, 7)]),
        Violation("price >= NULL", [(.nullRequiresEquality, 7)]),
        Violation("price > null || price <= null", [(.nullRequiresEquality, 7), (.nullRequiresEquality, 23)]),
        Violation("price == null && price != null", []),
        Violation(#"eTag == "x""#, [(.propertyNotFilterable, 1)]),
        Violation(#"a == 1 && expiresAt > "2026""#, [(.propertyNotFilterable, 11)]),
        Violation("weight > 1", schema: true, [(.unknownProperty, 1)]),
        Violation(#"color == "red""#, schema: true, version: 1, [(.unknownProperty, 1)]),
        Violation(#"color == "red""#, schema: true, []),
        Violation("archived == true", schema: true, [(.propertyNotFilterable, 1)]),
        Violation(#"color == "red""#, tier: .filter, schema: true, [(.propertyRequiresFullMode, 1)]),
        Violation(#"color == "red""#, tier: .filterFast, schema: true, []),
        Violation("stock > 0", tier: .filter, schema: true, version: 1, [(.propertyRequiresFullMode, 1)]),
        Violation("stock > 0", tier: .filter, schema: true, version: 2, []),
        Violation("stock > 0", tier: .filterFast, schema: true, version: 1, []),
        Violation("Price > 0", schema: true, [(.unknownProperty, 1)]),
        Violation("id == 'x' && createdAt > 'y' && updatedAt < 'z' && status == 'a'", tier: .filter, schema: true, []),
        Violation(eleven, tier: .filterFast, [(.tooManyConditions, 113)]),
        Violation(eleven, tier: .filterFast(conditionLimit: 11), []),
        Violation(eleven, tier: .filterFast(conditionLimit: 3), [(.tooManyConditions, 34)]),
        Violation(eleven, tier: .filter, []),
        Violation("a == 1", tier: .filterFast(conditionLimit: 0), [(.tooManyConditions, 1)]),
        Violation("a == 1", tier: .filterFast(conditionLimit: -5), [(.tooManyConditions, 1)]),
        Violation(eleven, []),
        Violation("price > 1", schema: true, version: 7, [(.unknownClassVersion, nil)]),
        Violation("price > null", schema: true, version: 7, [(.unknownClassVersion, nil), (.nullRequiresEquality, 7)]),
        Violation(
            "eTag == 1 && weight > 2 && name LIKE 3 && price < null && stock > 0", tier: .filter, schema: true,
            version: 1,
            [
                (.propertyNotFilterable, 1), (.unknownProperty, 14), (.patternRequiresString, 38),
                (.nullRequiresEquality, 49), (.propertyRequiresFullMode, 59),
            ]),
        Violation("price <", [(.expectedValue, 8)]),
        Violation("", [(.emptyExpression, 1)]),
    ]

    @Test(arguments: violations)
    func eachRuleViolationIsReportedAtItsPosition(_ violation: Violation) {
        let validator = FilterValidator(
            schema: violation.useSchema ? productSchema : nil, classVersion: violation.version)
        let problems = validator.validate(violation.source, tier: violation.tier)
        let actual = problems.map { Violation.Expected(code: $0.code, column: $0.column) }
        #expect(actual == violation.expected)
        for problem in problems {
            #expect(!problem.summary.isEmpty)
            #expect(problem.column == nil || problem.source == violation.source)
        }
    }

    @Test func messagesExplainTheProblem() throws {
        let validator = FilterValidator(schema: productSchema, classVersion: 1)
        let problems = validator.validate("stock > 0 && weight < 3", tier: .filter)
        #expect(problems.count == 2)
        let first = try #require(problems.first)
        #expect(first.message.hasPrefix("`stock` is declared with filtering mode `simple`; `filter` needs `full`"))
        #expect(first.message.hasSuffix("at column 1, found `stock`"))
        let second = try #require(problems.last)
        #expect(second.summary == "unknown property `weight`: not declared on version 1 of class `Product`")
        let tooMany = FilterValidator().validate(ValidatorTests.eleven, tier: .filterFast)
        #expect(tooMany.first?.summary == "filterFast allows at most 10 conditions; this expression has 11")
        let rendered = try #require(tooMany.first?.rendered)
        #expect(
            rendered.split(separator: "\n").dropFirst().first?.hasSuffix(
                "^" + String(repeating: "~", count: "p11 == 11".count - 1)) == true, "\(rendered)")
    }

    @Test func latestVersionIsUsedWhenNoneIsGiven() {
        #expect(FilterValidator(schema: productSchema).validate("color == 'red'").isEmpty)
        #expect(productSchema.latestVersion == 2)
        #expect(productSchema.mode(of: "color") == .simple)
        #expect(productSchema.mode(of: "color", version: 1) == nil)
        #expect(productSchema.mode(of: "createdAt", version: 1) == .full)
        #expect(productSchema.mode(of: "eTag") == FilteringMode.none)
    }

    @Test func aSchemaWithoutVersionsAllowsOnlyBuiltIns() {
        let validator = FilterValidator(schema: FilterSchema(className: "Membership"))
        #expect(validator.validate("status == 'active' && createdAt > '2026'", tier: .filter).isEmpty)
        #expect(validator.validate("role == 'admin'").map(\.code) == [.unknownProperty])
        #expect(validator.validateSort("updatedAt:desc").isEmpty)
    }

    @Test func schemaDeclarationsAreReadBack() {
        var schema = FilterSchema(className: "Product")
        schema.declare("price", mode: .full, version: 3)
        schema.declare("price", mode: .simple, version: 3)
        schema.addVersion(4)
        let chained = FilterSchema().declaring("a", mode: .full, version: 1).declaring("b", mode: .none, version: 1)
        #expect(schema.properties(version: 3) == ["price": .simple])
        #expect(schema.properties(version: nil) == [:])
        #expect(schema.latestVersion == 4)
        #expect(schema.properties(version: 9) == nil)
        #expect(chained.versions[1]?.count == 2)
        #expect(FilteringMode(rawValue: "future").permits(nil) == false)
    }

    @Test func builtTreesAreValidatedWithoutPositions() {
        let validator = FilterValidator()
        let badName = Filter.property("my prop") == 1
        #expect(validator.validate(badName.node).map(\.code) == [.invalidPropertyName])
        #expect(validator.validate(badName.node).first?.column == nil)
        let keyword = Filter.property("like") == 1
        #expect(validator.validate(keyword.node).map(\.code) == [.invalidPropertyName])
        let infinite = Filter.property("x") < Double.infinity
        #expect(validator.validate(infinite.node).map(\.code) == [.invalidValue])
        let lonely = FilterNode.and([cond("a")])
        #expect(validator.validate(lonely).map(\.code) == [.malformedExpression])
        let fine = Filter.property("price") < 100 && Filter.property("stock") > 0
        #expect(fine.validate(schema: productSchema, classVersion: 1, tier: .filterFast).isEmpty)
        #expect(
            fine.validate(schema: productSchema, classVersion: 1, tier: .filter).map(\.code) == [
                .propertyRequiresFullMode
            ])
    }

    @Test func tiersDescribeThemselves() {
        #expect(FilterTier.filterFast.conditionLimit == 10)
        #expect(FilterTier.filter.conditionLimit == nil)
        #expect(FilterTier.filterFast.parameterName == "filter_fast")
        #expect(FilterTier.filter.parameterName == "filter")
        #expect(FilterTier.filterFast(conditionLimit: 25).conditionLimit == 25)
        #expect(FilterTier.filterFast.description == "filterFast")
    }
}

extension ValidatorTests.Violation {
    /// A sort text checked alongside the filter tier `tier`, against the product schema unless
    /// `schema` is false.
    static func sort(
        _ sort: String, alongside tier: FilterTier? = nil, schema: Bool = true, version: Int? = nil,
        _ expected: [(FilterError.Code, Int?)]
    ) -> Self {
        Self(sort, tier: tier, schema: schema, version: version, expected)
    }
}

@Suite struct SortValidationTests {
    static let cases: [ValidatorTests.Violation] = [
        .sort("name,price:desc", []),
        .sort("", []),
        .sort("createdAt:desc,id,updatedAt:asc,status", alongside: .filter, []),
        .sort("name:DESC", []),
        .sort("name,,price", [(.emptySortField, 6)]),
        .sort("name,", [(.emptySortField, 6)]),
        .sort(",name", [(.emptySortField, 1)]),
        .sort(":desc", [(.emptySortField, 1)]),
        .sort("name:down", [(.invalidSortDirection, 6)]),
        .sort("name:", [(.invalidSortDirection, 6)]),
        .sort("eTag", [(.propertyNotSortable, 1)]),
        .sort("name,expiresAt:desc", schema: false, [(.propertyNotSortable, 6)]),
        .sort("-price", [(.unknownProperty, 1)]),
        .sort("+price", [(.unknownProperty, 1)]),
        .sort("-createdAt", [(.unknownProperty, 1)]),
        .sort("-price", schema: false, [(.invalidPropertyName, 1)]),
        .sort(" price", [(.unknownProperty, 1)]),
        .sort("archived", [(.propertyNotSortable, 1)]),
        .sort("stock", version: 1, []),
        .sort("stock", alongside: .filterFast, version: 1, []),
        .sort("stock:desc", alongside: .filter, version: 1, [(.propertyRequiresFullMode, 1)]),
        .sort("stock:desc", alongside: .filter, version: 2, []),
        .sort("color", alongside: .filter, [(.propertyRequiresFullMode, 1)]),
        .sort("color", version: 1, [(.unknownProperty, 1)]),
        .sort(
            "eTag,weight,name:sideways",
            [(.propertyNotSortable, 1), (.unknownProperty, 6), (.invalidSortDirection, 18)]),
        .sort("price", version: 5, [(.unknownClassVersion, nil)]),
    ]

    @Test(arguments: cases)
    func sortFieldsAreValidated(_ testCase: ValidatorTests.Violation) {
        let validator = FilterValidator(
            schema: testCase.useSchema ? productSchema : nil, classVersion: testCase.version)
        let problems = validator.validateSort(testCase.source, alongside: testCase.tier)
        #expect(
            problems.map { ValidatorTests.Violation.Expected(code: $0.code, column: $0.column) } == testCase.expected)
    }

    @Test func aLeadingSignGetsAHint() throws {
        let problem = try #require(FilterValidator(schema: productSchema).validateSort("-price").first)
        #expect(problem.summary.contains("write `price:desc` for descending order"))
        let plus = try #require(FilterValidator(schema: productSchema).validateSort("+price").first)
        #expect(plus.summary.contains("write `price` for ascending order"))
    }

    @Test func sortTextParsesAndSerialises() throws {
        let sort = try FilterSort(parsing: "name,price:desc")
        #expect(sort.fields == [FilterSort.Field("name"), FilterSort.Field("price", ascending: false)])
        #expect(sort.description == "name,price:desc")
        #expect(try FilterSort(parsing: "name:asc,id:DESC").description == "name,id:desc")
        #expect(try FilterSort(parsing: "").fields.isEmpty)
        let error = try #require(throws: FilterError.self) { try FilterSort(parsing: "a,,b:up") }
        #expect(error.code == .emptySortField)
        let keys = FilterSort([.init("stock", ascending: false)])
        #expect(
            FilterValidator(schema: productSchema, classVersion: 1).validateSort(keys, alongside: .filter).map(\.code)
                == [.propertyRequiresFullMode])
    }
}
