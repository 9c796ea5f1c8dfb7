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
        let count = (bytes.count + 2) / 3 * 4
        return String(unsafeUninitializedCapacity: count) { output in
            bytes.withUnsafeBufferPointer { input in
                alphabet.withUnsafeBufferPointer { table in
                    var read = 0
                    var written = 0
                    while read + 3 <= input.count {
                        let group = UInt32(input[read]) << 16 | UInt32(input[read + 1]) << 8 | UInt32(input[read + 2])
                        output[written] = table[Int(group >> 18)]
                        output[written + 1] = table[Int(group >> 12 & 0x3F)]
                        output[written + 2] = table[Int(group >> 6 & 0x3F)]
                        output[written + 3] = table[Int(group & 0x3F)]
                        read += 3
                        written += 4
                    }
                    let remaining = input.count - read
                    if remaining > 0 {
                        let second = remaining == 2 ? UInt32(input[read + 1]) : 0
                        let group = UInt32(input[read]) << 16 | second << 8
                        output[written] = table[Int(group >> 18)]
                        output[written + 1] = table[Int(group >> 12 & 0x3F)]
                        output[written + 2] = remaining == 2 ? table[Int(group >> 6 & 0x3F)] : UInt8(ascii: "=")
                        output[written + 3] = UInt8(ascii: "=")
                    }
                }
            }
            return count
        }
    }

    /// The bytes of padded base64 `text`, or `nil` when it is not exactly that: a length that is
    /// not a multiple of four, a character outside the alphabet (whitespace included), or padding
    /// anywhere but in the last one or two places.
    package static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { input -> [UInt8]? in
            guard input.count % 4 == 0 else { return nil }
            guard !input.isEmpty else { return [] }
            let equals = UInt8(ascii: "=")
            let padding = input[input.count - 1] == equals ? (input[input.count - 2] == equals ? 2 : 1) : 0
            let count = input.count / 4 * 3 - padding
            var valid = true
            let output = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
                values.withUnsafeBufferPointer { table in
                    var read = 0
                    var written = 0
                    // Whole groups: every character must be in the alphabet (OR-ing the values
                    // keeps the loop branch-free; 0xFF anywhere marks the text invalid).
                    let fullGroups = padding == 0 ? input.count : input.count - 4
                    var invalid: UInt8 = 0
                    while read < fullGroups {
                        let a = table[Int(input[read])]
                        let b = table[Int(input[read + 1])]
                        let c = table[Int(input[read + 2])]
                        let d = table[Int(input[read + 3])]
                        invalid |= (a | b | c | d) & 0xC0
                        let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                        output[written] = UInt8(truncatingIfNeeded: group >> 16)
                        output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                        output[written + 2] = UInt8(truncatingIfNeeded: group)
                        read += 4
                        written += 3
                    }
                    if padding > 0 {
                        let a = table[Int(input[read])]
                        let b = table[Int(input[read + 1])]
                        let c = padding == 1 ? table[Int(input[read + 2])] : 0
                        invalid |= (a | b | c) & 0xC0
                        let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                        output[written] = UInt8(truncatingIfNeeded: group >> 16)
                        if padding == 1 { output[written + 1] = UInt8(truncatingIfNeeded: group >> 8) }
                    }
                    valid = invalid == 0
                }
                initialized = count
            }
            return valid ? output : nil
        }
    }
}
