/// Checks filter expressions and sort specifications against the language rules, and optionally
/// against a class schema and a tier, reporting every problem found (not just the first).
///
/// Rules applied to every expression:
/// - `LIKE`, `SLIKE` and `ILIKE` take a string value (``FilterError/Code/patternRequiresString``,
///   reported at the value);
/// - `null` may only be used with `==` and `!=` (``FilterError/Code/nullRequiresEquality``,
///   reported at the operator);
/// - `eTag` and `expiresAt` are never filterable (``FilterError/Code/propertyNotFilterable``);
/// - property names must be expressible (only fails for trees built in code).
///
/// With a ``FilterSchema``, each property must be a built-in or declared on the class version
/// (the latest when ``classVersion`` is `nil`), with a mode the tier permits: `simple` or `full`
/// for `filterFast` (or when no tier is given), `full` for `filter`. With a ``FilterTier`` that has
/// a cap, the number of conditions must not exceed it.
///
/// Problems are ``FilterError`` values sorted by position; an empty array means valid. A server can
/// answer each with a 400 carrying ``FilterError/code``, ``FilterError/message`` and
/// ``FilterError/column``.
///
/// ```swift
/// var schema = FilterSchema(className: "Product")
/// schema.declare("price", mode: .full, version: 1)
/// schema.declare("stock", mode: .simple, version: 1)
/// let validator = FilterValidator(schema: schema)
/// validator.validate("price < 100 && stock > 0", tier: .filterFast)  // []
/// validator.validate("price < 100 && stock > 0", tier: .filter)      // stock needs `full`
/// validator.validateSort("stock:desc", alongside: .filter)           // same problem
/// ```
public struct FilterValidator: Sendable {
    /// The class schema to check property names against, or `nil` to skip those checks.
    public var schema: FilterSchema?
    /// The class version whose properties count; `nil` means the schema's latest version.
    public var classVersion: Int?
    /// The parser used by the string-taking methods.
    public var parser: FilterParser

    /// Creates a validator.
    public init(schema: FilterSchema? = nil, classVersion: Int? = nil, parser: FilterParser = FilterParser()) {
        self.schema = schema
        self.classVersion = classVersion
        self.parser = parser
    }

    // MARK: - Filters

    /// Parses and validates `source`. A syntax error is returned as the only problem.
    ///
    /// - Parameters:
    ///   - source: the expression as it will be sent, such as `payload.price < 100`.
    ///   - tier: the parameter the expression is meant for, or `nil` to skip tier rules
    ///     other than requiring a filterable mode.
    public func validate(_ source: String, tier: FilterTier? = nil) -> [FilterError] {
        do {
            return validate(try parser.parse(source), tier: tier)
        } catch {
            return [error]
        }
    }

    /// Validates a parsed expression; problems carry positions in its source.
    public func validate(_ parsed: ParsedFilter, tier: FilterTier? = nil) -> [FilterError] {
        check(parsed.root, spans: parsed.spans, source: parsed.source, tier: tier)
    }

    /// Validates a tree that has no source text (for example one built with ``Filter``); problems
    /// have no position.
    public func validate(_ node: FilterNode, tier: FilterTier? = nil) -> [FilterError] {
        check(node, spans: nil, source: nil, tier: tier)
    }

    private func check(_ root: FilterNode, spans: [ConditionSpan]?, source: String?, tier: FilterTier?)
        -> [FilterError]
    {
        var problems: [FilterError] = []
        let declared = declaredProperties(into: &problems)
        checkStructure(root, into: &problems)
        var conditionCount = 0
        checkConditions(
            root, count: &conditionCount, spans: spans, source: source, tier: tier, declared: declared,
            into: &problems)
        if let cap = tier?.conditionLimit, conditionCount > max(cap, 0) {
            let limit = max(cap, 0)
            let span = spans.flatMap { limit < $0.count ? $0[limit] : nil }
            let tierName = tier?.description ?? "filterFast"
            problems.append(
                FilterError(
                    code: .tooManyConditions,
                    summary:
                        "\(tierName) allows at most \(limit) condition\(limit == 1 ? "" : "s"); this expression has \(conditionCount)",
                    expected: "at most \(limit) conditions", range: span?.whole, source: source))
        }
        return sorted(problems)
    }

