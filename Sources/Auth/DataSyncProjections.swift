public import JSONCore

/// A DataSync object type as named in projection keys (`datasync:<type>:<id>`).
public struct DataSyncObjectType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The type name as it appears in the key.
    public let rawValue: String
    /// Creates a type from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The type name.
    public var description: String { rawValue }

    /// Entities.
    public static let entities = DataSyncObjectType(rawValue: "entities")
    /// Users.
    public static let users = DataSyncObjectType(rawValue: "users")
    /// Channels.
    public static let channels = DataSyncObjectType(rawValue: "channels")
    /// Relationships.
    public static let relationships = DataSyncObjectType(rawValue: "relationships")
    /// Memberships.
    public static let memberships = DataSyncObjectType(rawValue: "memberships")
}

/// The DataSync projections a token assigns, read from its meta under `pn-projections`.
///
/// A projection names the subset of an object's fields that REST reads made with this token
/// return. The token carries them as `{"res": {"datasync:<type>:<id>": "<name>"},
/// "pat": {"datasync:<type>:<regex>": "<name>"}}`.
public struct DataSyncProjections: Sendable, Hashable {
    /// The meta key projections are stored under.
    public static let metaKey = "pn-projections"

    /// Projection names for exact object ids, per object type.
    public var resources: [DataSyncObjectType: [String: String]]
    /// Projection names for id patterns (regular expressions), per object type.
    public var patterns: [DataSyncObjectType: [String: String]]

    /// Creates a projection table.
    public init(
        resources: [DataSyncObjectType: [String: String]] = [:],
        patterns: [DataSyncObjectType: [String: String]] = [:]
    ) {
        self.resources = resources
        self.patterns = patterns
    }

    /// Whether the token assigns no projection.
    public var isEmpty: Bool {
        resources.values.allSatisfy(\.isEmpty) && patterns.values.allSatisfy(\.isEmpty)
    }

    /// The projection that applies to object `id` of `type`: its exact entry first, then the first
    /// matching pattern in lexicographic order of the patterns; `nil` when none applies (the
    /// service then uses the default projection).
    ///
    /// - Parameters:
    ///   - id: The object's id, as in the request path.
    ///   - type: The object's type: `.entities`, `.users`, `.channels`, `.relationships` or
    ///     `.memberships`.
    public func projection(for id: String, type: DataSyncObjectType) -> String? {
        if let exact = resources[type]?[id] { return exact }
        guard let table = patterns[type] else { return nil }
        for pattern in table.keys.sorted() where TokenPattern.matches(pattern, id) {
            return table[pattern]
        }
        return nil
    }

    /// Reads the projections from a token's `meta`.
    ///
    /// - Throws: ``AuthError`` with ``AuthError/Code-swift.struct/invalidToken`` when
    ///   `pn-projections` is present but is not shaped as described above.
    public init(meta: JSONValue) throws(AuthError) {
        self.init()
        guard let value = meta.objectValue?[Self.metaKey] else { return }
        guard let scopes = value.objectValue else {
            throw AuthError(
                code: .invalidToken, message: "meta '\(Self.metaKey)' is a \(value.typeName), expected an object")
        }
        resources = try Self.table(scopes["res"], scope: "res")
        patterns = try Self.table(scopes["pat"], scope: "pat")
    }

    private static func table(
        _ value: JSONValue?, scope: String
    ) throws(AuthError) -> [DataSyncObjectType: [String: String]] {
        guard let value, !value.isNull else { return [:] }
        guard let entries = value.objectValue else {
            throw AuthError(
                code: .invalidToken,
                message: "meta '\(metaKey).\(scope)' is a \(value.typeName), expected an object")
        }
        var table: [DataSyncObjectType: [String: String]] = [:]
        for (key, name) in entries {
            guard let projection = name.stringValue else {
                throw AuthError(
                    code: .invalidToken,
                    message: "projection for '\(key)' in '\(metaKey).\(scope)' is a \(name.typeName), expected a string"
                )
            }
            let (type, id) = try split(key, scope: scope)
            table[type, default: [:]][id] = projection
        }
        return table
    }

    /// Splits `datasync:<type>:<id>`; the id may itself contain colons (memberships use
    /// `<user>:<channel>`).
    private static func split(_ key: String, scope: String) throws(AuthError) -> (DataSyncObjectType, String) {
        let prefix = "datasync:"
        let rest = key.hasPrefix(prefix) ? key.dropFirst(prefix.count) : nil
        guard let rest, let colon = rest.firstIndex(of: ":"), colon != rest.startIndex,
            rest.index(after: colon) != rest.endIndex
        else {
            throw AuthError(
                code: .invalidToken,
                message: "key '\(key)' in '\(metaKey).\(scope)' is not of the form datasync:<type>:<id>")
        }
        let type = DataSyncObjectType(rawValue: String(rest[..<colon]))
        return (type, String(rest[rest.index(after: colon)...]))
    }
}
