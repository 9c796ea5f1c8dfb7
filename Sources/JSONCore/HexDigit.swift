/// ASCII hexadecimal digits, read the one way every decoder of the package reads them: `\u`
/// escapes of JSON and filter strings, percent-encoding, HTTP chunk sizes.
package enum HexDigit {
    /// The value (0 to 15) of `byte` as a hex digit of either case; nil for any other byte.
    @inlinable
    package static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
