import JSONCore

/// Which filter parameter a list request used (spec §5.3).
enum FilterTier {
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
struct FilterSchema {
    var modes: [String: FilterMode]
    var otherVersionNames: Set<String>
    var versionGiven: Bool

    static let builtIns: [String] = ["id", "createdAt", "updatedAt", "status"]

    /// The 400 for a property the tier may not use.
    func unusable(_ name: String, parameter: String, tier: FilterTier?) -> APIError {
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
    let matches: (_ resolve: (String) -> JSONValue?) -> Bool
}

/// The seam between the emulator and the `FilterExpression` module (parser, validator against a
/// class schema and tier, evaluator).
enum FilterCompiler {
    /// Whether filter expressions can be compiled in this build.
    static let isAvailable = false

    static func compile(_ text: String, tier: FilterTier, schema: FilterSchema) throws(APIError) -> CompiledFilter {
        throw APIError(
            status: 501, code: .unsupported,
            message: "\(tier.parameter) is not available in this build (the FilterExpression module has not landed)",
            path: tier.parameter)
    }
}
