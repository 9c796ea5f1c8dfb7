import JSONCore
import Testing

/// `HexDigit` is the one reading of a hex digit behind JSON and filter `\u` escapes, percent
/// decoding (access tokens, file URLs, the emulator's request targets) and HTTP chunk sizes.
@Suite struct HexDigitTests {
    @Test func everyByteReadsAsTheStandardLibraryReadsItAsAHexNumeral() {
        for byte in UInt8.min...UInt8.max {
            let expected = UInt8(String(Character(Unicode.Scalar(byte))), radix: 16)
            #expect(HexDigit.value(byte) == expected, "byte \(byte)")
        }
    }
}
