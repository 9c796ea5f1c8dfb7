// This parser is ours rather than Foundation's JSONSerialization: it keeps integers and doubles
// apart without NSNumber guesswork, reports byte offsets, enforces a nesting limit, and in
// `datasync-bench` it is faster than JSONSerialization followed by a conversion to JSONValue
// (see Documentation/Benchmarks.md for the figures).

/// Options for parsing JSON text into ``JSONValue``.
public struct JSONParsingOptions: Sendable, Hashable {
    /// The deepest nesting of arrays and objects accepted. Deeper input throws
    /// ``JSONError/Code-swift.struct/nestingTooDeep`` instead of exhausting the stack.
    public var maximumDepth: Int
    /// Whether an object with a repeated key is an error (`true`) or the last value wins (`false`).
    public var rejectsDuplicateKeys: Bool

    /// Creates options; the defaults accept any document nested at most 512 deep and let the last
    /// of repeated keys win, as most JSON parsers do.
    ///
    /// - Parameters:
    ///   - maximumDepth: The deepest nesting of arrays and objects accepted; 512 by default. Deeper
    ///     input fails with `nestingTooDeep` instead of exhausting the stack.
    ///   - rejectsDuplicateKeys: Whether an object that repeats a key fails with `duplicateKey`;
    ///     `false` by default, when the last value wins.
    public init(maximumDepth: Int = 512, rejectsDuplicateKeys: Bool = false) {
        self.maximumDepth = maximumDepth
        self.rejectsDuplicateKeys = rejectsDuplicateKeys
    }
}

extension JSONValue {
    /// Parses one JSON document (RFC 8259) from UTF-8 bytes.
    ///
    /// White space may surround the document; anything else after it is an error. Any value may
    /// be the top level, including a bare string or number.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 text of one document, for example a response body; contiguous storage such
    ///     as `[UInt8]` is parsed without copying.
    ///   - options: The nesting limit and the duplicate-key rule; the defaults accept what the service
    ///     sends.
    /// - Throws: ``JSONError`` for invalid UTF-8, truncated or malformed input, numbers out of
    ///   range, and nesting deeper than `options.maximumDepth`.
    public init(parsing bytes: some Collection<UInt8>, options: JSONParsingOptions = JSONParsingOptions()) throws {
        let parsed = try bytes.withContiguousStorageIfAvailable { buffer in
            try JSONParser.parse(UnsafeRawBufferPointer(buffer), options: options)
        }
        if let parsed {
            self = parsed
        } else {
            let copy = Array(bytes)
            self = try copy.withUnsafeBytes { try JSONParser.parse($0, options: options) }
        }
    }

    /// Parses one JSON document from a string.
    ///
    /// - Parameters:
    ///   - text: The text of one document.
    ///   - options: The nesting limit and the duplicate-key rule; the defaults accept what the service
    ///     sends.
    /// - Throws: ``JSONError`` as ``init(parsing:options:)`` does.
    public init(parsing text: String, options: JSONParsingOptions = JSONParsingOptions()) throws {
        var text = text
        self = try text.withUTF8 { try JSONParser.parse(UnsafeRawBufferPointer($0), options: options) }
    }
}

private let quote: UInt8 = 0x22
private let backslash: UInt8 = 0x5C

