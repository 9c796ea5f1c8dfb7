/// Splits a filter expression into ``FilterToken``s.
///
/// Lexical rules (see `Documentation/FilterLanguage.md` for the reasoning):
/// - whitespace (space, tab, CR, LF) separates tokens and is otherwise ignored;
/// - a property name starts with a letter or `_` and continues with letters, digits and `_`
///   (Unicode letters and digits included); a `.` after a name is rejected, because properties
///   are referenced by name, not path;
/// - the words `LIKE`, `SLIKE`, `ILIKE`, `AND`, `OR`, `NOT`, `true`, `false`, `null` are keywords in
///   any letter case and cannot be property names;
/// - strings are quoted with `"` or `'`; escapes are `\"`, `\'`, `\\`, `\/`, `\b`, `\f`, `\n`,
///   `\r`, `\t`, `\uXXXX` (UTF-16, surrogate pairs combined), and `\*`, which is kept as the two
///   characters `\*` so that it reaches a pattern as an escaped (literal) asterisk;
/// - numbers use JSON syntax: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
///
/// The tokenizer never traps: malformed input produces a ``FilterError`` with the position.
public struct FilterTokenizer: Sendable {
    private let source: String
    private let bytes: [UInt8]
    private var position = 0

    /// Creates a tokenizer over `source`.
    public init(_ source: String) {
        self.source = source
        self.bytes = Array(source.utf8)
    }

    /// Tokenizes the whole source; the last token is always ``FilterToken/Kind/endOfInput``.
    ///
    /// - Throws: ``FilterError`` for the first lexical error.
    public static func tokenize(_ source: String) throws(FilterError) -> [FilterToken] {
        var tokenizer = FilterTokenizer(source)
        var tokens: [FilterToken] = []
        while true {
            let token = try tokenizer.next()
            tokens.append(token)
            if token.kind == .endOfInput { return tokens }
        }
    }

    /// Whether `name` can be written as a property name in an expression (it follows the name
    /// rules above and is not a keyword).
    public static func isValidPropertyName(_ name: String) -> Bool {
        var scalars = name.unicodeScalars.makeIterator()
        guard let first = scalars.next(), isIdentifierStart(first) else { return false }
        while let scalar = scalars.next() {
            guard isIdentifierContinue(scalar) else { return false }
        }
        return keyword(for: Array(name.utf8)) == nil
    }