    private func checkStructure(_ node: FilterNode, into problems: inout [FilterError]) {
        switch node {
        case .condition: return
        case .and(let operands), .or(let operands):
            if operands.count < 2 {
                let name = if case .and = node { "&&" } else { "||" }
                problems.append(
                    FilterError(
                        code: .malformedExpression, summary: "a '\(name)' group needs at least two operands"))
            }
            for operand in operands { checkStructure(operand, into: &problems) }
        case .not(let operand): checkStructure(operand, into: &problems)
        }
    }

    /// Checks the conditions under `node` in source order (a pre-order walk, the order of
    /// ``FilterNode/conditions`` and of the spans) without collecting them into an array first;
    /// `count` is the number of conditions seen so far.
    private func checkConditions(
        _ node: FilterNode, count: inout Int, spans: [ConditionSpan]?, source: String?, tier: FilterTier?,
        declared: [String: FilteringMode]?, into problems: inout [FilterError]
    ) {
        switch node {
        case .condition(let condition):
            let index = count
            count += 1
            let span = spans.flatMap { index < $0.count ? $0[index] : nil }
            checkCondition(condition, span: span, source: source, tier: tier, declared: declared, into: &problems)
        case .and(let operands), .or(let operands):
            for operand in operands {
                checkConditions(
                    operand, count: &count, spans: spans, source: source, tier: tier, declared: declared,
                    into: &problems)
            }
        case .not(let operand):
            checkConditions(
                operand, count: &count, spans: spans, source: source, tier: tier, declared: declared, into: &problems)
        }
    }

    private func checkCondition(
        _ condition: FilterCondition, span: ConditionSpan?, source: String?, tier: FilterTier?,
        declared: [String: FilteringMode]?, into problems: inout [FilterError]
    ) {
        if let problem = propertyProblem(
            condition.property, range: span?.property, source: source, tier: tier, declared: declared, sorting: false)
        {
            problems.append(problem)
        }
        let value = condition.value
        if condition.op.isPattern, !value.isString {
            problems.append(
                FilterError(
                    code: .patternRequiresString,
                    summary: "\(condition.op.symbol) needs a string pattern, not a \(value.kindName)",
                    expected: "a string", found: "`\(FilterPrinter.format(value))`", range: span?.value, source: source)
            )
        }
        if case .null = value, !condition.op.isEquality {
            problems.append(
                FilterError(
                    code: .nullRequiresEquality,
                    summary: "null can only be compared with == or !=, not \(condition.op.symbol)",
                    expected: "== or !=", found: "`\(condition.op.symbol)`", range: span?.op, source: source))
        }
        if case .double(let number) = value, !number.isFinite {
            problems.append(
                FilterError(
                    code: .invalidValue, summary: "numbers must be finite", found: "`\(number)`", range: span?.value,
                    source: source))
        }
    }

    // MARK: - Sort

    /// Parses and validates the `sort` parameter's text, reporting every problem.
    ///
    /// - Parameters:
    ///   - sort: the `sort` query value, such as `payload.price:desc,id`.
    ///   - tier: the filter sent with the sort: `nil` when sorting alone, ``FilterTier/filterFast``
    ///     or ``FilterTier/filter``. Declared properties need a mode other than `none`, and `full`
    ///     when sorting alongside `filter`.
    public func validateSort(_ sort: String, alongside tier: FilterTier? = nil) -> [FilterError] {
        let scanned = FilterSort.scan(sort)
        var problems = scanned.problems
        problems += checkSort(scanned.entries.map { ($0.field, $0.range) }, source: sort, tier: tier)
        return sorted(problems)
    }

    /// Validates sort keys that have no source text; problems have no position.
    public func validateSort(_ sort: FilterSort, alongside tier: FilterTier? = nil) -> [FilterError] {
        checkSort(sort.fields.map { ($0, nil) }, source: nil, tier: tier)
    }

