import JSONCore

/// One CBOR data item (RFC 8949), as much of CBOR as Access Manager tokens use: integers, byte
/// and text strings, arrays, maps, floats and the simple values. Written here because the
/// emulator must not share the SDK's token parser: both sides agreeing with one shared decoder
/// would prove nothing.
package indirect enum CBORItem: Sendable, Equatable {
    case unsigned(UInt64)
    /// The integer `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORItem])
    case map([CBORPair])
    case bool(Bool)
    case null
    case double(Double)

    /// A map or byte-string key read as text (tokens use byte-string keys; text keys are
    /// accepted too). nil for other items or invalid UTF-8.
    var keyText: String? {
        switch self {
        case .bytes(let bytes): return String(validating: bytes, as: UTF8.self)
        case .text(let text): return text
        default: return nil
        }
    }

    /// The item as JSON: byte strings become UTF-8 text when they are valid UTF-8 (keys always
    /// are), integers numbers. nil when a map key is neither text nor a byte string.
    var json: JSONValue? {
        switch self {
        case .unsigned(let value): return Int64(exactly: value).map(JSONValue.int) ?? .double(Double(value))
        case .negative(let value): return Int64(exactly: value).map { .int(-1 - $0) } ?? .double(-1 - Double(value))
        case .bytes(let bytes): return String(validating: bytes, as: UTF8.self).map(JSONValue.string)
        case .text(let text): return .string(text)
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .double(let value): return value.isFinite ? .double(value) : .null
        case .array(let items):
            var out: [JSONValue] = []
            for item in items {
                guard let value = item.json else { return nil }
                out.append(value)
            }
            return .array(out)
        case .map(let pairs):
            var out: [String: JSONValue] = [:]
            for pair in pairs {
                guard let key = pair.key.keyText, let value = pair.value.json else { return nil }
                out[key] = value
            }
            return .object(out)
        }
    }

    /// JSON as CBOR the way PubNub writes token metadata: every map key a byte string, keys in
    /// sorted order so the same metadata always encodes to the same bytes.
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .string(let text): self = .text(text)
        case .array(let items): self = .array(items.map(CBORItem.init(json:)))
        case .object(let object):
            self = .map(
                object.keys.sorted().map { CBORPair(.bytes(Array($0.utf8)), CBORItem(json: object[$0] ?? .null)) })
        default:
            if let value = json.int64Value {
                self = value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
            } else {
                self = .double(json.doubleValue ?? 0)
            }
        }
    }
}

/// A key and its value in a CBOR map, in encoded order.
package struct CBORPair: Sendable, Equatable {
    package var key: CBORItem
    package var value: CBORItem

    package init(_ key: CBORItem, _ value: CBORItem) {
        self.key = key
        self.value = value
    }
}

/// Writes CBOR with definite lengths and the shortest argument encoding.
enum CBORWriter {
    static func encode(_ item: CBORItem) -> [UInt8] {
        var out: [UInt8] = []
        write(item, into: &out)
        return out
    }

    static func header(major: UInt8, _ argument: UInt64, into out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(argument))
        case 24...0xFF: out += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF: out += [type | 25, UInt8(argument >> 8), UInt8(truncatingIfNeeded: argument)]
        case 0x1_0000...0xFFFF_FFFF:
            out.append(type | 26)
            for shift in stride(from: 24, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift)))
            }
        default:
            out.append(type | 27)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift)))
            }
        }
    }

    static func write(_ item: CBORItem, into out: inout [UInt8]) {
        switch item {
        case .unsigned(let value): header(major: 0, value, into: &out)
        case .negative(let value): header(major: 1, value, into: &out)
        case .bytes(let bytes):
            header(major: 2, UInt64(bytes.count), into: &out)
            out += bytes
        case .text(let text):
            header(major: 3, UInt64(text.utf8.count), into: &out)
            out += Array(text.utf8)
        case .array(let items):
            header(major: 4, UInt64(items.count), into: &out)
            for element in items { write(element, into: &out) }
        case .map(let pairs):
            header(major: 5, UInt64(pairs.count), into: &out)
            for pair in pairs {
                write(pair.key, into: &out)
                write(pair.value, into: &out)
            }
        case .bool(let flag): out.append(flag ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        case .double(let value):
            out.append(0xFB)
            let bits = value.bitPattern
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
            }
        }
    }
}

