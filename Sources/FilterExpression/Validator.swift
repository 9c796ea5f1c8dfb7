/// Checks filter expressions and sort specifications against the language rules, and optionally
/// against a class schema and a tier, reporting every problem found (not just the first).
///
/// Every expression: `LIKE`, `SLIKE` and `ILIKE` take a string (``FilterError/Code/patternRequiresString``);
/// `null` goes only with `==` and `!=` (``FilterError/Code/nullRequiresEquality``); `eTag` and
/// `expiresAt` are never filterable (``FilterError/Code/propertyNotFilterable``).
///
/// With a ``FilterSchema``, each property must be a built-in or declared on the class version
/// (the latest when ``classVersion`` is `nil`), with a mode the tier permits: `simple` or `full`
/// for `filterFast` (or when no tier is given), `full` for `filter`. With a ``FilterTier`` that has
/// a cap, the number of conditions must not exceed it.
///
/// Problems are ``FilterError`` values sorted by position; an empty array means valid. The rules
/// in full: Documentation/FilterLanguage.md.
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
    public var schema: FilterSchema? {
        didSet { resolved = Resolved(schema: schema, classVersion: classVersion) }
    }
    /// The class version whose properties count; `nil` means the schema's latest version.
    public var classVersion: Int? {
        didSet { resolved = Resolved(schema: schema, classVersion: classVersion) }
    }
    /// The parser used by the string-taking methods.
    public var parser: FilterParser

    /// The declared properties of the version in use, worked out once per schema and version.
    private var resolved: Resolved

    /// Creates a validator.
    public init(schema: FilterSchema? = nil, classVersion: Int? = nil, parser: FilterParser = FilterParser()) {
        self.schema = schema
        self.classVersion = classVersion
        self.parser = parser
        self.resolved = Resolved(schema: schema, classVersion: classVersion)
    }

    /// What ``schema`` and ``classVersion`` come to for property checks.
    private struct Resolved: Sendable {
        /// The declared properties of the version in use; `nil` without a schema or when an
        /// explicit version is not in it (then properties are not checked against nothing).
        var declared: [String: FilteringMode]?
        /// Whether an explicit ``classVersion`` is missing from the schema.
        var versionIsUnknown: Bool
        /// The names of `declared` and the system properties, for lookups without hashing.
        var table: PropertyTable

        init(schema: FilterSchema?, classVersion: Int?) {
            declared = schema?.properties(version: classVersion)
            versionIsUnknown = schema != nil && declared == nil
            table = declared.map { PropertyTable(declared: $0) } ?? .systemOnly
        }
    }

    // MARK: - Filters

    /// Parses and validates `source`. A syntax error is returned as the only problem.
    ///
    /// The same as ``parseAndValidate(_:tier:)`` without the tree; use that when the expression
    /// is going to be used afterwards.
    ///
    /// - Parameters:
    ///   - source: the expression as it will be sent, such as `payload.price < 100`.
    ///   - tier: the parameter the expression is meant for, or `nil` to skip tier rules
    ///     other than requiring a filterable mode.
    public func validate(_ source: String, tier: FilterTier? = nil) -> [FilterError] {
        parseAndValidate(source, tier: tier).problems
    }

    /// Parses `source` with ``parser`` and validates it in the same pass, checking each condition
    /// as it is read instead of walking the finished tree a second time.
    ///
    /// The outcome is exactly that of `parser.parse(source)` followed by
    /// `validate(_:tier:)` on the result: the same tree and spans, and the
    /// same problems in the same order, or the parser's syntax error as the only problem.
    ///
    /// ```swift
    /// let checked = validator.parseAndValidate("price < 100 && stock > 0", tier: .filterFast)
    /// if let parsed = checked.parsed, checked.problems.isEmpty {
    ///     let evaluator = FilterEvaluator(parsed.root)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - source: the expression text.
    ///   - tier: the parameter the expression is meant for, or `nil` to skip tier rules other
    ///     than requiring a filterable mode.
    /// - Returns: the parse result, `nil` when `source` has a syntax error, and the problems.
    public func parseAndValidate(_ source: String, tier: FilterTier? = nil) -> FilterValidation {
        let screen = ConditionScreen(
            table: resolved.table, isFilterTier: tier?.kind == .filter, acceptsUnknownNames: resolved.declared == nil)
        let root: FilterNode
        let spans: [ConditionSpan]
        let deferred: [(index: Int, condition: FilterCondition)]
        do {
            (root, spans, deferred) = try parser.parse(source, screen: screen)
        } catch {
            return FilterValidation(parsed: nil, problems: [error])
        }
        let conditionCount = spans.count
        var problems: [FilterError] = []
        // The screen cleared every other condition, and a parsed tree has no structural problems.
        if !deferred.isEmpty || resolved.versionIsUnknown || exceedsCap(conditionCount, tier) {
            var walk = Walk(spans: spans, source: source, tier: tier)
            for (index, condition) in deferred {
                walk.count = index
                checkCondition(condition, &walk)
            }
            walk.count = conditionCount
            problems = finish(walk)
        }
        return FilterValidation(
            parsed: ParsedFilter(source: source, root: consume root, spans: consume spans), problems: problems)
    }

    /// Whether `count` conditions are more than `tier` allows.
    private func exceedsCap(_ count: Int, _ tier: FilterTier?) -> Bool {
        guard let cap = tier?.conditionLimit else { return false }
        return count > max(cap, 0)
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

    /// What the walk over the tree needs besides the node.
    private struct Walk {
        var spans: [ConditionSpan]?
        var source: String?
        var tier: FilterTier?
        /// Conditions seen so far (the index of the next one's span).
        var count = 0
        var problems: [FilterError] = []
        /// `&&`/`||` groups with fewer than two operands; kept apart so that they are reported
        /// before the conditions' problems, whatever their place in the tree.
        var structural: [FilterError] = []
    }

    private func check(_ root: FilterNode, spans: [ConditionSpan]?, source: String?, tier: FilterTier?)
        -> [FilterError]
    {
        var walk = Walk(spans: spans, source: source, tier: tier)
        visit(root, &walk)
        return finish(walk)
    }

    /// The problems of a finished walk, with the ones that concern the whole expression (unknown
    /// version, too many conditions), in the order they are reported.
    private func finish(_ walk: Walk) -> [FilterError] {
        if walk.problems.isEmpty, walk.structural.isEmpty, !resolved.versionIsUnknown,
            !exceedsCap(walk.count, walk.tier)
        {
            return []
        }
        let spans = walk.spans
        let source = walk.source
        let tier = walk.tier
        var problems: [FilterError] = []
        reportUnknownVersion(into: &problems)
        if problems.isEmpty, walk.structural.isEmpty {
            problems = walk.problems
        } else {
            problems += walk.structural
            problems += walk.problems
        }
        let conditionCount = walk.count
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

    /// Checks the structure and the conditions under `node` in one pre-order walk (the order of
    /// ``FilterNode/conditions`` and of the spans).
    private func visit(_ node: FilterNode, _ walk: inout Walk) {
        switch node {
        case .condition(let condition):
            checkCondition(condition, &walk)
        case .and(let operands), .or(let operands):
            if operands.count < 2 {
                let name = if case .and = node { "&&" } else { "||" }
                walk.structural.append(
                    FilterError(
                        code: .malformedExpression, summary: "a '\(name)' group needs at least two operands"))
            }
            // Through the buffer, each operand is passed in place instead of being copied out.
            operands.withUnsafeBufferPointer { operands in
                for index in operands.indices { visit(operands[index], &walk) }
            }
        case .not(let operand):
            visit(operand, &walk)
        }
    }

    private func checkCondition(_ condition: FilterCondition, _ walk: inout Walk) {
        let index = walk.count
        walk.count += 1
        var span: ConditionSpan?
        if let spans = walk.spans, index < spans.count { span = spans[index] }
        if let problem = propertyProblem(
            condition.property, range: span?.property, source: walk.source, tier: walk.tier, sorting: false)
        {
            walk.problems.append(problem)
        }
        let value = condition.value
        let op = condition.op
        switch value {
        case .string, .int, .bool: if !op.isPattern { return }
        default: break
        }
        if op.isPattern, !value.isString {
            walk.problems.append(
                FilterError(
                    code: .patternRequiresString,
                    summary: "\(op.symbol) needs a string pattern, not a \(value.kindName)",
                    expected: "a string", found: "`\(FilterPrinter.format(value))`", range: span?.value,
                    source: walk.source))
        }
        if case .null = value, !op.isEquality {
            walk.problems.append(
                FilterError(
                    code: .nullRequiresEquality,
                    summary: "null can only be compared with == or !=, not \(op.symbol)",
                    expected: "== or !=", found: "`\(op.symbol)`", range: span?.op, source: walk.source))
        }
        if case .double(let number) = value, !number.isFinite {
            walk.problems.append(
                FilterError(
                    code: .invalidValue, summary: "numbers must be finite", found: "`\(number)`", range: span?.value,
                    source: walk.source))
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
        reportUnknownVersion(into: &problems)
        for (field, range) in fields {
            if let problem = propertyProblem(field.property, range: range, source: source, tier: tier, sorting: true) {
                problems.append(problem)
            }
        }
        return problems
    }

    // MARK: - Properties

    /// Reports an explicit class version that the schema does not have (properties are then
    /// checked against the built-ins only, not against nothing).
    private func reportUnknownVersion(into problems: inout [FilterError]) {
        guard resolved.versionIsUnknown, let schema else { return }
        let known = schema.versions.keys.sorted().map(String.init).joined(separator: ", ")
        problems.append(
            FilterError(
                code: .unknownClassVersion,
                summary:
                    "\(className) has no version \(classVersion.map(String.init) ?? "?")"
                    + (known.isEmpty ? "" : " (known versions: \(known))")))
    }

    private var className: String { schema?.className.map { "class `\($0)`" } ?? "the class" }

    private var versionPhrase: String {
        if let classVersion { return "version \(classVersion) of \(className)" }
        if let latest = schema?.latestVersion { return "the latest version (\(latest)) of \(className)" }
        return className
    }

    private func propertyProblem(
        _ name: String, range: Range<Int>?, source: String?, tier: FilterTier?, sorting: Bool
    ) -> FilterError? {
        let declaredMode: FilteringMode
        switch resolved.table.lookup(name) {
        case .found(let index):
            let entry = resolved.table.entry(index)
            switch entry.kind {
            case .builtIn: return nil
            case .unfilterable: return unfilterable(name, range: range, source: source, sorting: sorting)
            case .declared:
                if entry.permits(tier) { return nil }
                declaredMode = resolved.table.mode(index)
            }
        case .missing:
            guard let declared = resolved.declared else { return invalidName(name, range: range, source: source) }
            // An ASCII name can still equal a non-ASCII key under canonical equivalence.
            guard resolved.table.hasNonASCIIKeys, let mode = declared[name] else {
                return unknown(name, range: range, source: source)
            }
            if mode.permits(tier) { return nil }
            declaredMode = mode
        case .notASCII:
            switch FilterSchema.systemProperty(name) {
            case .unfilterable: return unfilterable(name, range: range, source: source, sorting: sorting)
            case .builtIn: return nil
            case nil: break
            }
            guard let declared = resolved.declared else { return invalidName(name, range: range, source: source) }
            guard let mode = declared[name] else { return unknown(name, range: range, source: source) }
            if mode.permits(tier) { return nil }
            declaredMode = mode
        }
        return modeProblem(name, mode: declaredMode, range: range, source: source, tier: tier, sorting: sorting)
    }

    private func unfilterable(_ name: String, range: Range<Int>?, source: String?, sorting: Bool) -> FilterError {
        let verb = sorting ? "sort on" : "filter on"
        let notUsable: FilterError.Code = sorting ? .propertyNotSortable : .propertyNotFilterable
        return FilterError(
            code: notUsable, summary: "`\(name)` is a system property that cannot be used to \(verb)",
            found: "`\(name)`", range: range, source: source)
    }

    /// Without declared properties a name only has to be expressible.
    private func invalidName(_ name: String, range: Range<Int>?, source: String?) -> FilterError? {
        guard FilterTokenizer.isValidPropertyName(name) else {
            return FilterError(
                code: .invalidPropertyName, summary: "`\(name)` is not a valid property name" + signHint(name),
                found: "`\(name)`", range: range, source: source)
        }
        return nil
    }

    private func unknown(_ name: String, range: Range<Int>?, source: String?) -> FilterError {
        FilterError(
            code: .unknownProperty,
            summary: "unknown property `\(name)`: not declared on \(versionPhrase)" + signHint(name),
            found: "`\(name)`", range: range, source: source)
    }

    /// A declared property whose `mode` does not permit `tier`.
    private func modeProblem(
        _ name: String, mode: FilteringMode, range: Range<Int>?, source: String?, tier: FilterTier?, sorting: Bool
    ) -> FilterError {
        let verb = sorting ? "sort on" : "filter on"
        let notUsable: FilterError.Code = sorting ? .propertyNotSortable : .propertyNotFilterable
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

/// The outcome of ``FilterValidator/parseAndValidate(_:tier:)``, the only place it comes from.
///
/// There is deliberately no hand-written initialiser: with one, the compiler built the value and
/// then copied it (the whole tree's references) into the caller's, which cost more than a tenth
/// of a typical expression's parse.
public struct FilterValidation: Hashable, Sendable {
    /// The parsed expression, or `nil` when the source has a syntax error (which is then the only
    /// problem).
    public var parsed: ParsedFilter?
    /// Every problem found, sorted by position; empty when the expression is valid.
    public var problems: [FilterError]

    /// Whether the expression parsed and has no problems.
    public var isValid: Bool { parsed != nil && problems.isEmpty }
}
