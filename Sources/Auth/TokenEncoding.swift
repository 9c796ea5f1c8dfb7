import JSONCore

/// Turns the text form of a token into its CBOR bytes.
///
/// Tokens travel as base64url without padding, but copies pasted from URLs, logs or other SDKs
/// may be percent-encoded, padded, or written in the standard base64 alphabet. All of those are
/// accepted here; both alphabets may even be mixed.
package enum TokenEncoding {
    /// The longest token text accepted. Real tokens are a few hundred characters; the cap keeps
    /// a hostile string from costing much before it is rejected.
    package static let maximumTextLength = 64 * 1024

    /// Decodes `text` to bytes.
    ///
    /// - Throws: ``AuthError`` with ``AuthError/Code-swift.struct/emptyToken``,
    ///   ``AuthError/Code-swift.struct/invalidEncoding`` or ``AuthError/Code-swift.struct/limitExceeded``.
    package static func decode(_ text: String) throws(AuthError) -> [UInt8] {
        var input = Array(text.utf8)
        guard input.count <= maximumTextLength else {
            throw AuthError(
                code: .limitExceeded,
                message: "token text is \(input.count) bytes long; the limit is \(maximumTextLength)")
        }
        input = trimmed(input)
        guard !input.isEmpty else {
            throw AuthError(code: .emptyToken, message: "the token is empty")
        }
        if input.contains(UInt8(ascii: "%")) {
            input = try percentDecoded(input)
        }
        return try base64Decoded(input)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        var start = 0
        var end = bytes.count
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        return Array(bytes[start..<end])
    }

    private static func percentDecoded(_ input: [UInt8]) throws(AuthError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < input.count, let high = HexDigit.value(input[index + 1]),
                    let low = HexDigit.value(input[index + 2])
                else {
                    throw AuthError(
                        code: .invalidEncoding, message: "'%' is not followed by two hex digits", offset: index)
                }
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): return 63
        default: return nil
        }
    }

    private static func base64Decoded(_ input: [UInt8]) throws(AuthError) -> [UInt8] {
        var end = input.count
        var padding = 0
        while end > 0, input[end - 1] == UInt8(ascii: "=") {
            end -= 1
            padding += 1
        }
        guard end > 0 else {
            throw AuthError(code: .invalidEncoding, message: "the token holds only padding")
        }
        if let bad = input[..<end].firstIndex(where: { sextet($0) == nil }) {
            throw AuthError(
                code: .invalidEncoding, message: "character \(describe(input[bad])) is not base64 or base64url",
                offset: bad)
        }
        if padding > 0 {
            guard padding <= 2, input.count % 4 == 0 else {
                throw AuthError(
                    code: .invalidEncoding, message: "wrong amount of '=' padding for the token's length",
                    offset: end)
            }
        }
        guard end % 4 != 1 else {
            throw AuthError(
                code: .invalidEncoding,
                message: "a base64 text of \(end) characters cannot be complete (one character too many or too few)")
        }
        var output: [UInt8] = []
        output.reserveCapacity(end / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for index in 0..<end {
            let value = sextet(input[index]) ?? 0
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        return output
    }

    private static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        return "0x" + String(byte, radix: 16, uppercase: true)
    }
}
