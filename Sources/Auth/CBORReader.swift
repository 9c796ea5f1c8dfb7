/// A strict, bounded CBOR (RFC 8949) reader written for Access Manager tokens.
///
/// It accepts every well-formed encoding of: integers of all sizes, byte and text strings and
/// arrays and maps of definite or indefinite length, tags, simple values and half, single and
/// double floats. Map keys must be byte or text strings (tokens use byte-string keys). Anything
/// else, truncated input, trailing bytes, nesting deeper than ``maximumDepth`` or a declared
/// length larger than the bytes left is a thrown ``AuthError``, never a crash and never a large
/// allocation.
package struct CBORReader {
    /// The deepest nesting of arrays, maps and tags accepted.
    package static let defaultMaximumDepth = 32
    /// Declared lengths above this are reported as over the limit rather than as truncation.
    package static let maximumDeclaredLength: UInt64 = 1 << 20

    private let bytes: [UInt8]
    private var position = 0
    private let maximumDepth: Int

    private init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// Decodes exactly one item from `bytes`.
    ///
    /// - Throws: ``AuthError`` when the bytes are empty, truncated, malformed, hold more than one
    ///   item, or exceed the limits.
    package static func decode(
        _ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth
    ) throws(AuthError) -> CBORValue {
        guard !bytes.isEmpty else {
            throw AuthError(code: .truncated, message: "no CBOR data", offset: 0)
        }
        var reader = CBORReader(bytes: bytes, maximumDepth: maximumDepth)
        let value = try reader.readItem(depth: 0)
        guard reader.position == bytes.count else {
            throw AuthError(
                code: .malformedCBOR,
                message: "\(bytes.count - reader.position) unexpected bytes after the CBOR item",
                offset: reader.position)
        }
        return value
    }

    /// `bytes` as a string when they are valid UTF-8, otherwise `nil`.
    package static func utf8String(_ bytes: some Collection<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        // Decoding repairs bad sequences with U+FFFD; a round trip that changes the bytes shows it.
        guard text.utf8.elementsEqual(bytes) else { return nil }
        return text
    }

    private static let breakByte: UInt8 = 0xFF

    private mutating func readByte() throws(AuthError) -> UInt8 {
        guard position < bytes.count else {
            throw AuthError(code: .truncated, message: "the CBOR data ends in the middle of an item", offset: position)
        }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func readUInt(byteCount: Int) throws(AuthError) -> UInt64 {
        guard bytes.count - position >= byteCount else {
            throw AuthError(
                code: .truncated, message: "the CBOR data ends inside a \(byteCount)-byte argument", offset: position)
        }
        var value: UInt64 = 0
        for index in position..<position + byteCount {
            value = value << 8 | UInt64(bytes[index])
        }
        position += byteCount
        return value
    }

    /// Reads the argument that follows an initial byte with `info` as its low five bits.
    private mutating func readArgument(_ info: UInt8, at start: Int) throws(AuthError) -> UInt64 {
        switch info {
        case 0...23: return UInt64(info)
        case 24: return try readUInt(byteCount: 1)
        case 25: return try readUInt(byteCount: 2)
        case 26: return try readUInt(byteCount: 4)
        case 27: return try readUInt(byteCount: 8)
        default:
            throw AuthError(
                code: .malformedCBOR, message: "reserved additional information value \(info)", offset: start)
        }
    }

    /// Checks that `length` elements of at least `minimumSize` bytes each can fit in what is left,
    /// so no declared length can make the reader reserve memory the input cannot back.
    private func checkLength(_ length: UInt64, minimumSize: UInt64, at start: Int) throws(AuthError) -> Int {
        let remaining = UInt64(bytes.count - position)
        let (needed, overflow) = length.multipliedReportingOverflow(by: minimumSize)
        guard !overflow, needed <= remaining else {
            // A length no token could need is reported as such; a plausible one means cut data.
            if length > Self.maximumDeclaredLength {
                throw AuthError(
                    code: .limitExceeded,
                    message: "declared length \(length) is beyond the limit of \(Self.maximumDeclaredLength)",
                    offset: start)
            }
            throw AuthError(
                code: .truncated,
                message: "declared length \(length) needs more than the \(remaining) bytes left", offset: start)
        }
        return Int(length)
    }

    private mutating func readItem(depth: Int) throws(AuthError) -> CBORValue {
        let start = position
        let initial = try readByte()
        let major = initial >> 5
        let info = initial & 0x1F
        switch major {
        case 0:
            return .unsigned(try readArgument(info, at: start))
        case 1:
            return .negative(try readArgument(info, at: start))
        case 2:
            return .byteString(try readString(major: 2, info: info, at: start))
        case 3:
            let raw = try readString(major: 3, info: info, at: start)
            guard let text = Self.utf8String(raw) else {
                throw AuthError(code: .malformedCBOR, message: "a text string is not valid UTF-8", offset: start)
            }
            return .textString(text)
        case 4:
            try checkDepth(depth, at: start)
            return .array(try readArray(info: info, depth: depth, at: start))
        case 5:
            try checkDepth(depth, at: start)
            return .map(try readMap(info: info, depth: depth, at: start))
        case 6:
            try checkDepth(depth, at: start)
            let tag = try readArgument(info, at: start)
            return .tagged(tag, try readItem(depth: depth + 1))
        default:
            return try readSimpleOrFloat(info: info, at: start)
        }
    }

    private func checkDepth(_ depth: Int, at start: Int) throws(AuthError) {
        guard depth < maximumDepth else {
            throw AuthError(
                code: .limitExceeded, message: "CBOR nesting is deeper than \(maximumDepth) levels", offset: start)
        }
    }

    private mutating func readString(major: UInt8, info: UInt8, at start: Int) throws(AuthError) -> [UInt8] {
        guard info == 31 else {
            // The argument is read first: `checkLength` must see the position after it.
            let declared = try readArgument(info, at: start)
            let length = try checkLength(declared, minimumSize: 1, at: start)
            defer { position += length }
            return Array(bytes[position..<position + length])
        }
        // Indefinite length: definite-length chunks of the same major type until a break.
        var joined: [UInt8] = []
        while true {
            let chunkStart = position
            let initial = try readByte()
            if initial == Self.breakByte { return joined }
            guard initial >> 5 == major, initial & 0x1F != 31 else {
                throw AuthError(
                    code: .malformedCBOR,
                    message: "an indefinite-length string holds a chunk that is not a definite string of its type",
                    offset: chunkStart)
            }
            let declared = try readArgument(initial & 0x1F, at: chunkStart)
            let length = try checkLength(declared, minimumSize: 1, at: chunkStart)
            joined.append(contentsOf: bytes[position..<position + length])
            position += length
        }
    }

    private mutating func atBreak() throws(AuthError) -> Bool {
        guard position < bytes.count else {
            throw AuthError(
                code: .truncated, message: "the CBOR data ends before an indefinite-length item's break",
                offset: position)
        }
        if bytes[position] == Self.breakByte {
            position += 1
            return true
        }
        return false
    }

    private mutating func readArray(info: UInt8, depth: Int, at start: Int) throws(AuthError) -> [CBORValue] {
        var items: [CBORValue] = []
        if info == 31 {
            while try !atBreak() {
                items.append(try readItem(depth: depth + 1))
            }
            return items
        }
        let declared = try readArgument(info, at: start)
        let count = try checkLength(declared, minimumSize: 1, at: start)
        items.reserveCapacity(count)
        for _ in 0..<count {
            items.append(try readItem(depth: depth + 1))
        }
        return items
    }

    private mutating func readMap(info: UInt8, depth: Int, at start: Int) throws(AuthError) -> [CBORValue.Entry] {
        var entries: [CBORValue.Entry] = []
        if info == 31 {
            while try !atBreak() {
                entries.append(try readEntry(depth: depth))
            }
            return entries
        }
        let declared = try readArgument(info, at: start)
        let count = try checkLength(declared, minimumSize: 2, at: start)
        entries.reserveCapacity(count)
        for _ in 0..<count {
            entries.append(try readEntry(depth: depth))
        }
        return entries
    }

    private mutating func readEntry(depth: Int) throws(AuthError) -> CBORValue.Entry {
        let keyStart = position
        let key = try readItem(depth: depth + 1)
        switch key {
        case .byteString, .textString:
            break
        default:
            throw AuthError(
                code: .unsupportedCBOR,
                message: "a map key is a \(key.typeName); only byte or text strings are accepted",
                offset: keyStart)
        }
        return CBORValue.Entry(key: key, value: try readItem(depth: depth + 1))
    }

    private mutating func readSimpleOrFloat(info: UInt8, at start: Int) throws(AuthError) -> CBORValue {
        switch info {
        case 0...19:
            return .simple(info)
        case 20:
            return .bool(false)
        case 21:
            return .bool(true)
        case 22:
            return .null
        case 23:
            return .undefined
        case 24:
            let value = try readByte()
            guard value >= 32 else {
                throw AuthError(
                    code: .malformedCBOR, message: "simple value \(value) must use the one-byte form", offset: start)
            }
            return .simple(value)
        case 25:
            return .float(Self.halfToDouble(UInt16(try readUInt(byteCount: 2))))
        case 26:
            return .float(Double(Float(bitPattern: UInt32(try readUInt(byteCount: 4)))))
        case 27:
            return .float(Double(bitPattern: try readUInt(byteCount: 8)))
        case 31:
            throw AuthError(code: .malformedCBOR, message: "a break outside an indefinite-length item", offset: start)
        default:
            throw AuthError(
                code: .malformedCBOR, message: "reserved additional information value \(info)", offset: start)
        }
    }

    /// Widens an IEEE 754 half-precision float (RFC 8949 appendix D).
    package static func halfToDouble(_ bits: UInt16) -> Double {
        let exponent = Int(bits >> 10) & 0x1F
        let mantissa = Double(bits & 0x3FF)
        let magnitude: Double
        switch exponent {
        case 0: magnitude = mantissa * 0x1p-24
        case 31: magnitude = mantissa == 0 ? .infinity : .nan
        default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return bits & 0x8000 != 0 ? -magnitude : magnitude
    }
}
