/// How a class property may be used in filters and sorts, as declared on the class.
///
/// A server-defined string set: unknown modes decode and are treated as not filterable.
public struct FilteringMode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The mode's wire name, for example `"full"`.
    public var rawValue: String

    /// Creates a mode from its wire name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a mode from its wire name.
    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the wire name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The raw value.
    public var description: String { rawValue }

    /// Declared but neither filterable nor sortable. Against an optional mode, spell it
    /// `FilteringMode.none` so it is not read as `Optional.none`.
    public static let none = FilteringMode(rawValue: "none")
    /// Usable with `filterFast` (and for sorting alone or alongside `filterFast`).
    public static let simple = FilteringMode(rawValue: "simple")
    /// Usable with `filterFast` and `filter`, and for sorting in every context.
    public static let full = FilteringMode(rawValue: "full")

    /// Whether a property with this mode may appear in an expression for `tier`
    /// (`nil` = any tier: the mode is `simple` or `full`).
    public func permits(_ tier: FilterTier?) -> Bool {
        switch tier?.kind {
        case .filter: return self == .full
        case .filterFast, nil: return self == .simple || self == .full
        }
    }
}

/// The filterable properties of one class, per class version, used by ``FilterValidator``.
///
/// Built-in properties (`id`, `createdAt`, `updatedAt`, `status`) need no declaration: they behave
/// as `full` on every class. `eTag` and `expiresAt` are never filterable or sortable, whatever is
/// declared.
///
/// ```swift
/// var schema = FilterSchema(className: "Product")
/// schema.declare("price", mode: .full, version: 1)
/// schema.declare("stock", mode: .simple, version: 1)
/// schema.declare("price", mode: .full, version: 2)
/// ```
public struct FilterSchema: Hashable, Sendable {
    /// The built-in properties every class can filter and sort on.
    public static let builtInProperties: Set<String> = ["id", "createdAt", "updatedAt", "status"]
    /// Properties that exist on every object but can never be filtered or sorted on.
    public static let unfilterableProperties: Set<String> = ["eTag", "expiresAt"]

    /// Which of the two sets above `name` is in, if any.
    enum SystemProperty { case builtIn, unfilterable }

    /// `builtInProperties.contains(name)` / `unfilterableProperties.contains(name)` without hashing.
    ///
    /// An all-ASCII name equals another string exactly when the bytes are equal, so it is checked
    /// by length and bytes; any other name goes through the sets, which compare by canonical
    /// equivalence (as `String` does everywhere).
    static func systemProperty(_ name: String) -> SystemProperty? {
        let utf8 = name.utf8
        let isASCII =
            utf8.withContiguousStorageIfAvailable { buffer in
                buffer.allSatisfy { $0 < 0x80 }
            } ?? utf8.allSatisfy { $0 < 0x80 }
        guard isASCII else {
            if unfilterableProperties.contains(name) { return .unfilterable }
            return builtInProperties.contains(name) ? .builtIn : nil
        }
        switch utf8.count {
        case 2: return name == "id" ? .builtIn : nil
        case 4: return name == "eTag" ? .unfilterable : nil
        case 6: return name == "status" ? .builtIn : nil
        case 9:
            if name == "expiresAt" { return .unfilterable }
            return name == "createdAt" || name == "updatedAt" ? .builtIn : nil
        default: return nil
        }
    }

    /// The class name, used only in messages.
    public var className: String?
    /// The declared properties with their modes, by class version.
    public private(set) var versions: [Int: [String: FilteringMode]]

    /// Creates a schema, optionally with some versions already declared.
    public init(className: String? = nil, versions: [Int: [String: FilteringMode]] = [:]) {
        self.className = className
        self.versions = versions
    }

    /// Declares `property` with `mode` on class version `version` (replacing an earlier
    /// declaration of the same property on that version).
    public mutating func declare(_ property: String, mode: FilteringMode, version: Int) {
        versions[version, default: [:]][property] = mode
    }

    /// Records that `version` exists, even if it declares no properties.
    public mutating func addVersion(_ version: Int) {
        if versions[version] == nil { versions[version] = [:] }
    }

    /// A copy with `property` declared; convenient for building a schema in one expression.
    public func declaring(_ property: String, mode: FilteringMode, version: Int) -> FilterSchema {
        var copy = self
        copy.declare(property, mode: mode, version: version)
        return copy
    }

    /// The highest declared version, or `nil` when no version is declared.
    public var latestVersion: Int? { versions.keys.max() }

    /// The declared properties of `version`, or of the latest version when `version` is `nil`.
    ///
    /// Returns `nil` when an explicit `version` is not in the schema. A schema with no versions at
    /// all yields an empty set for `nil` (only the built-ins are usable).
    public func properties(version: Int?) -> [String: FilteringMode]? {
        if let version { return versions[version] }
        guard let latest = latestVersion else { return [:] }
        return versions[latest]
    }

    /// The effective mode of `property` on `version` (latest when `nil`): `full` for built-ins,
    /// `none` for `eTag` and `expiresAt`, the declared mode otherwise, `nil` when undeclared.
    public func mode(of property: String, version: Int? = nil) -> FilteringMode? {
        switch Self.systemProperty(property) {
        case .unfilterable: return FilteringMode.none
        case .builtIn: return .full
        case nil: break
        }
        return properties(version: version)?[property]
    }
}
