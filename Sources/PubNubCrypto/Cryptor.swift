/// What a cryptor produces: the ciphertext, and the metadata the crypto module writes into the
/// header so the same cryptor can decrypt it again (for the AES-CBC cryptor, its initialization
/// vector).
public struct EncryptedPayload: Sendable, Hashable {
    /// Data the cryptor needs back to decrypt: written into the header. At most 65 535 bytes.
    public var metadata: [UInt8]
    /// The ciphertext, without the header (the crypto module adds it).
    public var data: [UInt8]

    /// Creates a payload; a cryptor that needs nothing back to decrypt leaves `metadata` empty.
    public init(metadata: [UInt8] = [], data: [UInt8]) {
        self.metadata = metadata
        self.data = data
    }
}

/// One encryption algorithm a ``CryptoModule`` can encrypt with or decrypt with.
///
/// A conforming type must:
/// - return the same ``id`` for its whole life; it is the four bytes written into the header of
///   everything it encrypts (``CryptorID/legacy`` alone means "write no header");
/// - make `decrypt(encrypt(x)) == x` for every `x`, including empty input;
/// - throw ``CryptoError`` and never trap, whatever `decrypt` is given;
/// - be safe to call from any task at the same time (it is `Sendable`; hold only immutable state).
///
/// A minimal conforming cryptor (for illustration only: it does not encrypt):
///
/// ```swift
/// struct ReversingCryptor: Cryptor {
///     let id = CryptorID(0x52, 0x45, 0x56, 0x31)  // "REV1"
///     func encrypt(_ plaintext: [UInt8]) throws(CryptoError) -> EncryptedPayload {
///         EncryptedPayload(data: plaintext.reversed())
///     }
///     func decrypt(_ payload: EncryptedPayload) throws(CryptoError) -> [UInt8] {
///         payload.data.reversed()
///     }
/// }
/// ```
public protocol Cryptor: Sendable {
    /// The cryptor's four-byte identifier.
    var id: CryptorID { get }

    /// Encrypts `plaintext`.
    ///
    /// - Throws: ``CryptoError`` (``CryptoError/Code-swift.struct/encryptionFailed``,
    ///   ``CryptoError/Code-swift.struct/unavailable``).
    func encrypt(_ plaintext: [UInt8]) throws(CryptoError) -> EncryptedPayload

    /// Decrypts what ``encrypt(_:)`` produced, with the metadata read back from the header.
    ///
    /// - Throws: ``CryptoError``, usually ``CryptoError/Code-swift.struct/decryptionFailed``.
    func decrypt(_ payload: EncryptedPayload) throws(CryptoError) -> [UInt8]
}
