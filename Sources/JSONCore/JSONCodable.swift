/// A value the SDK accepts wherever the API takes a JSON payload: any `Codable` and `Sendable`
/// value that declares the conformance.
///
/// ``JSONValue``, `String`, `Bool`, the standard integer and floating-point types, and arrays,
/// dictionaries (keyed by `String`) and optionals of `JSONCodable` values conform already. Your own
/// types conform by declaring it:
///
/// ```swift
/// struct Profile: JSONCodable {
///     var displayName: String
///     var age: Int?
/// }
/// let payload = try Profile(displayName: "Ada", age: 36).jsonValue()
/// let profile = try payload.decode(Profile.self)
/// ```
public protocol JSONCodable: Codable, Sendable {
    /// This value as a ``JSONValue``. The default implementation encodes it with
    /// ``JSONValueEncoder``; ``JSONValue`` returns itself.
    ///
    /// - Throws: ``JSONError`` when the value cannot be represented (a non-finite number, or an
    ///   `encode(to:)` that throws).
    func jsonValue() throws -> JSONValue
}

extension JSONCodable {
    /// Encodes this value with a default ``JSONValueEncoder``.
    public func jsonValue() throws -> JSONValue {
        try JSONValueEncoder().encode(self)
    }
}

extension JSONValue: JSONCodable {
    /// Returns `self`: no conversion is needed.
    public func jsonValue() throws -> JSONValue { self }
}

extension String: JSONCodable {}
extension Bool: JSONCodable {}
extension Int: JSONCodable {}
extension Int8: JSONCodable {}
extension Int16: JSONCodable {}
extension Int32: JSONCodable {}
extension Int64: JSONCodable {}
extension UInt: JSONCodable {}
extension UInt8: JSONCodable {}
extension UInt16: JSONCodable {}
extension UInt32: JSONCodable {}
extension UInt64: JSONCodable {}
extension Double: JSONCodable {}
extension Float: JSONCodable {}
extension Array: JSONCodable where Element: JSONCodable {}
extension Dictionary: JSONCodable where Key == String, Value: JSONCodable {}
extension Optional: JSONCodable where Wrapped: JSONCodable {}

extension JSONValue {
    /// Converts any `Encodable` value to a ``JSONValue`` without going through bytes.
    ///
    /// - Throws: ``JSONError`` when the value cannot be represented.
    public init(from value: some Encodable) throws {
        self = try JSONValueEncoder().encode(value)
    }

    /// Decodes this value as `type`, for example a payload as your own `Codable` struct.
    ///
    /// - Throws: ``JSONError`` naming the coding path when the shape does not match.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONValueDecoder().decode(type, from: self)
    }
}
