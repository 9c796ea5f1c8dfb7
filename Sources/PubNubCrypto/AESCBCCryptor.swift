/// PubNub's current message encryption, identified by ``CryptorID/aesCbc`` (`ACRH`).
///
/// - Key: the raw 32-byte SHA-256 digest of the cipher key's UTF-8 bytes.
/// - Cipher: AES-256-CBC with PKCS#7 padding.
/// - Initialization vector: 16 random bytes per message, returned as the payload's metadata,
///   which the crypto module writes into the header.
///
/// ```swift
/// let cryptor = try AESCBCCryptor(cipherKey: "enigma")
/// let payload = try cryptor.encrypt(Array(#"{"text":"hi"}"#.utf8))  // metadata = the IV
/// ```
public struct AESCBCCryptor: Cryptor {
    /// Always ``CryptorID/aesCbc``.
    public var id: CryptorID { .aesCbc }
    private let key: [UInt8]

    /// Derives the key from `cipherKey`.
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/invalidKey`` for an empty key,
    ///   ``CryptoError/Code-swift.struct/unavailable`` when the platform's cryptography is missing.
    public init(cipherKey: String) throws(CryptoError) {
        guard !cipherKey.isEmpty else { throw CryptoError(code: .invalidKey, message: "the cipher key is empty") }
        key = try CryptoPrimitives.sha256(Array(cipherKey.utf8))
    }

    /// Encrypts `plaintext` with a fresh random initialization vector.
    public func encrypt(_ plaintext: [UInt8]) throws(CryptoError) -> EncryptedPayload {
        let iv = try CryptoPrimitives.randomBytes(CryptoPrimitives.blockSize)
        let ciphertext = try CryptoPrimitives.aes256CBC(encrypting: true, key: key, iv: iv, plaintext[...])
        return EncryptedPayload(metadata: iv, data: ciphertext)
    }

    /// Decrypts `payload.data` with the initialization vector in `payload.metadata`.
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/decryptionFailed`` when the metadata is not a
    ///   16-byte IV, the data is not whole blocks, the padding is wrong, or the key is.
    public func decrypt(_ payload: EncryptedPayload) throws(CryptoError) -> [UInt8] {
        guard payload.metadata.count == CryptoPrimitives.blockSize else {
            throw CryptoError(
                code: .decryptionFailed,
                message: "AES-CBC metadata must be a 16-byte initialization vector, not \(payload.metadata.count) bytes"
            )
        }
        return try CryptoPrimitives.aes256CBC(
            encrypting: false, key: key, iv: payload.metadata, payload.data[...])
    }
}

// The derived key must never reach a log, a crash report or a debugger's summary.
extension AESCBCCryptor: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The cryptor's name and settings; the key is always shown as `REDACTED`.
    public var description: String { "AESCBCCryptor(key: REDACTED)" }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// No children: `dump` shows only ``description``, never the key.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
