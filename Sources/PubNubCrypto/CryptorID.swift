/// The four bytes that name a cryptor in the header of the data it encrypted.
///
/// PubNub's SDKs define two: ``aesCbc`` (`ACRH`), written in every header the AES-CBC cryptor
/// produces, and ``legacy`` (`0000`), which is never written: legacy ciphertext has no header at all,
/// so data without one is handed to the cryptor with this identifier.
public struct CryptorID: Sendable, Hashable, CustomStringConvertible {
    /// The four bytes, as written in the header.
    public let bytes: [UInt8]

    /// Creates an identifier from four bytes.
    public init(_ first: UInt8, _ second: UInt8, _ third: UInt8, _ fourth: UInt8) {
        bytes = [first, second, third, fourth]
    }

    /// Creates an identifier from text whose UTF-8 form is exactly four bytes, or `nil` otherwise.
    public init?(_ text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 4 else { return nil }
        bytes = utf8
    }

    /// Reads four bytes, or `nil` when `slice` does not hold exactly four.
    init?(header slice: ArraySlice<UInt8>) {
        guard slice.count == 4 else { return nil }
        bytes = Array(slice)
    }

    /// The legacy cryptor's identifier, `0000`. Data that carries no header belongs to it.
    public static let legacy = CryptorID(0x30, 0x30, 0x30, 0x30)
    /// The AES-CBC cryptor's identifier, `ACRH`.
    public static let aesCbc = CryptorID(0x41, 0x43, 0x52, 0x48)

    /// The identifier as text (each byte as a character when printable ASCII, `\xNN` otherwise).
    public var description: String {
        bytes.map { byte in
            (0x20..<0x7F).contains(byte)
                ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16, uppercase: true)
        }.joined()
    }
}
