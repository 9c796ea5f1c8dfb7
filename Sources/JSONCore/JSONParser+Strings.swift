/// Member names and strings: the cached-name fast path, escapes and UTF-8 validation.
extension JSONParser {
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
            if objectsBegun < 2 {
                return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]), as: UTF8.self)
            }
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
            guard let digit = HexDigit.value(bytes[index]) else {
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
}
