import JSONCore

/// The lexer proper, over the UTF-8 bytes of the source for the duration of one parse (or one
/// ``FilterTokenizer/next()`` call).
///
/// Every read of `bytes` is behind a check of `position` (or the index) against `bytes.count`:
/// the buffer is unchecked in optimised builds.
struct FilterLexer {
    let bytes: UnsafeBufferPointer<UInt8>
    let source: String
    var position: Int
    /// The decoded content of the last string token that had escapes.
    private(set) var decoded: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, source: String, position: Int = 0) {
        self.bytes = bytes
        self.source = source
        self.position = position
    }

    /// The text of an identifier token.
    func identifier(_ token: RawToken) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self)
    }

    /// The decoded value of the string token just read (call before reading the next token).
    func stringValue(_ token: RawToken) -> String {
        if token.hasEscapes { return String(decoding: decoded, as: UTF8.self) }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[token.start + 1..<token.end - 1]), as: UTF8.self)
    }

    /// The public form of the token just read.
    func publicKind(of token: RawToken) -> FilterToken.Kind {
        switch token.kind {
        case .identifier: return .identifier(identifier(token))
        case .string: return .string(stringValue(token))
        case .integer: return .integer(token.integer)
        case .double: return .double(token.double)
        case .true: return .true
        case .false: return .false
        case .null: return .null
        case .op: return .op(token.op)
        case .and: return .and
        case .or: return .or
        case .not: return .not
        case .leftParenthesis: return .leftParenthesis
        case .rightParenthesis: return .rightParenthesis
        case .endOfInput: return .endOfInput
        }
    }

    /// Reads the next token.
    mutating func next() throws(FilterError) -> RawToken {
        skipWhitespace()
        let start = position
        guard position < bytes.count else { return RawToken(.endOfInput, start: start, end: start) }
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "("):
            position += 1
            return RawToken(.leftParenthesis, start: start, end: position)
        case UInt8(ascii: ")"):
            position += 1
            return RawToken(.rightParenthesis, start: start, end: position)
        case UInt8(ascii: "="):
            if peek(1) == UInt8(ascii: "=") { return op(.equal, length: 2) }
            throw unexpectedCharacter(at: start, hint: "did you mean '=='?")
        case UInt8(ascii: "!"):
            if peek(1) == UInt8(ascii: "=") { return op(.notEqual, length: 2) }
            return symbol(.not, length: 1)
        case UInt8(ascii: "<"):
            if peek(1) == UInt8(ascii: "=") { return op(.lessOrEqual, length: 2) }
            return op(.less, length: 1)
        case UInt8(ascii: ">"):
            if peek(1) == UInt8(ascii: "=") { return op(.greaterOrEqual, length: 2) }
            return op(.greater, length: 1)
        case UInt8(ascii: "&"):
            if peek(1) == UInt8(ascii: "&") { return symbol(.and, length: 2) }
            throw unexpectedCharacter(at: start, hint: "did you mean '&&'?")
        case UInt8(ascii: "|"):
            if peek(1) == UInt8(ascii: "|") { return symbol(.or, length: 2) }
            throw unexpectedCharacter(at: start, hint: "did you mean '||'?")
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return try readString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try readNumber()
        default:
            if byte < 0x80 {
                if Self.isASCIIIdentifierStart(byte) { return readWord() }
                let hint: String? = byte == UInt8(ascii: ".") ? "properties are referenced by name, not by path" : nil
                throw unexpectedCharacter(at: start, length: 1, hint: hint)
            }
            return try readNonASCIIStart()
        }
    }

    // The Unicode property checks are kept out of line: inlined, they make every call of the
    // function that contains them set up the (resilient) property types, ASCII input or not.
    @inline(never)
    private mutating func readNonASCIIStart() throws(FilterError) -> RawToken {
        let start = position
        let (scalar, length) = decodeScalar(at: start)
        if Self.isIdentifierStart(scalar) { return readWord() }
        throw unexpectedCharacter(at: start, length: length, hint: nil)
    }

    // MARK: - Pieces

    private func peek(_ offset: Int) -> UInt8? {
        let index = position + offset
        return index < bytes.count ? bytes[index] : nil
    }

    private mutating func symbol(_ kind: RawToken.Kind, length: Int) -> RawToken {
        let start = position
        position += length
        return RawToken(kind, start: start, end: position)
    }

    private mutating func op(_ op: FilterOperator, length: Int) -> RawToken {
        var token = symbol(.op, length: length)
        token.op = op
        return token
    }

    // The scanning loops below advance a local index and store `position` once: stores through
    // `self` cannot be kept in a register, because the compiler cannot rule out that the buffer
    // and `self` overlap.
    private mutating func skipWhitespace() {
        var index = position
        scan: while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: break scan
            }
        }
        position = index
    }

    /// The index after the run of ASCII digits starting at `index`.
    private func digitsEnd(from index: Int) -> Int {
        var index = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        return index
    }

    /// Decodes the scalar starting at `index` (the bytes come from a Swift string, so they are
    /// valid UTF-8); returns the scalar and its length in bytes.
    private func decodeScalar(at index: Int) -> (Unicode.Scalar, Int) {
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        let end = min(index + length, bytes.count)
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
        return (text.unicodeScalars.first ?? "\u{FFFD}", end - index)
    }

    private mutating func readWord() -> RawToken {
        let start = position
        var index = position
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x80 {
                position = index
                skipNonASCIIWordTail()
                index = position
                break
            }
            guard Self.isASCIIIdentifierContinue(byte) else { break }
            index += 1
        }
        position = index
        let count = position - start
        let keyword: (kind: RawToken.Kind, op: FilterOperator?)?
        if count >= 2, count <= 5, start + 8 <= bytes.count, let base = bytes.baseAddress {
            // The word's bytes in one load, lower-cased by setting bit 5 of each. The word holds
            // letters, digits, `_` and non-ASCII bytes, and only a letter can become a letter that
            // way (digits keep their value, `_` becomes 0x7F, the rest stay above 0x7F), so the
            // packed word equals a keyword's exactly when the word is that keyword in any case.
            let mask: UInt64 = (1 << (8 * UInt64(count))) &- 1
            let word = UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
            keyword = Self.keyword(packed: (word | 0x2020_2020_2020_2020) & mask)
        } else {
            keyword = Self.keyword(for: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        }
        guard let keyword else {
            return RawToken(.identifier, start: start, end: position)
        }
        var token = RawToken(keyword.kind, start: start, end: position)
        if let op = keyword.op { token.op = op }
        return token
    }

    /// Continues a word from a non-ASCII character (see `readNonASCIIStart` for why out of line).
    @inline(never)
    private mutating func skipNonASCIIWordTail() {
        while position < bytes.count {
            let byte = bytes[position]
            if byte < 0x80 {
                guard Self.isASCIIIdentifierContinue(byte) else { return }
                position += 1
            } else {
                let (scalar, length) = decodeScalar(at: position)
                guard Self.isIdentifierContinue(scalar) else { return }
                position += length
            }
        }
    }

    /// The keyword spelled by `word` in any letter case, or `nil`. Works on the bytes directly (a
    /// word is a keyword only if it is 2–5 ASCII letters), so no string is built per word.
    static func keyword(for word: some Collection<UInt8>) -> (kind: RawToken.Kind, op: FilterOperator?)? {
        let count = word.count
        guard count >= 2, count <= 5 else { return nil }
        // Pack the lower-cased bytes into one integer, first byte in the lowest position; a
        // non-letter byte can never match because every keyword is letters only.
        var packed: UInt64 = 0
        var shift: UInt64 = 0
        for byte in word {
            let lower = byte | 0x20
            guard lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else { return nil }
            packed |= UInt64(lower) << shift
            shift += 8
        }
        return keyword(packed: packed)
    }

    /// The keyword whose lower-case letters, packed little-endian into an integer (first byte
    /// lowest), are `packed`, or `nil`.
    @inline(__always)
    static func keyword(packed: UInt64) -> (kind: RawToken.Kind, op: FilterOperator?)? {
        // The constants are the keywords packed that way.
        switch packed {
        case 0x656B_696C: return (.op, .like)  // "like"
        case 0x65_6B69_6C73: return (.op, .slike)  // "slike"
        case 0x65_6B69_6C69: return (.op, .ilike)  // "ilike"
        case 0x646E61: return (.and, nil)  // "and"
        case 0x726F: return (.or, nil)  // "or"
        case 0x746F6E: return (.not, nil)  // "not"
        case 0x6575_7274: return (.true, nil)  // "true"
        case 0x65_736C_6166: return (.false, nil)  // "false"
        case 0x6C6C_756E: return (.null, nil)  // "null"
        default: return nil
        }
    }

    private static func isASCIIIdentifierStart(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return isASCIIIdentifierStart(UInt8(scalar.value)) }
        return scalar.properties.isAlphabetic
    }

    static func isIdentifierContinue(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return isASCIIIdentifierContinue(UInt8(scalar.value)) }
        let properties = scalar.properties
        if properties.isAlphabetic || properties.numericType != nil { return true }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .connectorPunctuation: return true
        default: return false
        }
    }

    /// Whether an ASCII byte continues a name: `0`–`9`, `A`–`Z`, `_`, `a`–`z`; false for any
    /// byte of 0x80 and above. One bit test in a 128-bit set instead of four range checks.
    @inline(__always)
    private static func isASCIIIdentifierContinue(_ byte: UInt8) -> Bool {
        // Bit n of `low` is byte n (the digits, 48–57); bit n of `high` is byte 64 + n
        // (A–Z 65–90, _ 95, a–z 97–122).
        let low: UInt64 = 0x03FF_0000_0000_0000
        let high: UInt64 = 0x07FF_FFFE_87FF_FFFE
        if byte < 64 { return (low >> UInt64(byte)) & 1 != 0 }
        if byte < 128 { return (high >> UInt64(byte &- 64)) & 1 != 0 }
        return false
    }

    private func isDigit(_ index: Int) -> Bool {
        index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
    }

    private mutating func readNumber() throws(FilterError) -> RawToken {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") {
            position += 1
            guard isDigit(position) else {
                throw FilterError(
                    code: .unexpectedCharacter,
                    summary: "unexpected character '-' (a minus sign must be followed by digits)",
                    found: "`-`", range: start..<start + 1, source: source)
            }
        }
        let negative = position > start
        let digitsStart = position
        // The integer part's value, read with the digits; it wraps past 18 digits, where
        // `integerValue` reads the digits again with overflow checks.
        var integerPart: Int64 = 0
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if isDigit(position) { throw invalidNumber(from: start, reason: "numbers cannot have leading zeros") }
        } else {
            var index = position
            while index < bytes.count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                integerPart = integerPart &* 10 &+ Int64(digit)
                index += 1
            }
            position = index
        }
        let integerDigits = position - digitsStart
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            isInteger = false
            guard isDigit(position) else { throw invalidNumber(from: start, reason: "expected digits after '.'") }
            position = digitsEnd(from: position)
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            isInteger = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard isDigit(position) else { throw invalidNumber(from: start, reason: "expected digits in the exponent") }
            position = digitsEnd(from: position)
        }
        // `12abc` is one malformed word, not a number followed by a name.
        if position < bytes.count {
            let byte = bytes[position]
            if byte >= 0x80 || Self.isASCIIIdentifierContinue(byte) || byte == UInt8(ascii: ".") {
                try checkNumberEnd(from: start)
            }
        }
        if isInteger {
            // Eighteen digits cannot overflow.
            let value =
                integerDigits <= 18 ? (negative ? 0 &- integerPart : integerPart) : integerValue(start..<position)
            if let value {
                var token = RawToken(.integer, start: start, end: position)
                token.integer = value
                return token
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw invalidNumber(from: start, reason: "number out of range")
        }
        var token = RawToken(.double, start: start, end: position)
        token.double = value
        return token
    }

    @inline(never)
    private mutating func checkNumberEnd(from start: Int) throws(FilterError) {
        let (scalar, _) = decodeScalar(at: position)
        guard Self.isIdentifierContinue(scalar) || scalar == "." else { return }
        while position < bytes.count {
            let (next, length) = decodeScalar(at: position)
            guard Self.isIdentifierContinue(next) || next == "." else { break }
            position += length
        }
        throw invalidNumber(from: start, reason: "malformed number")
    }

    /// What `Int64(text)` gives for the already validated integer literal in `range` (an optional
    /// `-` then digits), without building the text: `nil` when it does not fit in 64 bits.
    private func integerValue(_ range: Range<Int>) -> Int64? {
        var index = range.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        if range.upperBound - index <= 18 {
            // Eighteen digits cannot overflow.
            var value: Int64 = 0
            while index < range.upperBound {
                value = value &* 10 &+ Int64(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
            return negative ? 0 &- value : value
        }
        // Accumulate towards the sign so that Int64.min, whose magnitude has no positive Int64, fits.
        var value: Int64 = 0
        while index < range.upperBound {
            let digit = Int64(bytes[index] &- UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            let (next, overflowAdding) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowAdding else { return nil }
            value = next
            index += 1
        }
        return value
    }

    private func invalidNumber(from start: Int, reason: String) -> FilterError {
        var end = max(position, start + 1)
        end = min(end, bytes.count)
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        return FilterError(
            code: .invalidNumber, summary: "invalid number: \(reason)", expected: "a number",
            found: "`\(text)`", range: start..<end, source: source)
    }

    /// Reads a quoted string. Without escapes (the usual case) nothing is copied: the value is
    /// the bytes between the quotes. With escapes, the decoded bytes are collected in `decoded`.
    private mutating func readString() throws(FilterError) -> RawToken {
        let start = position
        let quote = bytes[position]
        position += 1
        var hasEscapes = false
        var runStart = position
        while position < bytes.count {
            // Skip the plain run up to the next quote or backslash.
            var index = position
            while index < bytes.count, bytes[index] != quote, bytes[index] != UInt8(ascii: "\\") { index += 1 }
            position = index
            guard position < bytes.count else { break }
            let byte = bytes[position]
            if byte == quote {
                if hasEscapes { decoded.append(contentsOf: bytes[runStart..<position]) }
                position += 1
                var token = RawToken(.string, start: start, end: position)
                token.hasEscapes = hasEscapes
                return token
            }
            guard byte == UInt8(ascii: "\\") else {
                position += 1
                continue
            }
            if !hasEscapes {
                hasEscapes = true
                decoded.removeAll(keepingCapacity: true)
            }
            decoded.append(contentsOf: bytes[runStart..<position])
            try readEscape()
            runStart = position
        }
        let quoteText = quote == UInt8(ascii: "\"") ? "\"" : "'"
        throw FilterError(
            code: .unterminatedString, summary: "unterminated string (no closing \(quoteText))",
            expected: "a closing \(quoteText)", found: "end of input", range: start..<start + 1, source: source)
    }

    /// Decodes the escape at `position` (which holds the backslash) into `decoded`.
    private mutating func readEscape() throws(FilterError) {
        let start = position
        guard position + 1 < bytes.count else {
            position += 1
            return  // the missing closing quote is reported by the caller
        }
        let escaped = bytes[position + 1]
        position += 2
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escaped)
        case UInt8(ascii: "*"): decoded.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "*")])
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var unit = try readHex4(escapeStart: start)
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw invalidEscape(from: start, reason: "a high surrogate must be followed by a low one") }
                position += 2
                unit = try readHex4(escapeStart: start)
                guard (0xDC00...0xDFFF).contains(unit) else {
                    throw invalidEscape(from: start, reason: "a high surrogate must be followed by a low one")
                }
                scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (UInt32(unit) - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw invalidEscape(from: start, reason: "unpaired low surrogate")
            }
            guard let scalar = Unicode.Scalar(scalarValue) else {
                throw invalidEscape(from: start, reason: "not a Unicode scalar")
            }
            decoded.append(contentsOf: String(Character(scalar)).utf8)
        default:
            // Step over a whole multi-byte character so the range stays on scalar boundaries.
            if escaped >= 0x80 {
                position -= 1
                position += decodeScalar(at: position).1
            }
            throw invalidEscape(
                from: start, reason: "supported escapes are \\\" \\' \\\\ \\/ \\* \\b \\f \\n \\r \\t \\uXXXX")
        }
    }

    private mutating func readHex4(escapeStart: Int) throws(FilterError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard position < bytes.count else {
                throw invalidEscape(from: escapeStart, reason: "expected 4 hex digits")
            }
            guard let digit = HexDigit.value(bytes[position]) else {
                throw invalidEscape(from: escapeStart, reason: "expected 4 hex digits")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    private func invalidEscape(from start: Int, reason: String) -> FilterError {
        let end = min(max(position, start + 2), bytes.count)
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        return FilterError(
            code: .invalidEscape, summary: "invalid escape in string: \(reason)", expected: "an escape sequence",
            found: "`\(text)`", range: start..<end, source: source)
    }

    private func unexpectedCharacter(at start: Int, length: Int = 1, hint: String? = nil) -> FilterError {
        let text = String(decoding: bytes[start..<min(start + length, bytes.count)], as: UTF8.self)
        var summary = "unexpected character"
        if let hint { summary += " (\(hint))" }
        return FilterError(
            code: .unexpectedCharacter, summary: summary, found: "`\(text)`", range: start..<start + length,
            source: source)
    }
}
