/// One decoded CBOR data item (RFC 8949), as read by ``CBORReader``.
package indirect enum CBORValue: Sendable, Hashable {
    /// A map entry. Keys are always ``byteString(_:)`` or ``textString(_:)``.
    package struct Entry: Sendable, Hashable {
        /// The key.
        package var key: CBORValue
        /// The value.
        package var value: CBORValue

        /// Creates an entry.
        package init(key: CBORValue, value: CBORValue) {
            self.key = key
            self.value = value
        }
    }

    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer `-1 - n`, stored as `n` so the whole range fits.
    case negative(UInt64)
    /// Major type 2: a byte string (indefinite-length chunks already joined).
    case byteString([UInt8])
    /// Major type 3: a UTF-8 text string (indefinite-length chunks already joined).
    case textString(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, entries in the order they were read.
    case map([Entry])
    /// Major type 6: a tagged item.
    case tagged(UInt64, CBORValue)
    /// `false` or `true` (simple values 20 and 21).
    case bool(Bool)
    /// `null` (simple value 22).
    case null
    /// `undefined` (simple value 23).
    case undefined
    /// Any other simple value (0…19, 32…255).
    case simple(UInt8)
    /// A half, single or double precision float, widened to `Double`.
    case float(Double)

    /// A name for the item's type, for error messages.
    package var typeName: String {
        switch self {
        case .unsigned, .negative: return "integer"
        case .byteString: return "byte string"
        case .textString: return "text string"
        case .array: return "array"
        case .map: return "map"
        case .tagged: return "tagged item"
        case .bool: return "boolean"
        case .null: return "null"
        case .undefined: return "undefined"
        case .simple: return "simple value"
        case .float: return "float"
        }
    }

    /// The item with any tags removed.
    package var untagged: CBORValue {
        var value = self
        while case .tagged(_, let inner) = value { value = inner }
        return value
    }

    /// The string a map key stands for: text as is, byte strings read as UTF-8.
    package var keyString: String? {
        switch untagged {
        case .textString(let text): return text
        case .byteString(let bytes): return CBORReader.utf8String(bytes)
        default: return nil
        }
    }
}