/// Reads CBOR from untrusted bytes: definite lengths only, nesting at most 32 deep, every
/// declared length checked against the bytes left, so no input can crash it or make it allocate
/// more than the input's size.
struct CBORParser {
    /// Why the bytes are not CBOR this parser accepts.
    struct Failure: Error, Equatable {
        var message: String
    }

    static let maximumDepth = 32

    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var atEnd: Bool { offset >= bytes.count }

    /// The bytes from `start` up to the current offset.
    func slice(from start: Int) -> ArraySlice<UInt8> { bytes[start..<offset] }

    private mutating func byte() throws(Failure) -> UInt8 {
        guard offset < bytes.count else { throw Failure(message: "truncated at byte \(offset)") }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func take(_ count: UInt64) throws(Failure) -> ArraySlice<UInt8> {
        guard count <= UInt64(bytes.count - offset) else {
            throw Failure(message: "a length of \(count) at byte \(offset) runs past the end")
        }
        let end = offset + Int(count)
        defer { offset = end }
        return bytes[offset..<end]
    }

    /// The initial byte's major type and its argument.
    mutating func header() throws(Failure) -> (major: UInt8, argument: UInt64, info: UInt8) {
        let initial = try byte()
        let info = initial & 0x1F
        let argument: UInt64
        switch info {
        case 0..<24: argument = UInt64(info)
        case 24...27:
            var value: UInt64 = 0
            for _ in 0..<(1 << (info - 24)) { value = value << 8 | UInt64(try byte()) }
            argument = value
        default: throw Failure(message: "unsupported additional information \(info) at byte \(offset - 1)")
        }
        return (initial >> 5, argument, info)
    }

    /// Reads one item.
    mutating func item(depth: Int = 0) throws(Failure) -> CBORItem {
        guard depth < Self.maximumDepth else { throw Failure(message: "nested more than \(Self.maximumDepth) deep") }
        let (major, argument, info) = try header()
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(Array(try take(argument)))
        case 3:
            guard let text = String(validating: try take(argument), as: UTF8.self) else {
                throw Failure(message: "a text string is not valid UTF-8")
            }
            return .text(text)
        case 4:
            // Every element takes at least one byte, so a count beyond the bytes left is a lie.
            guard argument <= UInt64(bytes.count - offset) else {
                throw Failure(message: "an array count runs past the end")
            }
            var items: [CBORItem] = []
            for _ in 0..<argument { items.append(try item(depth: depth + 1)) }
            return .array(items)
        case 5:
            guard argument <= UInt64(bytes.count - offset) / 2 else {
                throw Failure(message: "a map count runs past the end")
            }
            var pairs: [CBORPair] = []
            for _ in 0..<argument {
                let key = try item(depth: depth + 1)
                pairs.append(CBORPair(key, try item(depth: depth + 1)))
            }
            return .map(pairs)
        case 6: return try item(depth: depth + 1)  // a tag: its content stands for it
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22, 23: return .null
            case 25: return .double(Double(Self.half(UInt16(truncatingIfNeeded: argument))))
            case 26: return .double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: argument))))
            case 27: return .double(Double(bitPattern: argument))
            default: throw Failure(message: "unsupported simple value \(argument)")
            }
        }
    }

    private static func half(_ bits: UInt16) -> Float {
        let sign: Float = bits & 0x8000 == 0 ? 1 : -1
        let exponent = Int((bits >> 10) & 0x1F)
        let fraction = Float(bits & 0x3FF)
        switch exponent {
        case 0: return sign * fraction * Float(sign: .plus, exponent: -24, significand: 1)
        case 31: return fraction == 0 ? sign * .infinity : .nan
        default: return sign * (1 + fraction / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
        }
    }
}
