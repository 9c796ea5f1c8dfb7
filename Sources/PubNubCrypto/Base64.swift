/// Standard base64 (RFC 4648 §4, `+` and `/`, `=` padding), as PubNub's SDKs put ciphertext on the
/// wire. Written here rather than taken from Foundation so every platform accepts and rejects the
/// same texts: Foundation on Linux, for one, decodes `====` to a byte.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Each ASCII byte's six-bit value, or 0xFF when it is not in the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// The padded base64 text of `bytes`.
    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(group >> 18)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(alphabet[Int(group >> 6 & 0x3F)])
            output.append(alphabet[Int(group & 0x3F)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining > 0 {
            let second = remaining == 2 ? UInt32(bytes[index + 1]) : 0
            let group = UInt32(bytes[index]) << 16 | second << 8
            output.append(alphabet[Int(group >> 18)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(remaining == 2 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of padded base64 `text`, or `nil` when it is not exactly that: a length that is
    /// not a multiple of four, a character outside the alphabet (whitespace included), or padding
    /// anywhere but in the last one or two places.
    package static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let padding =
                isLast
                ? (input[index + 3] == UInt8(ascii: "=") ? (input[index + 2] == UInt8(ascii: "=") ? 2 : 1) : 0) : 0
            var group: UInt32 = 0
            for offset in 0..<4 {
                let value: UInt8
                if offset >= 4 - padding {
                    value = 0
                } else {
                    value = values[Int(input[index + offset])]
                    guard value != 0xFF else { return nil }
                }
                group = group << 6 | UInt32(value)
            }
            output.append(UInt8(group >> 16))
            if padding < 2 { output.append(UInt8(group >> 8 & 0xFF)) }
            if padding < 1 { output.append(UInt8(group & 0xFF)) }
            index += 4
        }
        return output
    }
}