    /// Reads the next token.
    ///
    /// - Throws: ``FilterError`` when the text at the current position is not a valid token.
    public mutating func next() throws(FilterError) -> FilterToken {
        skipWhitespace()
        let start = position
        guard position < bytes.count else { return FilterToken(kind: .endOfInput, range: start..<start) }
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "("):
            position += 1
            return FilterToken(kind: .leftParenthesis, range: start..<position)
        case UInt8(ascii: ")"):
            position += 1
            return FilterToken(kind: .rightParenthesis, range: start..<position)
        case UInt8(ascii: "="):
            if peek(1) == UInt8(ascii: "=") { return symbol(.op(.equal), length: 2) }
            throw unexpectedCharacter(at: start, hint: "did you mean '=='?")
        case UInt8(ascii: "!"):
            if peek(1) == UInt8(ascii: "=") { return symbol(.op(.notEqual), length: 2) }
            return symbol(.not, length: 1)
        case UInt8(ascii: "<"):
            if peek(1) == UInt8(ascii: "=") { return symbol(.op(.lessOrEqual), length: 2) }
            return symbol(.op(.less), length: 1)
        case UInt8(ascii: ">"):
            if peek(1) == UInt8(ascii: "=") { return symbol(.op(.greaterOrEqual), length: 2) }
            return symbol(.op(.greater), length: 1)
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
            let (scalar, length) = decodeScalar(at: start)
            if Self.isIdentifierStart(scalar) { return readWord() }
            let hint: String? = scalar == "." ? "properties are referenced by name, not by path" : nil
            throw unexpectedCharacter(at: start, length: length, hint: hint)
        }
    }

    // MARK: - Pieces

    private func peek(_ offset: Int) -> UInt8? {
        let index = position + offset
        return index < bytes.count ? bytes[index] : nil
    }

    private mutating func symbol(_ kind: FilterToken.Kind, length: Int) -> FilterToken {
        let start = position
        position += length
        return FilterToken(kind: kind, range: start..<position)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): position += 1
            default: return
            }
        }
    }

    /// Decodes the scalar starting at `index` (the bytes come from a Swift string, so they are
    /// valid UTF-8); returns the scalar and its length in bytes.
    private func decodeScalar(at index: Int) -> (Unicode.Scalar, Int) {
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        let end = min(index + length, bytes.count)
        let text = String(decoding: bytes[index..<end], as: UTF8.self)
        return (text.unicodeScalars.first ?? "\u{FFFD}", end - index)
    }

    private mutating func readWord() -> FilterToken {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte < 0x80 {
                guard Self.isASCIIIdentifierContinue(byte) else { break }
                position += 1
            } else {
                let (scalar, length) = decodeScalar(at: position)
                guard Self.isIdentifierContinue(scalar) else { break }
                position += length
            }
        }
        let word = bytes[start..<position]
        if let keyword = Self.keyword(for: word) { return FilterToken(kind: keyword, range: start..<position) }
        return FilterToken(kind: .identifier(String(decoding: word, as: UTF8.self)), range: start..<position)
    }

    /// The keyword spelled by `word` in any letter case, or `nil`. Works on the bytes directly (a
    /// word is a keyword only if it is 2–5 ASCII letters), so no string is built per word.
    private static func keyword(for word: some Collection<UInt8>) -> FilterToken.Kind? {
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
        // The constants are the keywords packed the same way (little-endian ASCII).
        switch packed {
        case 0x656B_696C: return .op(.like)  // "like"
        case 0x65_6B69_6C73: return .op(.slike)  // "slike"
        case 0x65_6B69_6C69: return .op(.ilike)  // "ilike"
        case 0x646E61: return .and  // "and"
        case 0x726F: return .or  // "or"
        case 0x746F6E: return .not  // "not"
        case 0x6575_7274: return .true  // "true"
        case 0x65_736C_6166: return .false  // "false"
        case 0x6C6C_756E: return .null  // "null"
        default: return nil
        }
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || value == 0x5F
        }
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

    private static func isASCIIIdentifierContinue(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    private func isDigit(_ index: Int) -> Bool {
        index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
    }

    private mutating func readNumber() throws(FilterError) -> FilterToken {
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
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if isDigit(position) { throw invalidNumber(from: start, reason: "numbers cannot have leading zeros") }
        } else {
            while isDigit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            isInteger = false
            guard isDigit(position) else { throw invalidNumber(from: start, reason: "expected digits after '.'") }
            while isDigit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            isInteger = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard isDigit(position) else { throw invalidNumber(from: start, reason: "expected digits in the exponent") }
            while isDigit(position) { position += 1 }
        }
        // `12abc` is one malformed word, not a number followed by a name.
        if position < bytes.count {
            let (scalar, _) = decodeScalar(at: position)
            if Self.isIdentifierContinue(scalar) || scalar == "." {
                while position < bytes.count {
                    let (next, length) = decodeScalar(at: position)
                    guard Self.isIdentifierContinue(next) || next == "." else { break }
                    position += length
                }
                throw invalidNumber(from: start, reason: "malformed number")
            }
        }
        if isInteger, let value = integerValue(start..<position) {
            return FilterToken(kind: .integer(value), range: start..<position)
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw invalidNumber(from: start, reason: "number out of range")
        }
        return FilterToken(kind: .double(value), range: start..<position)
    }

    /// What `Int64(text)` gives for the already validated integer literal in `range` (an optional
    /// `-` then digits), without building the text: `nil` when it does not fit in 64 bits.
    private func integerValue(_ range: Range<Int>) -> Int64? {
        var index = range.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
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

    private mutating func readString() throws(FilterError) -> FilterToken {
        let start = position
        let quote = bytes[position]
        position += 1
        let contentStart = position
        var decoded: [UInt8] = []  // used only when the string has escapes
        var hasEscapes = false
        var runStart = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == quote {
                let value: String
                if hasEscapes {
                    decoded.append(contentsOf: bytes[runStart..<position])
                    value = String(decoding: decoded, as: UTF8.self)
                } else {
                    value = String(decoding: bytes[contentStart..<position], as: UTF8.self)
                }
                position += 1
                return FilterToken(kind: .string(value), range: start..<position)
            }
            guard byte == UInt8(ascii: "\\") else {
                position += 1
                continue
            }
            hasEscapes = true
            decoded.append(contentsOf: bytes[runStart..<position])
            try readEscape(into: &decoded)
            runStart = position
        }
        let quoteText = quote == UInt8(ascii: "\"") ? "\"" : "'"
        throw FilterError(
            code: .unterminatedString, summary: "unterminated string (no closing \(quoteText))",
            expected: "a closing \(quoteText)", found: "end of input", range: start..<start + 1, source: source)
    }

    /// Decodes the escape at `position` (which holds the backslash) into `buffer`.
    private mutating func readEscape(into buffer: inout [UInt8]) throws(FilterError) {
        let start = position
        guard position + 1 < bytes.count else {
            position += 1
            return  // the missing closing quote is reported by the caller
        }
        let escaped = bytes[position + 1]
        position += 2
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escaped)
        case UInt8(ascii: "*"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "*")])
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
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
            buffer.append(contentsOf: String(Character(scalar)).utf8)
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
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw invalidEscape(from: escapeStart, reason: "expected 4 hex digits")
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