/// A recursive-descent JSON parser over a contiguous byte buffer.
struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    var index: Int = 0
    var depth: Int = 0
    let options: JSONParsingOptions
    /// Scratch stacks shared by every nesting level: a container's members are collected here and
    /// moved out once, at their final size, instead of growing a fresh array or dictionary
    /// (growth and rehashing were a third of parse time).
    ///
    /// Raw storage (``ScratchStack``) rather than arrays: a push is a store and taking the values
    /// out is a move, with no uniqueness check and no placeholder to destroy per value.
    let elementStack = ScratchStack<JSONValue>()
    let memberStack = ScratchStack<JSONObject.Member>()
    /// A fingerprint of each collected member's name (see `fingerprint(_:count:)`), so the check
    /// for repeated names compares integers and looks at the names only when two prints agree.
    let memberPrints = ScratchStack<UInt64>()
    /// Member names already made into strings, by where their bytes are in the buffer: a payload
    /// repeats a few names in every object, and comparing a name's bytes with an earlier
    /// occurrence is cheaper than making (and for longer names allocating) a new `String`.
    /// Direct-mapped, allocated at the first name.
    var nameCache: [CachedName] = []

    struct CachedName {
        var start: Int
        var count: Int
        var name: String
    }

    /// A power of two. With 32 slots and the earlier slot function, the one-letter names of a
    /// subscribe answer shared four slots and missed almost every time.
    static let nameCacheSize = 64
    /// Longer names are made afresh every time.
    static let longestCachedName = 32

    static func parse(_ bytes: UnsafeRawBufferPointer, options: JSONParsingOptions) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes, options: options)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw parser.error(.trailingData, "expected the end of the document, found \(parser.describeCurrent())")
        }
        return value
    }

    init(bytes: UnsafeRawBufferPointer, options: JSONParsingOptions) {
        self.bytes = bytes
        self.options = options
    }

    func error(_ code: JSONError.Code, _ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(code: code, message: message, offset: offset ?? index)
    }

    func describeCurrent() -> String {
        guard index < bytes.count else { return "the end of the input" }
        let byte = bytes[index]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws -> JSONValue {
        guard index < bytes.count else {
            throw error(.unexpectedEnd, "expected a value, found the end of the input")
        }
        switch bytes[index] {
        case quote: return .string(try parseString())
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw error(.invalidNumber, "NaN and Infinity are not JSON numbers")
        default:
            throw error(.unexpectedCharacter, "expected a value, found \(describeCurrent())")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        let start = index
        for offset in 0..<count {
            let expected = literal.utf8Start[offset]
            guard start + offset < bytes.count else {
                throw error(.unexpectedEnd, "expected '\(literal)', found the end of the input", at: start + offset)
            }
            guard bytes[start + offset] == expected else {
                index = start + offset
                throw error(.unexpectedCharacter, "expected '\(literal)', found \(describeCurrent())")
            }
        }
        index = start + count
    }

    mutating func enterContainer() throws {
        depth += 1
        if depth > options.maximumDepth {
            throw error(.nestingTooDeep, "arrays and objects are nested deeper than \(options.maximumDepth) levels")
        }
    }

    mutating func parseArray() throws -> JSONValue {
        try enterContainer()
        index += 1  // [
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        let stack = elementStack
        let base = stack.count
        while true {
            skipWhitespace()
            stack.push(try parseValue())
            skipWhitespace()
            guard index < bytes.count else {
                throw error(.unexpectedEnd, "expected ',' or ']' in an array, found the end of the input")
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(moveElements(from: base))
            default:
                throw error(.unexpectedCharacter, "expected ',' or ']' in an array, found \(describeCurrent())")
            }
        }
    }

    mutating func parseObject() throws -> JSONValue {
        try enterContainer()
        index += 1  // {
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        let stack = memberStack
        let prints = memberPrints
        let base = stack.count
        while true {
            skipWhitespace()
            guard index < bytes.count else {
                throw error(.unexpectedEnd, "expected a key string in an object, found the end of the input")
            }
            guard bytes[index] == quote else {
                throw error(.unexpectedCharacter, "expected a key string in an object, found \(describeCurrent())")
            }
            let (key, print) = try parseName()
            skipWhitespace()
            guard index < bytes.count else {
                throw error(.unexpectedEnd, "expected ':' after an object key, found the end of the input")
            }
            guard bytes[index] == UInt8(ascii: ":") else {
                throw error(.unexpectedCharacter, "expected ':' after an object key, found \(describeCurrent())")
            }
            index += 1
            skipWhitespace()
            stack.push(JSONObject.Member(key: JSONObject.MemberName(key), value: try parseValue()))
            prints.push(print)
            skipWhitespace()
            guard index < bytes.count else {
                throw error(.unexpectedEnd, "expected ',' or '}' in an object, found the end of the input")
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                let members = try collectMembers(from: base)
                return .object(members)
            default:
                throw error(.unexpectedCharacter, "expected ',' or '}' in an object, found \(describeCurrent())")
            }
        }
    }

    /// Moves the elements collected since `base` into an array of their own.
    mutating func moveElements(from base: Int) -> [JSONValue] {
        let stack = elementStack
        var elements: [JSONValue] = []
        elements.reserveCapacity(stack.count - base)
        for position in base..<stack.count { elements.append(stack.moveElement(at: position)) }
        stack.forget(from: base)
        return elements
    }

    /// Moves the members collected since `base` into an object sized once: a small object's array
    /// (names compared, not hashed) up to `JSONObject.smallObjectLimit` members, a dictionary
    /// beyond. A repeated key keeps its first position and its last value, or is an error when the
    /// options say so.
    mutating func collectMembers(from base: Int) throws -> JSONObject {
        let stack = memberStack
        let end = stack.count
        let count = end - base
        if count <= JSONObject.smallObjectLimit {
            if let members = moveDistinctMembers(from: base) { return JSONObject(smallMembers: members) }
            var members = ContiguousArray<JSONObject.Member>()
            members.reserveCapacity(count)
            for position in base..<end {
                let member = stack[position]
                if let existing = JSONObject.position(of: member.key, in: members) {
                    if options.rejectsDuplicateKeys {
                        throw error(.duplicateKey, "the key \"\(member.key.string)\" appears twice in one object")
                    }
                    members[existing].value = member.value
                } else {
                    members.append(member)
                }
            }
            releaseMembers(from: base)
            return JSONObject(smallMembers: members)
        }
        var members = [JSONObject.MemberName: JSONValue](minimumCapacity: count)
        for position in base..<end {
            let member = stack[position]
            if members.updateValue(member.value, forKey: member.key) != nil && options.rejectsDuplicateKeys {
                throw error(.duplicateKey, "the key \"\(member.key.string)\" appears twice in one object")
            }
        }
        releaseMembers(from: base)
        return JSONObject(storage: members)
    }

    /// Destroys the members collected from `base` on (and their prints).
    mutating func releaseMembers(from base: Int) {
        memberStack.removeAll(from: base)
        memberPrints.removeAll(from: base)
    }

    /// The members collected since `base`, moved (not copied: no reference counting per member)
    /// into an array of their own, when their names are all distinct; nil, with the stack
    /// untouched, when a name repeats.
    mutating func moveDistinctMembers(from base: Int) -> ContiguousArray<JSONObject.Member>? {
        let stack = memberStack
        let prints = memberPrints
        let end = stack.count
        let distinct = prints.withElements { prints in
            stack.withElements { stack in
                for later in base..<end {
                    for earlier in base..<later
                    where prints[earlier] == prints[later] && stack[earlier].key == stack[later].key {
                        return false
                    }
                }
                return true
            }
        }
        guard distinct else { return nil }
        // Appending to a reserved array keeps the allocation specialised (building one through
        // `init(unsafeUninitializedCapacity:)` goes through the standard library's unspecialised
        // buffer initialiser and a run-time metadata lookup, some 500 instructions per object).
        var members = ContiguousArray<JSONObject.Member>()
        members.reserveCapacity(end - base)
        for position in base..<end { members.append(stack.moveElement(at: position)) }
        stack.forget(from: base)
        prints.removeAll(from: base)
        return members
    }

    /// A member name: plain ASCII names (no escapes) of up to `longestCachedName` bytes come from
    /// `nameCache` when the same bytes were seen before; anything else is read by `parseString`.
    mutating func parseName() throws -> (name: String, print: UInt64) {
        let start = index + 1
        var position = start
        let limit = Swift.min(bytes.count, start + Self.longestCachedName + 1)
        while position < limit {
            let byte = bytes[position]
            if byte == quote {
                let count = position - start
                index = position + 1
                let print = Self.fingerprint(UnsafeRawBufferPointer(rebasing: bytes[start..<position]), count: count)
                return (cachedName(start: start, count: count), print)
            }
            guard byte >= 0x20, byte < 0x80, byte != backslash else { break }
            position += 1
        }
        let name = try parseString()
        return (name, Self.fingerprint(name.utf8, count: name.utf8.count))
    }

    /// The byte count of a name's UTF-8 in the top byte and its first seven bytes below: equal
    /// names have equal prints, so different prints mean different names.
    @inline(__always)
    static func fingerprint(_ utf8: some Sequence<UInt8>, count: Int) -> UInt64 {
        var print = UInt64(truncatingIfNeeded: count) << 56
        var shift: UInt64 = 0
        for byte in utf8.prefix(7) {
            print |= UInt64(byte) << shift
            shift += 8
        }
        return print
    }

    /// The plain ASCII name at `bytes[start..<start + count]`, from the cache or made and cached.
    @inline(__always)
    mutating func cachedName(start: Int, count: Int) -> String {
        if nameCache.isEmpty {
            nameCache = Array(repeating: CachedName(start: 0, count: -1, name: ""), count: Self.nameCacheSize)
        }
        let first = count > 0 ? Int(bytes[start]) : 0
        let last = count > 0 ? Int(bytes[start + count - 1]) : 0
        // A one-letter name lands in slot 10 × byte + 16 (mod 64), so 'a' to 'z' get 26
        // different slots (the earlier 8 × byte + 13 mod 32 put them in four).
        let slot = (first &* 3 &+ last &* 7 &+ count &* 16) & (Self.nameCacheSize - 1)
        let hit = nameCache.withUnsafeBufferPointer { cache in
            cache[slot].count == count && JSONValueReader.bytesEqual(bytes, cache[slot].start, start, count: count)
        }
        if hit { return nameCache[slot].name }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]), as: UTF8.self)
        nameCache[slot] = CachedName(start: start, count: count, name: name)
        return name
    }

    mutating func parseString() throws -> String {
        let openQuote = index
        index += 1
        let start = index
        // Fast path: scan to the closing quote; if there is no escape, validate the slice once
        // (and not at all when every byte was ASCII).
        var sawNonASCII = false
        // Eight bytes at a time while none of them ends the fast path; the byte loop below finds
        // which byte of the last word did.
        while index + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if Self.holdsQuoteBackslashOrControl(word) { break }
            sawNonASCII = sawNonASCII || word & 0x8080_8080_8080_8080 != 0
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if !sawNonASCII { return String(decoding: slice, as: UTF8.self) }
                return try makeString(slice, at: start)
            }
            sawNonASCII = sawNonASCII || byte >= 0x80
            if byte == backslash { break }
            if byte < 0x20 {
                throw error(.controlCharacterInString, "control characters must be escaped inside strings")
            }
            index += 1
        }
        guard index < bytes.count else {
            throw error(.unexpectedEnd, "unterminated string starting", at: openQuote)
        }
        // Slow path with escapes: collect UTF-8 bytes, then validate.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(index - start + 16)
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                index += 1
                return try buffer.withUnsafeBytes { try makeString($0, at: start) }
            }
            if byte < 0x20 {
                throw error(.controlCharacterInString, "control characters must be escaped inside strings")
            }
            if byte != backslash {
                buffer.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case quote: buffer.append(quote)
            case backslash: buffer.append(backslash)
            case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                let scalar = try parseUnicodeEscape()
                appendUTF8(scalar, to: &buffer)
            default:
                index -= 2
                throw error(.invalidEscape, "'\\\(Character(Unicode.Scalar(escape)))' is not a JSON escape")
            }
        }
        throw error(.unexpectedEnd, "unterminated string starting", at: openQuote)
    }

    /// Whether any byte of `word` is `"`, `\` or below 0x20: the bytes a string scan must stop
    /// at. Each test is the exact "some byte is zero / below n" bit trick, so no byte is missed
    /// and none is reported falsely.
    @inline(__always)
    static func holdsQuoteBackslashOrControl(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(quote))
        let backslashes = word ^ (ones &* UInt64(backslash))
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl) & highBits != 0
    }

    func makeString(_ slice: UnsafeRawBufferPointer, at offset: Int) throws -> String {
        // ASCII needs no validation; anything else is validated by the standard library.
        var isASCII = true
        for byte in slice where byte >= 0x80 {
            isASCII = false
            break
        }
        if isASCII { return String(decoding: slice, as: UTF8.self) }
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw error(.invalidUTF8, "a string is not valid UTF-8", at: offset)
        }
        return string
    }

    mutating func parseHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else {
            throw error(.unexpectedEnd, "expected four hex digits after '\\u', found the end of the input")
        }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw error(.invalidEscape, "expected a hex digit in '\\u' escape, found \(describeCurrent())")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    mutating func parseUnicodeEscape() throws -> Unicode.Scalar {
        let escapeStart = index - 2
        let first = try parseHex4()
        if first >= 0xD800 && first <= 0xDBFF {
            guard index + 1 < bytes.count, bytes[index] == backslash, bytes[index + 1] == UInt8(ascii: "u") else {
                throw error(
                    .invalidEscape, "a high surrogate escape must be followed by a low surrogate", at: escapeStart)
            }
            index += 2
            let second = try parseHex4()
            guard second >= 0xDC00 && second <= 0xDFFF else {
                throw error(
                    .invalidEscape, "a high surrogate escape must be followed by a low surrogate", at: escapeStart)
            }
            let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            guard let scalar = Unicode.Scalar(combined) else {
                throw error(.invalidEscape, "invalid surrogate pair", at: escapeStart)
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else {
            throw error(.invalidEscape, "a lone low surrogate is not a character", at: escapeStart)
        }
        return scalar
    }

    func appendUTF8(_ scalar: Unicode.Scalar, to buffer: inout [UInt8]) {
        UTF8.encode(scalar) { buffer.append($0) }
    }

    mutating func parseNumber() throws -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") {
            index += 1
        }
        guard index < bytes.count else {
            throw error(.unexpectedEnd, "expected a digit, found the end of the input")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error(.invalidNumber, "numbers cannot have leading zeros", at: start)
            }
        } else if isDigit(bytes[index]) {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        } else if bytes[index] == UInt8(ascii: "I") {
            throw error(.invalidNumber, "Infinity is not a JSON number", at: start)
        } else {
            throw error(.invalidNumber, "expected a digit, found \(describeCurrent())")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error(.invalidNumber, "expected a digit after '.', found \(describeCurrent())")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error(.invalidNumber, "expected a digit in the exponent, found \(describeCurrent())")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let integer = parseInt64(text) {
            return .int(integer)
        }
        if let fast = Self.fastDouble(text) {
            return .double(fast)
        }
        let string = String(decoding: text, as: UTF8.self)
        guard let double = Double(string) else {
            throw error(.invalidNumber, "'\(string)' is not a number", at: start)
        }
        guard double.isFinite else {
            throw error(.numberOutOfRange, "'\(string)' is too large for a 64-bit floating-point number", at: start)
        }
        return .double(double)
    }

    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// Clinger's fast path: when the decimal digits form an integer below 2^53 and the decimal
    /// exponent is within ±22, both operands are exact doubles and one IEEE multiplication or
    /// division gives the correctly rounded result. Anything else returns nil and takes the
    /// standard library's full conversion.
    static func fastDouble(_ text: UnsafeRawBufferPointer) -> Double? {
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var negative = false
        var index = 0
        if index < text.count, text[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var seenDot = false
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                seenDot = true
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                if digits > 15 { return nil }
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                if seenDot { exponent -= 1 }
            } else {
                break
            }
            index += 1
        }
        if index < text.count {
            // An exponent part: e/E, optional sign, digits.
            index += 1
            var exponentNegative = false
            if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            var written = 0
            while index < text.count {
                written = written * 10 + Int(text[index] - UInt8(ascii: "0"))
                if written > 400 { return nil }
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }
        guard exponent >= -22 && exponent <= 22 else { return nil }
        var value = Double(mantissa)
        if exponent < 0 {
            value /= exactPowersOfTen[-exponent]
        } else {
            value *= exactPowersOfTen[exponent]
        }
        return negative ? -value : value
    }

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Parses a validated integer literal; `nil` when it overflows `Int64`.
    func parseInt64(_ text: UnsafeRawBufferPointer) -> Int64? {
        var iterator = text.makeIterator()
        var negative = false
        var value: Int64 = 0
        var first = iterator.next()
        if first == UInt8(ascii: "-") {
            negative = true
            first = iterator.next()
        }
        var next = first
        while let byte = next {
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) =
                negative
                ? multiplied.subtractingReportingOverflow(digit) : multiplied.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = added
            next = iterator.next()
        }
        return value
    }
}

