import Foundation

extension JSONObject: Hashable {
    /// Whether both objects have the same names (by Unicode scalars) with equal values.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        if case .hashed(let left) = lhs.storage, case .hashed(let right) = rhs.storage { return left == right }
        guard lhs.count == rhs.count else { return false }
        // Names are distinct on each side and the counts agree, so every member of one side
        // finding an equal member on the other means the sets are the same.
        switch lhs.storage {
        case .small(let members):
            for member in members {
                guard let other = rhs.value(for: member.key), other == member.value else { return false }
            }
        case .hashed(let table):
            for (key, value) in table {
                guard let other = rhs.value(for: key), other == value else { return false }
            }
        }
        return true
    }

    /// Hashes consistently with ``==(_:_:)``; member order and storage form do not matter.
    public func hash(into hasher: inout Hasher) {
        // Each member is hashed on its own and the results combined with XOR, which does not
        // depend on order.
        var combined = 0
        forEachMember { key, value in
            var memberHasher = Hasher()
            memberHasher.combine(key)
            memberHasher.combine(value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Member names are strings.
    public typealias Key = String
    /// Member values are JSON values.
    public typealias Value = JSONValue

    /// Creates an object from a literal. When a name repeats, the last value wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension JSONObject: CustomStringConvertible {
    /// The compact JSON text of the object, names sorted.
    public var description: String { JSONValue.object(self).description }
}

extension JSONObject: JSONCodable {
    /// Decodes an object. With ``JSONValueDecoder`` every member survives; through another
    /// decoder (Foundation's `JSONDecoder`) members whose names are canonically equivalent may
    /// already have been merged by that decoder.
    ///
    /// - Throws: `DecodingError.typeMismatch` when the value is not an object.
    public init(from decoder: any Decoder) throws {
        guard case .object(let members) = try JSONValue(from: decoder) else {
            throw DecodingError.typeMismatch(
                JSONObject.self, .init(codingPath: decoder.codingPath, debugDescription: "not a JSON object"))
        }
        self = members
    }

    /// Encodes the object as a keyed container.
    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(self).encode(to: encoder)
    }

    /// This object as `JSONValue.object`.
    public func jsonValue() throws -> JSONValue { .object(self) }
}
