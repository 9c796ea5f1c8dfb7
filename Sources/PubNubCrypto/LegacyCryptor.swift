/// PubNub's original message encryption, kept so old messages and old peers still work.
///
/// - Key: the SHA-256 digest of the cipher key's UTF-8 bytes, written as 64 lowercase hex
///   characters, of which the first 32 characters (as ASCII bytes) are the AES-256 key.
/// - Cipher: AES-256-CBC with PKCS#7 padding.
/// - Initialization vector: with `useRandomIV` (the default of new PubNub configurations), 16
///   random bytes, written in front of the ciphertext; without it, the fixed ASCII text
///   `0123456789012345`, written nowhere (so the same message always gives the same ciphertext).
/// - No header: legacy data cannot be told apart from other bytes, so both sides must agree on
///   `useRandomIV`.
///
/// ```swift
/// let cryptor = try LegacyCryptor(cipherKey: "enigma", useRandomIV: false)
/// let payload = try cryptor.encrypt(Array(#""hello""#.utf8))
/// ```
public struct LegacyCryptor: Cryptor {
    /// The fixed initialization vector used when ``useRandomIV`` is off: ASCII `0123456789012345`.
    public static let staticInitializationVector: [UInt8] = Array("0123456789012345".utf8)

    /// Always ``CryptorID/legacy``: the module writes no header for this cryptor.
    public var id: CryptorID { .legacy }
    /// Whether each message gets a random initialization vector written in front of it.
    public let useRandomIV: Bool
    private let key: [UInt8]

    /// Derives the key from `cipherKey`.
    ///
    /// - Parameters:
    ///   - cipherKey: the shared secret; any non-empty text.
    ///   - useRandomIV: random per-message initialization vectors (PubNub's default for new
    ///     configurations) or the fixed one older clients used.
    /// - Throws: ``CryptoError/Code-swift.struct/invalidKey`` for an empty key,
    ///   ``CryptoError/Code-swift.struct/unavailable`` when the platform's cryptography is missing.
    public init(cipherKey: String, useRandomIV: Bool = true) throws(CryptoError) {
        guard !cipherKey.isEmpty else { throw CryptoError(code: .invalidKey, message: "the cipher key is empty") }
        let digest = try CryptoPrimitives.sha256(Array(cipherKey.utf8))
        key = Array(Self.lowercaseHex(digest).prefix(CryptoPrimitives.keySize))
        self.useRandomIV = useRandomIV
    }

    /// Encrypts `plaintext`; the result has no metadata (the random IV, if any, leads the data).
    public func encrypt(_ plaintext: [UInt8]) throws(CryptoError) -> EncryptedPayload {
        let iv =
            useRandomIV ? try CryptoPrimitives.randomBytes(CryptoPrimitives.blockSize) : Self.staticInitializationVector
        let ciphertext = try CryptoPrimitives.aes256CBC(encrypting: true, key: key, iv: iv, plaintext[...])
        return EncryptedPayload(data: useRandomIV ? iv + ciphertext : ciphertext)
    }

    /// Decrypts `payload.data` (metadata is ignored: legacy data carries none).
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/decryptionFailed`` when the data is not whole
    ///   blocks (after the IV), the padding is wrong, or the key is.
    public func decrypt(_ payload: EncryptedPayload) throws(CryptoError) -> [UInt8] {
        let data = payload.data
        let ivLength = useRandomIV ? CryptoPrimitives.blockSize : 0
        guard data.count > ivLength else {
            throw CryptoError(
                code: .decryptionFailed,
                message: "legacy ciphertext of \(data.count) bytes is too short"
                    + (useRandomIV ? " to hold an initialization vector and a block" : ""))
        }
        let iv = useRandomIV ? Array(data.prefix(ivLength)) : Self.staticInitializationVector
        return try CryptoPrimitives.aes256CBC(encrypting: false, key: key, iv: iv, data[ivLength...])
    }

    private static func lowercaseHex(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }
}

// The derived key must never reach a log, a crash report or a debugger's summary.
extension LegacyCryptor: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The cryptor's name and settings; the key is always shown as `REDACTED`.
    public var description: String { "LegacyCryptor(key: REDACTED, useRandomIV: \(useRandomIV))" }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// No children: `dump` shows only ``description``, never the key.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
