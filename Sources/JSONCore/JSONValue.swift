/// A JSON document or fragment: the one JSON type every module of the SDK uses.
///
/// `JSONValue` keeps integers and floating-point numbers apart, so a payload that carried `24`
/// is sent back as `24`, never `24.0`, and the full `Int64` range survives a round trip.
///
/// Numbers that do not fit these cases:
/// - an integer literal outside the `Int64` range (for example `18446744073709551615`) is parsed as
///   a ``double(_:)`` and may lose precision, as it would in most JSON libraries;
/// - a number whose magnitude exceeds `Double.greatestFiniteMagnitude` (for example `1e400`) is
///   rejected by the parser with ``JSONError/Code-swift.struct/numberOutOfRange``;
/// - `NaN` and the infinities are not JSON: the parser rejects them and encoding a value that holds
///   one throws ``JSONError/Code-swift.struct/nonFiniteNumber``.
///
/// Equality is JSON equality: numbers compare by value, so `.int(1) == .double(1.0)`, and object
/// key order never matters. Strings and member names compare by Unicode scalars, not by Swift's
/// canonical equivalence: `"é"` (U+00E9) and `"e\u{301}"` are different strings and different
/// member names, as RFC 8259 has them. Hashing agrees with equality.
///
/// ```swift
/// let product: JSONValue = ["name": "Sneaker", "price": 79.99, "tags": ["sale"]]
/// product["price"]?.doubleValue  // 79.99
/// let bytes = try product.jsonBytes()  // {"name":"Sneaker","price":79.99,"tags":["sale"]}
/// ```
public enum JSONValue: Sendable {
    /// The JSON `null` literal.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in `Int64`.
    case int(Int64)
    /// Any other finite number.
    case double(Double)
    /// A string of Unicode text. Two strings are equal when they hold the same Unicode scalars.
    case string(String)
    /// An ordered list of values.
    case array([JSONValue])
    /// A set of named values. Names are unique by Unicode scalars (see ``JSONObject``); their
    /// order carries no meaning.
    case object(JSONObject)
}

// MARK: - Typed accessors

extension JSONValue {
    /// Whether this value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The Boolean, or `nil` when this is not a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The integer as `Int64`. A `double` with no fractional part that fits converts exactly;
    /// anything else is `nil`.
    public var int64Value: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value): return JSONNumber.exactInt64(value)
        default: return nil
        }
    }

    /// The integer as `Int`, under the same rules as ``int64Value``.
    public var intValue: Int? {
        guard let value = int64Value else { return nil }
        return Int(exactly: value)
    }

    /// The number as `Double`. Integers convert (rounding to the nearest `Double` beyond 2^53).
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// Whether this value is a number of either kind.
    public var isNumber: Bool {
        switch self {
        case .int, .double: return true
        default: return false
        }
    }

    /// The string, or `nil` when this is not a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements, or `nil` when this is not an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, or `nil` when this is not an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// A short name of this value's JSON type (`"null"`, `"boolean"`, `"number"`, `"string"`,
    /// `"array"`, `"object"`), for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

// MARK: - Subscripts

extension JSONValue {
    /// The member named `key` when this is an object; `nil` otherwise or when absent.
    ///
    /// Setting a member on an object stores it (`nil` removes it). Setting on a value that is not
    /// an object does nothing.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let members) = self else { return nil }
            return members[key]
        }
        set {
            guard case .object(var members) = self else { return }
            self = .null  // drop the second reference so the dictionary is mutated in place
            members[key] = newValue
            self = .object(members)
        }
    }

    /// The element at `index` when this is an array and the index is in range; `nil` otherwise.
    ///
    /// Setting an in-range element of an array replaces it; setting `nil`, an out-of-range index,
    /// or on a value that is not an array does nothing.
    public subscript(index: Int) -> JSONValue? {
        get {
            guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
            return elements[index]
        }
        set {
            guard case .array(var elements) = self, elements.indices.contains(index), let newValue else { return }
            self = .null
            elements[index] = newValue
            self = .array(elements)
        }
    }
}

// MARK: - Equality and hashing

extension JSONValue: Hashable {
    /// JSON equality: numbers compare by value across ``int(_:)`` and ``double(_:)``; strings and
    /// member names compare by Unicode scalars; everything else compares structurally.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)):
            return JSONNumber.exactInt64(b) == a
        case (.string(let a), .string(let b)): return ScalarText.equal(a, b)
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }

    /// Hashes consistently with ``==(_:_:)``: a `double` with an exact `Int64` value hashes as that
    /// integer.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .int(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .double(let value):
            if let exact = JSONNumber.exactInt64(value) {
                hasher.combine(2 as UInt8)
                hasher.combine(exact)
            } else {
                hasher.combine(3 as UInt8)
                hasher.combine(value)
            }
        case .string(let value):
            hasher.combine(4 as UInt8)
            ScalarText.hash(value, into: &hasher)
        case .array(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(6 as UInt8)
            hasher.combine(value)
        }
    }
}

/// Number helpers shared by equality, accessors and the decoder.
package enum JSONNumber {
    /// The `Int64` equal to `value`, when there is one.
    package static func exactInt64(_ value: Double) -> Int64? {
        // Int64(exactly:) returns nil for fractions, NaN, infinities and out-of-range values.
        Int64(exactly: value)
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral {
    /// Creates `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// Lets `true` and `false` stand for `.bool` wherever a `JSONValue` is expected.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// Lets `24` stand for `.int(24)`; an integer literal always stays an integer, never a `double`.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// Lets `79.99` stand for `.double(79.99)`; `24.0` stays a `double` and is written as `24.0`.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// Lets `"Ada"` stand for `.string("Ada")`.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// Lets `[1, "two", nil]` stand for an `.array`; elements may mix JSON types.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Creates an object. When a key repeats, the last value wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(uniqueKeysWithValues: elements))
    }
}

extension JSONValue {
    /// Creates an object from a Swift dictionary, so code that builds a `[String: JSONValue]`
    /// can pass it as it is.
    ///
    /// The dictionary has already merged canonically equivalent names into one; build a
    /// ``JSONObject`` instead when both spellings must survive.
    public static func object(_ dictionary: [String: JSONValue]) -> JSONValue {
        .object(JSONObject(dictionary))
    }
}

// MARK: - Convenience initialisers

extension JSONValue {
    /// Creates an integer from any binary integer; one outside `Int64` becomes a `double`.
    public init(_ value: some BinaryInteger) {
        if let exact = Int64(exactly: value) {
            self = .int(exact)
        } else {
            self = .double(Double(value))
        }
    }

    /// Wraps `value` as `.double`, even when it has no fraction; writing fails later if it is NaN or
    /// infinite, which JSON cannot hold.
    public init(_ value: Double) { self = .double(value) }

    /// Wraps `value` as `.string`; any Unicode text is allowed and escaped when written.
    public init(_ value: String) { self = .string(value) }

    /// Wraps `value` as `.bool`.
    public init(_ value: Bool) { self = .bool(value) }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of this value, keys sorted. A non-finite number prints as `null`
    /// here only; ``jsonBytes(sortedKeys:)`` throws for it instead.
    public var description: String {
        var writer = JSONWriter(sortedKeys: true, nonFinite: .null)
        // The `.null` policy never throws.
        (try? writer.write(self)) ?? ()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
