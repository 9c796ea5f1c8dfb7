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

    /// Strings are equal only when their Unicode scalars are, matching `<` (Swift's `==` on
    /// `String` would call canonically equivalent strings equal while `<` orders them).
    static func == (lhs: SortValue, rhs: SortValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let left), .bool(let right)): return left == right
        case (.number(let left), .number(let right)): return left == right
        case (.string(let left), .string(let right)): return left.isExactly(right)
        default: return false
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

    func value(of box: ObjectBox) -> SortValue {
        switch source {
        case .id: return .string(box.object.id)
        case .createdAt: return .number(Double(box.object.createdAt))
        case .updatedAt: return .number(Double(box.object.updatedAt))
        case .status: return box.object.status.map(SortValue.string) ?? .null
        case .pointer(let tokens): return SortValue(box.object.value(atPointerTokens: tokens))
        }
    }
}

/// A listed object's position: its sort values, then its id (ascending) as the tie-breaker.
struct SortPosition {
    var values: [SortValue]
    var id: String

    /// Whether `self` comes before `other` under `fields`.
    func precedes(_ other: SortPosition, fields: [SortField]) -> Bool {
        Self.precedes(values, id, other.values, other.id, fields: fields)
    }

    /// The order on (values, id) pairs, usable without building a position.
    static func precedes(
        _ leftValues: [SortValue], _ leftId: String, _ rightValues: [SortValue], _ rightId: String, fields: [SortField]
    ) -> Bool {
        for index in fields.indices {
            let left = leftValues[index]
            let right = rightValues[index]
            if left == right { continue }
            return fields[index].descending ? right < left : left < right
        }
        return leftId.utf8.lexicographicallyPrecedes(rightId.utf8)
    }
}
