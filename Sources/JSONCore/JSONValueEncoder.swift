import Foundation

/// How `Date` values are written when encoding to and read when decoding from ``JSONValue``.
public enum JSONDateStrategy: Sendable {
    /// An ISO 8601 string in UTC with millisecond precision (`2026-05-22T10:15:30.123Z`). Decoding
    /// accepts any number of fraction digits and any UTC offset. The default.
    case iso8601
    /// Seconds since 1970 as a number.
    case secondsSince1970
    /// Milliseconds since 1970 as a number.
    case millisecondsSince1970
    /// Whatever `Date`'s own `Codable` conformance does (seconds since 2001).
    case deferredToDate
}

/// How `Data` values are written and read.
public enum JSONDataStrategy: Sendable {
    /// A standard base64 string. The default.
    case base64
    /// Whatever `Data`'s own `Codable` conformance does (an array of bytes).
    case deferredToData
}

/// Encodes `Encodable` values directly into ``JSONValue``, with no detour through bytes.
///
/// `Decimal` is written as a number, `URL` as its absolute string. Optional properties that are
/// `nil` are left out of objects, as `JSONEncoder` does.
public struct JSONValueEncoder: Sendable {
    /// How dates are written.
    public var dateStrategy: JSONDateStrategy
    /// How binary data is written.
    public var dataStrategy: JSONDataStrategy

    /// Creates an encoder. The defaults write dates as ISO 8601 text with milliseconds, in UTC,
    /// and `Data` as base64, the forms the DataSync service stores.
    ///
    /// - Parameters:
    ///   - dateStrategy: How `Date` properties are written; ISO 8601 text with milliseconds by default.
    ///   - dataStrategy: How `Data` properties are written; base64 text by default.
    public init(dateStrategy: JSONDateStrategy = .iso8601, dataStrategy: JSONDataStrategy = .base64) {
        self.dateStrategy = dateStrategy
        self.dataStrategy = dataStrategy
    }

    /// Encodes `value`.
    ///
    /// - Throws: ``JSONError`` with the coding path when a number is not finite or the value's own
    ///   `encode(to:)` throws.
    public func encode(_ value: some Encodable) throws -> JSONValue {
        let options = EncodingOptions(dateStrategy: dateStrategy, dataStrategy: dataStrategy)
        do {
            return try JSONValueEncoderImpl.encodeValue(value, codingPath: [], options: options)
        } catch let error as EncodingError {
            throw JSONError(encoding: error)
        }
    }
}

struct EncodingOptions {
    let dateStrategy: JSONDateStrategy
    let dataStrategy: JSONDataStrategy
}

/// Where an encoder or container writes: empty until something is encoded, then a finished value
/// or a container that is resolved into a value at the end.
final class EncodingSlot {
    enum State {
        case empty
        case value(JSONValue)
        case object(ObjectBox)
        case array(ArrayBox)
    }

    var state: State = .empty

    var value: JSONValue {
        get { resolve() }
        set { state = .value(newValue) }
    }

    func resolve() -> JSONValue {
        switch state {
        case .empty: return .object([:])
        case .value(let value): return value
        case .object(let box): return box.resolve()
        case .array(let box): return box.resolve()
        }
    }
}

enum EncodingEntry {
    case value(JSONValue)
    case slot(EncodingSlot)

    func resolve() -> JSONValue {
        switch self {
        case .value(let value): return value
        case .slot(let slot): return slot.resolve()
        }
    }
}

final class ObjectBox {
    var members: [JSONObject.MemberName: EncodingEntry] = [:]

    func resolve() -> JSONValue {
        .object(JSONObject(storage: members.mapValues { $0.resolve() }))
    }
}

final class ArrayBox {
    var elements: [EncodingEntry] = []

    func resolve() -> JSONValue {
        .array(elements.map { $0.resolve() })
    }
}

struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String
    init(_ index: Int) {
        intValue = index
        stringValue = "Index \(index)"
    }
    init?(intValue: Int) { self.init(intValue) }
    init?(stringValue: String) { nil }
}

