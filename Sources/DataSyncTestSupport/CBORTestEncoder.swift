/// A small CBOR (RFC 8949) writer for building Access Manager tokens, and deliberately broken
/// ones, in tests.
///
/// It writes what you describe and nothing more: lengths are minimal unless you pick a width,
/// indefinite-length forms are written only when asked for, and ``Item/raw(_:)`` inserts bytes
/// verbatim, so tests can build truncated or malformed data. It is test support: it checks
/// nothing.
///
/// ```swift
/// let bytes = CBORTestEncoder.encode(.map([(.bytes("v"), .unsigned(2))]))
/// let text = CBORTestEncoder.base64URL(bytes)
/// ```
public enum CBORTestEncoder {
    /// One CBOR data item to write.
    public indirect enum Item: Sendable {
        /// An unsigned integer in its shortest form.
        case unsigned(UInt64)
        /// An unsigned integer whose argument takes exactly `width` bytes (0 for the initial
        /// byte alone, then 1, 2, 4 or 8).
        case unsignedWidth(UInt64, width: Int)
        /// The integer `-1 - n`.
        case negative(UInt64)
        /// A byte string.
        case byteString([UInt8])
        /// A text string.
        case text(String)
        /// A byte string written as indefinite-length chunks.
        case indefiniteByteString([[UInt8]])
        /// A text string written as indefinite-length chunks.
        case indefiniteText([String])
        /// An array.
        case array([Item])
        /// An indefinite-length array.
        case indefiniteArray([Item])
        /// A map, entries in the given order (duplicates are written as given).
        case map([(Item, Item)])
        /// An indefinite-length map.
        case indefiniteMap([(Item, Item)])
        /// A tagged item.
        case tag(UInt64, Item)
        /// `true` or `false`.
        case bool(Bool)
        /// `null`.
        case null
        /// `undefined`.
        case undefined
        /// A simple value (one-byte form for 24…255).
        case simple(UInt8)
        /// A half-precision float, given by its bit pattern.
        case half(UInt16)
        /// A single-precision float.
        case float(Float)
        /// A double-precision float.
        case double(Double)
        /// Bytes written verbatim, for malformed input.
        case raw([UInt8])

        /// A byte string holding the UTF-8 of `text`, the form token keys take.
        public static func bytes(_ text: String) -> Item { .byteString(Array(text.utf8)) }
    }

    /// The bytes of `item`, exactly as described (nothing is checked, so malformed items give
    /// malformed bytes).
    public static func encode(_ item: Item) -> [UInt8] {
        var output: [UInt8] = []
        write(item, to: &output)
        return output
    }

