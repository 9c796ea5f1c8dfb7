import FilterExpression
import JSONCore

/// Which filter parameter a list request used: `filter_fast` or `filter` (the two query
/// parameters and what each may name are in `Documentation/FilterLanguage.md` and the
/// `filtering` column of `Documentation/Emulator.md`, "Define classes").
enum FilterParameter {
    /// `filter_fast`: properties declared `simple` or `full`, at most `conditionLimit` conditions.
    case fast(conditionLimit: Int)
    /// `filter`: properties declared `full` only.
    case full

    var parameter: String {
        switch self {
        case .fast: return "filter_fast"
        case .full: return "filter"
        }
    }
}

/// What a filter or sort may reference on the listed class: every usable property with its
/// filtering mode (built-ins `id`, `createdAt`, `updatedAt`, `status` count as `full`), and the
/// names declared only on other versions, so errors can say why a name is refused.
struct ListSchema {
    var modes: [String: FilterMode]
    var otherVersionNames: Set<String>
    var versionGiven: Bool

    static let builtIns: [String] = ["id", "createdAt", "updatedAt", "status"]

    /// The 400 for a property the tier may not use.
    func unusable(_ name: String, parameter: String, tier: FilterParameter?) -> APIError {
        let reason: String
        if ["eTag", "expiresAt"].contains(name) {
            reason = "'\(name)' is neither filterable nor sortable"
        } else if let mode = modes[name] {
            let needs =
                tier.map { if case .full = $0 { return "full" } else { return "simple or full" } } ?? "simple or full"
            reason = "property '\(name)' has filtering mode '\(mode.rawValue)'; \(parameter) needs \(needs)"
        } else if otherVersionNames.contains(name) {
            reason =
                versionGiven
                ? "property '\(name)' is not declared on the requested class version"
                : "property '\(name)' is declared only on another version of the class; pass the class version"
        } else {
            reason = "Unknown field: '\(name)'"
        }
        return .unknownField(reason, path: parameter)
    }
}

/// A filter ready to run against stored objects.
struct CompiledFilter {
    /// The expression, for the planner to pick index lookups from; ``matches`` decides.
    let root: FilterNode
    let matches: (_ resolve: (String) -> JSONValue?) -> Bool
}

/// The bridge to the `FilterExpression` module: its parser, its validator (against the listed
/// class's properties and the parameter's tier) and its evaluator.
enum FilterCompiler {
    /// The longest `filter` or `filter_fast` accepted, in UTF-8 bytes: what fits in a 32 KiB
    /// request line, enforced here too for requests handed to the emulator in process.
    static let maximumFilterBytes = 32 * 1024
    /// The most conditions in a `filter` (`filter_fast` has its own, smaller cap). Matching is
    /// linear in each condition's value and pattern, so this and the request body limit bound
    /// the work one object costs a list while the engine's lock is held.
    static let maximumFilterConditions = 256

    static func compile(_ text: String, tier: FilterParameter, schema: ListSchema) throws(APIError) -> CompiledFilter {
        let parameter = tier.parameter
        guard text.utf8.count <= maximumFilterBytes else {
            throw .invalid("a filter is at most \(maximumFilterBytes) bytes", path: parameter)
        }
        // The properties usable on the listed class (version already resolved) as one version.
        var declared = FilterExpression.FilterSchema()
        declared.addVersion(1)
        for (name, mode) in schema.modes where !FilterExpression.FilterSchema.builtInProperties.contains(name) {
            declared.declare(name, mode: FilteringMode(rawValue: mode.rawValue), version: 1)
        }
        let libraryTier: FilterExpression.FilterTier
        switch tier {
        case .fast(let limit): libraryTier = .filterFast(conditionLimit: limit)
        case .full: libraryTier = FilterTier(kind: .filter, conditionLimit: maximumFilterConditions)
        }
        // One pass: each condition is checked as it is parsed.
        let checked = FilterValidator(schema: declared, classVersion: 1).parseAndValidate(text, tier: libraryTier)
        let problems = checked.problems
        guard let parsed = checked.parsed else {
            // A syntax error, the only problem. A hand-written `filter=name+==+'x'` fails at its
            // first `+`: say how spaces are sent.
            let error = problems.first
            let failsAtPlus =
                error?.range.map { range in
                    let bytes = Array(text.utf8)
                    return range.lowerBound < bytes.count && bytes[range.lowerBound] == UInt8(ascii: "+")
                } ?? false
            throw .invalid(
                (error?.message ?? "invalid filter expression") + (failsAtPlus ? APIError.plusHint : ""),
                path: parameter)
        }
        if let problem = problems.first {
            switch problem.code {
            case .unknownProperty, .propertyNotFilterable, .propertyRequiresFullMode:
                // Name the first refused property with the emulator's wording (it knows about
                // properties declared only on other versions).
                for condition in parsed.root.conditions {
                    let mode = schema.modes[condition.property]
                    let usable: Bool
                    switch tier {
                    case .full: usable = mode == .full
                    case .fast: usable = mode == .simple || mode == .full
                    }
                    if !usable || FilterExpression.FilterSchema.unfilterableProperties.contains(condition.property) {
                        var error = schema.unusable(condition.property, parameter: parameter, tier: tier)
                        if condition.property.contains("+") { error.message += APIError.plusHint }
                        throw error
                    }
                }
                throw .unknownField(problem.message, path: parameter)
            default:
                throw .invalid(problem.message, path: parameter)
            }
        }
        let evaluator = FilterEvaluator(parsed.root)
        return CompiledFilter(root: parsed.root) { resolve in evaluator.matches(resolve) }
    }
}