final class JSONValueEncoderImpl: Encoder {
    let storage: EncodingSlot
    let codingPath: [any CodingKey]
    let options: EncodingOptions
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(storage: EncodingSlot = EncodingSlot(), codingPath: [any CodingKey], options: EncodingOptions) {
        self.storage = storage
        self.codingPath = codingPath
        self.options = options
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: ObjectBox
        if case .object(let existing) = storage.state {
            box = existing
        } else {
            box = ObjectBox()
            storage.state = .object(box)
        }
        return KeyedEncodingContainer(KeyedEncoder<Key>(box: box, codingPath: codingPath, options: options))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: ArrayBox
        if case .array(let existing) = storage.state {
            box = existing
        } else {
            box = ArrayBox()
            storage.state = .array(box)
        }
        return UnkeyedEncoder(box: box, codingPath: codingPath, options: options)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueEncoder(slot: storage, codingPath: codingPath, options: options)
    }

    /// Encodes one value, with the special cases `JSONEncoder` also has.
    static func encodeValue(
        _ value: some Encodable, codingPath: [any CodingKey], options: EncodingOptions
    ) throws -> JSONValue {
        switch value {
        case let json as JSONValue:
            return json
        case let string as String:
            return .string(string)
        case let flag as Bool:
            return .bool(flag)
        case let integer as Int:
            return .int(Int64(integer))
        case let double as Double:
            return try finite(double, codingPath)
        case let date as Date:
            switch options.dateStrategy {
            case .iso8601: return .string(ISO8601Timestamp.string(from: date))
            case .secondsSince1970: return try finite(date.timeIntervalSince1970, codingPath)
            case .millisecondsSince1970: return try finite(date.timeIntervalSince1970 * 1000, codingPath)
            case .deferredToDate: break
            }
        case let data as Data:
            if case .base64 = options.dataStrategy { return .string(data.base64EncodedString()) }
        case let url as URL:
            return .string(url.absoluteString)
        case let decimal as Decimal:
            let text = decimal.description
            if let integer = Int64(text) { return .int(integer) }
            return try finite(Double(text) ?? .nan, codingPath)
        default:
            break
        }
        let encoder = JSONValueEncoderImpl(codingPath: codingPath, options: options)
        try value.encode(to: encoder)
        return encoder.storage.resolve()
    }

    /// Floats go through their own shortest text so `Float(0.1)` is written `0.1`, not
    /// `0.10000000149011612`.
    static func finiteFloat(_ value: Float, _ codingPath: [any CodingKey]) throws -> JSONValue {
        try finite(Double(value.description) ?? Double(value), codingPath)
    }

    static func finite(_ value: Double, _ codingPath: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is not a JSON number"))
        }
        return .double(value)
    }
}

private struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: ObjectBox
    let codingPath: [any CodingKey]
    let options: EncodingOptions

    mutating func encodeNil(forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(.null)
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(.bool(value))
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(.string(value))
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(
            try JSONValueEncoderImpl.finite(value, codingPath + [key]))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(
            try JSONValueEncoderImpl.finiteFloat(value, codingPath + [key]))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(JSONValue(value))
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(.int(value))
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(JSONValue(value))
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(JSONValue(value))
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(JSONValue(value))
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(JSONValue(value))
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(JSONValue(value))
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(JSONValue(value))
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(JSONValue(value))
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(JSONValue(value))
    }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        box.members[JSONObject.MemberName(key.stringValue)] = .value(
            try JSONValueEncoderImpl.encodeValue(value, codingPath: codingPath + [key], options: options))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let slot = EncodingSlot()
        box.members[JSONObject.MemberName(key.stringValue)] = .slot(slot)
        return JSONValueEncoderImpl(storage: slot, codingPath: codingPath + [key], options: options)
            .container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let slot = EncodingSlot()
        box.members[JSONObject.MemberName(key.stringValue)] = .slot(slot)
        return JSONValueEncoderImpl(storage: slot, codingPath: codingPath + [key], options: options)
            .unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(forKeyString: "super", key: IndexKey(0))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(forKeyString: key.stringValue, key: key)
    }

    private func superEncoder(forKeyString name: String, key: any CodingKey) -> any Encoder {
        let slot = EncodingSlot()
        box.members[JSONObject.MemberName(name)] = .slot(slot)
        return JSONValueEncoderImpl(storage: slot, codingPath: codingPath + [key], options: options)
    }
}

private struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let box: ArrayBox
    let codingPath: [any CodingKey]
    let options: EncodingOptions
    var count: Int { box.elements.count }

    private var nextPath: [any CodingKey] { codingPath + [IndexKey(box.elements.count)] }

    mutating func encodeNil() throws { box.elements.append(.value(.null)) }
    mutating func encode(_ value: Bool) throws { box.elements.append(.value(.bool(value))) }
    mutating func encode(_ value: String) throws { box.elements.append(.value(.string(value))) }
    mutating func encode(_ value: Int) throws { box.elements.append(.value(JSONValue(value))) }
    mutating func encode(_ value: Int64) throws { box.elements.append(.value(.int(value))) }
    mutating func encode(_ value: Double) throws {
        box.elements.append(.value(try JSONValueEncoderImpl.finite(value, nextPath)))
    }
    mutating func encode(_ value: Int8) throws { box.elements.append(.value(JSONValue(value))) }
    mutating func encode(_ value: Int16) throws { box.elements.append(.value(JSONValue(value))) }
    mutating func encode(_ value: Int32) throws { box.elements.append(.value(JSONValue(value))) }
    mutating func encode(_ value: UInt) throws { box.elements.append(.value(JSONValue(value))) }
    mutating func encode(_ value: UInt8) throws { box.elements.append(.value(JSONValue(value))) }
    mutating func encode(_ value: UInt16) throws { box.elements.append(.value(JSONValue(value))) }
    mutating func encode(_ value: UInt32) throws { box.elements.append(.value(JSONValue(value))) }
    mutating func encode(_ value: UInt64) throws { box.elements.append(.value(JSONValue(value))) }
    mutating func encode(_ value: Float) throws {
        box.elements.append(.value(try JSONValueEncoderImpl.finiteFloat(value, nextPath)))
    }
    mutating func encode(_ value: some Encodable) throws {
        box.elements.append(.value(try JSONValueEncoderImpl.encodeValue(value, codingPath: nextPath, options: options)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let slot = EncodingSlot()
        let path = nextPath
        box.elements.append(.slot(slot))
        return JSONValueEncoderImpl(storage: slot, codingPath: path, options: options).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let slot = EncodingSlot()
        let path = nextPath
        box.elements.append(.slot(slot))
        return JSONValueEncoderImpl(storage: slot, codingPath: path, options: options).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let slot = EncodingSlot()
        let path = nextPath
        box.elements.append(.slot(slot))
        return JSONValueEncoderImpl(storage: slot, codingPath: path, options: options)
    }
}

private struct SingleValueEncoder: SingleValueEncodingContainer {
    let slot: EncodingSlot
    let codingPath: [any CodingKey]
    let options: EncodingOptions

    mutating func encodeNil() throws { slot.state = .value(.null) }
    mutating func encode(_ value: Bool) throws { slot.state = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { slot.state = .value(.string(value)) }
    mutating func encode(_ value: Int) throws { slot.state = .value(JSONValue(value)) }
    mutating func encode(_ value: Int64) throws { slot.state = .value(.int(value)) }
    mutating func encode(_ value: Double) throws {
        slot.state = .value(try JSONValueEncoderImpl.finite(value, codingPath))
    }
    mutating func encode(_ value: Int8) throws { slot.state = .value(JSONValue(value)) }
    mutating func encode(_ value: Int16) throws { slot.state = .value(JSONValue(value)) }
    mutating func encode(_ value: Int32) throws { slot.state = .value(JSONValue(value)) }
    mutating func encode(_ value: UInt) throws { slot.state = .value(JSONValue(value)) }
    mutating func encode(_ value: UInt8) throws { slot.state = .value(JSONValue(value)) }
    mutating func encode(_ value: UInt16) throws { slot.state = .value(JSONValue(value)) }
    mutating func encode(_ value: UInt32) throws { slot.state = .value(JSONValue(value)) }
    mutating func encode(_ value: UInt64) throws { slot.state = .value(JSONValue(value)) }
    mutating func encode(_ value: Float) throws {
        slot.state = .value(try JSONValueEncoderImpl.finiteFloat(value, codingPath))
    }
    mutating func encode(_ value: some Encodable) throws {
        slot.state = .value(try JSONValueEncoderImpl.encodeValue(value, codingPath: codingPath, options: options))
    }
}

extension JSONError {
    init(encoding error: EncodingError) {
        switch error {
        case .invalidValue(_, let context):
            self.init(
                code: .nonFiniteNumber, message: context.debugDescription, path: codingPathString(context.codingPath))
        @unknown default:
            self.init(code: .dataCorrupted, message: "\(error)")
        }
    }
}

/// Renders a coding path as `items[2].price`.
func codingPathString(_ path: [any CodingKey]) -> String {
    var text = ""
    for key in path {
        if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == "\(index)" {
            text += "[\(index)]"
        } else {
            if !text.isEmpty { text += "." }
            text += key.stringValue
        }
    }
    return text
}