    private func checkSort(_ fields: [(FilterSort.Field, Range<Int>?)], source: String?, tier: FilterTier?)
        -> [FilterError]
    {
        var problems: [FilterError] = []
        let declared = declaredProperties(into: &problems)
        for (field, range) in fields {
            if let problem = propertyProblem(
                field.property, range: range, source: source, tier: tier, declared: declared, sorting: true)
            {
                problems.append(problem)
            }
        }
        return problems
    }

    // MARK: - Properties

    /// The declared properties of the version in use; `nil` without a schema. Reports an unknown
    /// explicit version (and then returns `nil`, so properties are not checked against nothing).
    private func declaredProperties(into problems: inout [FilterError]) -> [String: FilteringMode]? {
        guard let schema else { return nil }
        if let properties = schema.properties(version: classVersion) { return properties }
        let known = schema.versions.keys.sorted().map(String.init).joined(separator: ", ")
        problems.append(
            FilterError(
                code: .unknownClassVersion,
                summary:
                    "\(className) has no version \(classVersion.map(String.init) ?? "?")"
                    + (known.isEmpty ? "" : " (known versions: \(known))")))
        return nil
    }

    private var className: String { schema?.className.map { "class `\($0)`" } ?? "the class" }

    private var versionPhrase: String {
        if let classVersion { return "version \(classVersion) of \(className)" }
        if let latest = schema?.latestVersion { return "the latest version (\(latest)) of \(className)" }
        return className
    }

    private func propertyProblem(
        _ name: String, range: Range<Int>?, source: String?, tier: FilterTier?, declared: [String: FilteringMode]?,
        sorting: Bool
    ) -> FilterError? {
        let verb = sorting ? "sort on" : "filter on"
        let notUsable: FilterError.Code = sorting ? .propertyNotSortable : .propertyNotFilterable
        switch FilterSchema.systemProperty(name) {
        case .unfilterable:
            return FilterError(
                code: notUsable, summary: "`\(name)` is a system property that cannot be used to \(verb)",
                found: "`\(name)`", range: range, source: source)
        case .builtIn: return nil
        case nil: break
        }
        guard let declared else {
            guard FilterTokenizer.isValidPropertyName(name) else {
                return FilterError(
                    code: .invalidPropertyName, summary: "`\(name)` is not a valid property name" + signHint(name),
                    found: "`\(name)`", range: range, source: source)
            }
            return nil
        }
        guard let mode = declared[name] else {
            return FilterError(
                code: .unknownProperty,
                summary: "unknown property `\(name)`: not declared on \(versionPhrase)" + signHint(name),
                found: "`\(name)`", range: range, source: source)
        }
        if mode.permits(tier) { return nil }
        if mode.permits(nil), tier?.kind == .filter {
            let use = sorting ? "sorting alongside `filter`" : "`filter`"
            return FilterError(
                code: .propertyRequiresFullMode,
                summary:
                    "`\(name)` is declared with filtering mode `\(mode)`; \(use) needs `full` (use filterFast instead)",
                found: "`\(name)`", range: range, source: source)
        }
        return FilterError(
            code: notUsable, summary: "`\(name)` is declared with filtering mode `\(mode)`, so you cannot \(verb) it",
            found: "`\(name)`", range: range, source: source)
    }

    private func signHint(_ name: String) -> String {
        guard let first = name.first, first == "-" || first == "+" else { return "" }
        let bare = name.dropFirst()
        let instead = first == "-" ? "`\(bare):desc` for descending order" : "`\(bare)` for ascending order"
        return " (a leading '\(first)' is part of the name; write \(instead))"
    }

    private func sorted(_ problems: [FilterError]) -> [FilterError] {
        if problems.count < 2 { return problems }
        // Stable: problems without a position keep their order and go first (they concern the
        // whole request, like an unknown class version).
        return problems.enumerated().sorted { lhs, rhs in
            let left = lhs.element.range?.lowerBound ?? -1
            let right = rhs.element.range?.lowerBound ?? -1
            return left != right ? left < right : lhs.offset < rhs.offset
        }.map(\.element)
    }
}
