import JSONCore

/// A sort key component with a total order: null (or absent, or a container) < Booleans <
/// numbers < strings. Descending sorts reverse the whole order.
enum SortValue: Comparable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)

    init(_ value: JSONValue?) {
        switch value {
        case .bool(let flag)?: self = .bool(flag)
        case .int(let number)?: self = .number(Double(number))
        case .double(let number)?: self = .number(number)
        case .string(let text)?: self = .string(text)
        default: self = .null
        }
    }

    private var rank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .number: return 2
        case .string: return 3
        }
    }

    static func < (lhs: SortValue, rhs: SortValue) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let left), .bool(let right)): return !left && right
        case (.number(let left), .number(let right)): return left < right
        case (.string(let left), .string(let right)):
            return left.unicodeScalars.lexicographicallyPrecedes(right.unicodeScalars)
        default: return lhs.rank < rhs.rank
        }
    }

    var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .double(number)
        case .string(let text): return .string(text)
        }
    }
}

/// One `sort` entry: a property and a direction, with how to read its value.
struct SortField {
    enum Source {
        case id
        case createdAt
        case updatedAt
        case status
        case pointer([String])
    }

    var name: String
    var descending: Bool
    var source: Source

    func value(of object: StoredObject) -> SortValue {
        switch source {
        case .id: return .string(object.id)
        case .createdAt: return .number(Double(object.createdAt))
        case .updatedAt: return .number(Double(object.updatedAt))
        case .status: return object.status.map(SortValue.string) ?? .null
        case .pointer(let tokens): return SortValue(object.value(atPointerTokens: tokens))
        }
    }
}

/// A listed object's position: its sort values, then its id (ascending) as the tie-breaker.
struct SortPosition {
    var values: [SortValue]
    var id: String

    /// Whether `self` comes before `other` under `fields`.
    func precedes(_ other: SortPosition, fields: [SortField]) -> Bool {
        for (index, field) in fields.enumerated() {
            let left = values[index]
            let right = other.values[index]
            if left == right { continue }
            return field.descending ? right < left : left < right
        }
        return id.unicodeScalars.lexicographicallyPrecedes(other.id.unicodeScalars)
    }
}