/// Values a parser has collected for the containers it is inside: raw storage whose first
/// `count` slots hold values, so that a push is a store and a container's values leave by a move.
/// Values still held when the stack goes away (a parse that threw) are destroyed then.
final class ScratchStack<Element> {
    private(set) var count = 0
    private var capacity: Int
    private var storage: UnsafeMutablePointer<Element>

    init() {
        capacity = 16
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    @inline(__always)
    func push(_ element: Element) {
        if count == capacity { grow() }
        (storage + count).initialize(to: element)
        count += 1
    }

    private func grow() {
        let larger = capacity * 2
        let replacement = UnsafeMutablePointer<Element>.allocate(capacity: larger)
        replacement.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = replacement
        capacity = larger
    }

    /// A copy of the value at `position`, which must be below `count`.
    @inline(__always)
    subscript(position: Int) -> Element { storage[position] }

    /// The slots in use, for reading.
    @inline(__always)
    func withElements<Result>(_ body: (UnsafeBufferPointer<Element>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage, count: count))
    }

    /// Moves the value at `position` (below `count`) out. The slot is left uninitialised: the
    /// caller moves out every value from some base and then calls ``forget(from:)`` with it.
    @inline(__always)
    func moveElement(at position: Int) -> Element { (storage + position).move() }

    /// Drops the slots from `base` on, whose values were all moved out.
    @inline(__always)
    func forget(from base: Int) { count = base }

    /// Destroys the values from `base` on.
    func removeAll(from base: Int) {
        (storage + base).deinitialize(count: count - base)
        count = base
    }
}