    /// `bytes` in base64url, without `=` padding unless `padded` is true.
    public static func base64URL(_ bytes: [UInt8], padded: Bool = false) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << UInt32(16 - 8 * $1.offset) }
            for position in 0..<(chunk.count + 1) {
                output.append(alphabet[Int(value >> UInt32(18 - 6 * position) & 0x3F)])
            }
            if padded {
                output.append(contentsOf: Array(repeating: UInt8(ascii: "="), count: 3 - chunk.count))
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A token map in the layout the service mints: byte-string keys `v`, `t`, `ttl`, `res`,
    /// `pat`, `meta`, `uuid` (when given) and `sig`; bucket and resource names as given.
    ///
    /// - Parameters:
    ///   - version: The token format version under `v`; the service mints 2, and other values let
    ///     a test check that the parser refuses them.
    ///   - issuedAt: When the token was minted (`t`), in seconds since 1970.
    ///   - ttl: How long the token is valid after `issuedAt` (`ttl`), in minutes.
    ///   - resources: Bucket key (`chan`, `datasync:entities`, …) to resource name to permission
    ///     bit mask; empty for a token that grants nothing by name.
    ///   - patterns: The same for patterns (regular expressions over resource names).
    ///   - meta: The `meta` map, already as an item (use ``Item/map(_:)`` with text keys).
    ///   - authorizedUUID: The only user id allowed to use the token (`uuid`); `nil` leaves the key
    ///     out, as for a token any user may use.
    ///   - signature: The bytes under `sig`; nobody checks them on the client, so the default of 32
    ///     filler bytes serves every test.
    public static func token(
        version: UInt64 = 2, issuedAt: UInt64, ttl: UInt64,
        resources: [(String, [(String, UInt64)])] = [], patterns: [(String, [(String, UInt64)])] = [],
        meta: Item = .map([]), authorizedUUID: String? = nil, signature: [UInt8] = Array(repeating: 0xAB, count: 32)
    ) -> Item {
        func grants(_ buckets: [(String, [(String, UInt64)])]) -> Item {
            .map(buckets.map { bucket in (.bytes(bucket.0), .map(bucket.1.map { (.text($0.0), .unsigned($0.1)) })) })
        }
        var entries: [(Item, Item)] = [
            (.bytes("v"), .unsigned(version)),
            (.bytes("t"), .unsigned(issuedAt)),
            (.bytes("ttl"), .unsigned(ttl)),
            (.bytes("res"), grants(resources)),
            (.bytes("pat"), grants(patterns)),
            (.bytes("meta"), meta),
        ]
        if let authorizedUUID { entries.append((.bytes("uuid"), .text(authorizedUUID))) }
        entries.append((.bytes("sig"), .byteString(signature)))
        return .map(entries)
    }

    private static func head(_ major: UInt8, _ argument: UInt64, to output: inout [UInt8]) {
        switch argument {
        case 0..<24: head(major, argument, width: 0, to: &output)
        case 24...0xFF: head(major, argument, width: 1, to: &output)
        case 0x100...0xFFFF: head(major, argument, width: 2, to: &output)
        case 0x1_0000...0xFFFF_FFFF: head(major, argument, width: 4, to: &output)
        default: head(major, argument, width: 8, to: &output)
        }
    }

    private static func head(_ major: UInt8, _ argument: UInt64, width: Int, to output: inout [UInt8]) {
        let info: UInt8
        switch width {
        case 0: info = UInt8(truncatingIfNeeded: argument & 0x1F)
        case 1: info = 24
        case 2: info = 25
        case 4: info = 26
        default: info = 27
        }
        output.append(major << 5 | info)
        let byteCount = width == 0 ? 0 : (width == 1 || width == 2 || width == 4 ? width : 8)
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            output.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift)))
        }
    }

    private static func write(_ item: Item, to output: inout [UInt8]) {
        switch item {
        case .unsigned(let value):
            head(0, value, to: &output)
        case .unsignedWidth(let value, let width):
            head(0, value, width: width, to: &output)
        case .negative(let value):
            head(1, value, to: &output)
        case .byteString(let bytes):
            head(2, UInt64(bytes.count), to: &output)
            output.append(contentsOf: bytes)
        case .text(let text):
            head(3, UInt64(text.utf8.count), to: &output)
            output.append(contentsOf: text.utf8)
        case .indefiniteByteString(let chunks):
            output.append(0x5F)
            for chunk in chunks { write(.byteString(chunk), to: &output) }
            output.append(0xFF)
        case .indefiniteText(let chunks):
            output.append(0x7F)
            for chunk in chunks { write(.text(chunk), to: &output) }
            output.append(0xFF)
        case .array(let items):
            head(4, UInt64(items.count), to: &output)
            for element in items { write(element, to: &output) }
        case .indefiniteArray(let items):
            output.append(0x9F)
            for element in items { write(element, to: &output) }
            output.append(0xFF)
        case .map(let entries):
            head(5, UInt64(entries.count), to: &output)
            for (key, value) in entries {
                write(key, to: &output)
                write(value, to: &output)
            }
        case .indefiniteMap(let entries):
            output.append(0xBF)
            for (key, value) in entries {
                write(key, to: &output)
                write(value, to: &output)
            }
            output.append(0xFF)
        case .tag(let tag, let inner):
            head(6, tag, to: &output)
            write(inner, to: &output)
        case .bool(let flag):
            output.append(flag ? 0xF5 : 0xF4)
        case .null:
            output.append(0xF6)
        case .undefined:
            output.append(0xF7)
        case .simple(let value):
            if value < 24 {
                output.append(0xE0 | value)
            } else {
                output.append(contentsOf: [0xF8, value])
            }
        case .half(let bits):
            output.append(contentsOf: [0xF9, UInt8(bits >> 8), UInt8(bits & 0xFF)])
        case .float(let value):
            output.append(0xFA)
            appendBigEndian(UInt64(value.bitPattern), byteCount: 4, to: &output)
        case .double(let value):
            output.append(0xFB)
            appendBigEndian(value.bitPattern, byteCount: 8, to: &output)
        case .raw(let bytes):
            output.append(contentsOf: bytes)
        }
    }

    private static func appendBigEndian(_ value: UInt64, byteCount: Int, to output: inout [UInt8]) {
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
