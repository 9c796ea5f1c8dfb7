import JSONCore

/// Where a class is defined. Open set: the service may grow levels.
struct ClassLevel: RawRepresentable, Hashable, Sendable {
    let rawValue: String

    static let global = ClassLevel(rawValue: "Global")
    static let subKey = ClassLevel(rawValue: "SubKey")
    static let account = ClassLevel(rawValue: "Account")
}

/// A class name at a level: the identity of a class within a keyset.
struct ClassKey: Hashable, Sendable, CustomStringConvertible {
    var name: String
    var level: ClassLevel

    var description: String { "\(name) (\(level.rawValue))" }

    var jsonValue: JSONValue { ["name": .string(name), "level": .string(level.rawValue)] }
}

/// Whether a class describes entities (users, channels, custom entities) or relationships
/// (memberships, custom relationships). The two have separate name spaces.
enum ClassKind: String, Sendable {
    case entity
    case relationship
}

/// How a declared property may be used in `filter_fast`, `filter` and `sort`.
struct FilterMode: RawRepresentable, Hashable, Sendable, Comparable {
    let rawValue: String

    static let none = FilterMode(rawValue: "none")
    static let simple = FilterMode(rawValue: "simple")
    static let full = FilterMode(rawValue: "full")

    private var rank: Int {
        switch self {
        case .full: return 2
        case .simple: return 1
        default: return 0
        }
    }

    static func < (lhs: FilterMode, rhs: FilterMode) -> Bool { lhs.rank < rhs.rank }
}

/// The JSON type a declared property holds.
struct PropertyType: RawRepresentable, Hashable, Sendable {
    let rawValue: String

    static let string = PropertyType(rawValue: "string")
    static let number = PropertyType(rawValue: "number")
    static let integer = PropertyType(rawValue: "integer")
    static let boolean = PropertyType(rawValue: "boolean")
    static let object = PropertyType(rawValue: "object")
    static let array = PropertyType(rawValue: "array")
    static let known: [PropertyType] = [.string, .number, .integer, .boolean, .object, .array]

    /// Whether `value` (never null: an absent or null property is always allowed) has this type.
    func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.boolean, .bool), (.object, .object), (.array, .array): return true
        case (.number, .int), (.number, .double): return true
        case (.integer, _): return value.int64Value != nil
        default: return false
        }
    }
}

/// A class property: a name usable in filters and sorts, the pointer to the value it indexes.
struct PropertyDefinition: Hashable, Sendable {
    var name: String
    /// `/status` or `/payload/...` (RFC 6901).
    var pointer: String
    var type: PropertyType
    var filtering: FilterMode
}

/// A named field subset of an object: it selects what a projection channel's events carry, and
/// what a read returns to a token whose `pn-projections` names it (Documentation/Emulator.md).
struct ProjectionDefinition: Hashable, Sendable {
    var name: String
    var pointers: [String]
}

/// One version of a class's schema.
struct ClassVersionDefinition: Hashable, Sendable {
    var version: Int
    var properties: [PropertyDefinition]
    var projections: [ProjectionDefinition]
}

/// Cardinality of a relationship class.
struct Cardinality: RawRepresentable, Hashable, Sendable {
    let rawValue: String

    static let oneToOne = Cardinality(rawValue: "one-to-one")
    static let oneToMany = Cardinality(rawValue: "one-to-many")
    static let manyToMany = Cardinality(rawValue: "many-to-many")
}

/// An entity or relationship class as the emulator stores it.
struct ClassDefinition: Hashable, Sendable {
    var kind: ClassKind
    var name: String
    var level: ClassLevel
    var parent: ClassKey?
    /// Days from creation to expiry (rounded up to the next UTC day); nil = the class sets no
    /// TTL of its own (relationships then expire with their sides).
    var ttlDays: Int?
    var eventsEnabled: Bool
    var versions: [ClassVersionDefinition]
    var cardinality: Cardinality?
    var entityAClass: ClassKey?
    var entityBClass: ClassKey?
    var isBuiltIn: Bool

    var key: ClassKey { ClassKey(name: name, level: level) }

    var latestVersion: Int { versions.map(\.version).max() ?? 1 }

    func version(_ number: Int) -> ClassVersionDefinition? { versions.first { $0.version == number } }

    // MARK: Built-ins

    static let userKey = ClassKey(name: "User", level: .global)
    static let channelKey = ClassKey(name: "Channel", level: .global)
    static let membershipKey = ClassKey(name: "Membership", level: .global)

    /// The built-in Global classes every keyset has. `User` and `Channel` index `name` and `type`
    /// (`/payload/name`, `/payload/type`) for both filter tiers.
    static var builtIns: [ClassDefinition] {
        let indexed = [
            PropertyDefinition(name: "name", pointer: "/payload/name", type: .string, filtering: .full),
            PropertyDefinition(name: "type", pointer: "/payload/type", type: .string, filtering: .full),
        ]
        let version = ClassVersionDefinition(version: 1, properties: indexed, projections: [])
        func entity(_ name: String) -> ClassDefinition {
            ClassDefinition(
                kind: .entity, name: name, level: .global, parent: nil, ttlDays: 30, eventsEnabled: true,
                versions: [version], cardinality: nil, entityAClass: nil, entityBClass: nil, isBuiltIn: true)
        }
        let membership = ClassDefinition(
            kind: .relationship, name: "Membership", level: .global, parent: nil, ttlDays: nil, eventsEnabled: true,
            versions: [ClassVersionDefinition(version: 1, properties: [], projections: [])],
            cardinality: .manyToMany, entityAClass: channelKey, entityBClass: userKey, isBuiltIn: true)
        return [entity("User"), entity("Channel"), membership]
    }
}
