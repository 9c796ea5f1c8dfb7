import Foundation

/// Decodes `Decodable` values directly from a ``JSONValue``, with no detour through bytes.
///
/// Numbers convert when the value is exact: `2.0` decodes as `Int`, `300` does not decode as
/// `UInt8`. Dates and data follow the same strategies as ``JSONValueEncoder``.
public struct JSONValueDecoder: Sendable {
    /// How dates are read.
    public var dateStrategy: JSONDateStrategy
    /// How binary data is read.
    public var dataStrategy: JSONDataStrategy

    /// Creates a decoder. The defaults read what ``JSONValueEncoder``'s defaults write: ISO 8601
    /// dates (any fraction length, any offset) and base64 data.
    ///
    /// - Parameters:
    ///   - dateStrategy: How `Date` properties are read; ISO 8601 text by default.
    ///   - dataStrategy: How `Data` properties are read; base64 text by default.
    public init(dateStrategy: JSONDateStrategy = .iso8601, dataStrategy: JSONDataStrategy = .base64) {
        self.dateStrategy = dateStrategy
        self.dataStrategy = dataStrategy
    }

    /// Decodes a `T` from `value`.
    ///
    /// - Throws: ``JSONError`` (``JSONError/Code-swift.struct/typeMismatch``,
    ///   ``JSONError/Code-swift.struct/valueNotFound`` or ``JSONError/Code-swift.struct/dataCorrupted``)
    ///   whose ``JSONError/path`` names where in the value the problem is.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        let options = DecodingOptions(dateStrategy: dateStrategy, dataStrategy: dataStrategy)
        do {
            return try JSONValueDecoderImpl(value: value, codingPath: [], options: options).unbox(type)
        } catch let error as DecodingError {
            throw JSONError(decoding: error)
        }
    }
}

struct DecodingOptions {
    let dateStrategy: JSONDateStrategy
    let dataStrategy: JSONDataStrategy
}

struct JSONValueDecoderImpl: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let options: DecodingOptions
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: JSONValue].self, value, codingPath)
        }
        return KeyedDecodingContainer(KeyedDecoder<Key>(members: members, codingPath: codingPath, options: options))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch([JSONValue].self, value, codingPath)
        }
        return UnkeyedDecoder(elements: elements, codingPath: codingPath, options: options)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self, let result = value as? T { return result }
        if type == Date.self {
            switch options.dateStrategy {
            case .iso8601:
                let text = try unboxString()
                guard let date = ISO8601Timestamp.date(from: text) else {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: codingPath, debugDescription: "\"\(text)\" is not an ISO 8601 timestamp"))
                }
                return try cast(date)
            case .secondsSince1970:
                return try cast(Date(timeIntervalSince1970: try unboxDouble()))
            case .millisecondsSince1970:
                return try cast(Date(timeIntervalSince1970: try unboxDouble() / 1000))
            case .deferredToDate:
                break
            }
        }
        if type == Data.self, case .base64 = options.dataStrategy {
            let text = try unboxString()
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not base64"))
            }
            return try cast(data)
        }
        if type == URL.self {
            let text = try unboxString()
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not a URL"))
            }
            return try cast(url)
        }
        if type == Decimal.self {
            let text: String
            switch value {
            case .int(let integer): text = String(integer)
            case .double(let double): text = double.description
            default: throw mismatch(Decimal.self, value, codingPath)
            }
            guard let decimal = Decimal(string: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not a decimal"))
            }
            return try cast(decimal)
        }
        return try T(from: self)
    }

    private func cast<T>(_ result: some Any) throws -> T {
        guard let typed = result as? T else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: codingPath, debugDescription: "internal cast"))
        }
        return typed
    }

    func unboxString() throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self, value, codingPath) }
        return text
    }

    func unboxDouble() throws -> Double {
        switch value {
        case .int(let integer): return Double(integer)
        case .double(let double): return double
        default: throw mismatch(Double.self, value, codingPath)
        }
    }

    func unboxInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        switch value {
        case .int(let integer):
            if let exact = T(exactly: integer) { return exact }
        case .double(let double):
            if let exact = T(exactly: double) { return exact }
        default:
            throw mismatch(type, value, codingPath)
        }
        throw DecodingError.dataCorrupted(
            .init(codingPath: codingPath, debugDescription: "\(value) does not fit in \(T.self)"))
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    let expected: String
    switch type {
    case is String.Type: expected = "a string"
    case is Bool.Type: expected = "a boolean"
    case is [JSONValue].Type: expected = "an array"
    case is [String: JSONValue].Type, is JSONObject.Type: expected = "an object"
    default: expected = "a number"
    }
    return DecodingError.typeMismatch(
        type, .init(codingPath: path, debugDescription: "expected \(expected), found \(value.typeName)"))
}

extension JSONValueDecoderImpl: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(type, value, codingPath) }
        return flag
    }
    func decode(_ type: String.Type) throws -> String { try unboxString() }
    func decode(_ type: Double.Type) throws -> Double { try unboxDouble() }
    func decode(_ type: Float.Type) throws -> Float { Float(try unboxDouble()) }
    func decode(_ type: Int.Type) throws -> Int { try unboxInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try unboxInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try unboxInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try unboxInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try unboxInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try unboxInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try unboxInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try unboxInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try unboxInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try unboxInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unbox(type) }
}

private struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: JSONObject
    let codingPath: [any CodingKey]
    let options: DecodingOptions

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func child(_ key: Key) throws -> JSONValueDecoderImpl {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "no value for the key \"\(key.stringValue)\""))
        }
        return JSONValueDecoderImpl(value: value, codingPath: codingPath + [key], options: options)
    }

    func decodeNil(forKey key: Key) throws -> Bool { members[key.stringValue]?.isNull ?? true }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).unbox(type) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONValueDecoderImpl(value: members["super"] ?? .null, codingPath: codingPath, options: options)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoderImpl(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key], options: options)
    }
}

private struct UnkeyedDecoder: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    let options: DecodingOptions
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey], options: DecodingOptions) {
        self.elements = elements
        self.codingPath = codingPath
        self.options = options
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> JSONValueDecoderImpl {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                JSONValue.self,
                .init(
                    codingPath: codingPath + [IndexKey(currentIndex)],
                    debugDescription: "the array has no more elements"))
        }
        let decoder = JSONValueDecoderImpl(
            value: elements[currentIndex], codingPath: codingPath + [IndexKey(currentIndex)], options: options)
        currentIndex += 1
        return decoder
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if elements[currentIndex].isNull {
            currentIndex += 1
            return true
        }
        return false
    }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decode(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().unbox(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

extension JSONError {
    init(decoding error: DecodingError) {
        switch error {
        case .typeMismatch(_, let context):
            self.init(
                code: .typeMismatch, message: context.debugDescription, path: codingPathString(context.codingPath))
        case .valueNotFound(_, let context):
            self.init(
                code: .valueNotFound, message: context.debugDescription, path: codingPathString(context.codingPath))
        case .keyNotFound(let key, let context):
            self.init(
                code: .valueNotFound, message: context.debugDescription,
                path: codingPathString(context.codingPath + [key]))
        case .dataCorrupted(let context):
            self.init(
                code: .dataCorrupted, message: context.debugDescription, path: codingPathString(context.codingPath))
        @unknown default:
            self.init(code: .dataCorrupted, message: "\(error)")
        }
    }
}
