/// Encrypts and decrypts PubNub messages the way PubNub's SDKs do: one default cryptor encrypts,
/// and every cryptor the module knows can decrypt, chosen by the header of the data.
///
/// Data encrypted by the legacy cryptor has no header; data encrypted by any other cryptor starts
/// with a header naming it (`PNED`, version, cryptor id, metadata). So a module that encrypts with
/// the AES-CBC cryptor still reads messages from older clients, and one that still encrypts the
/// legacy way already reads messages from newer ones.
///
/// ```swift
/// let module = try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma")
/// let wire = try module.encryptMessage(["text": "hello"])  // base64 text to publish
/// let message = try module.decryptMessage(wire)            // ["text": "hello"]
/// ```
///
/// A module is an immutable value, safe to share between tasks.
public struct CryptoModule: Sendable {
    /// The cryptor that encrypts.
    public let defaultCryptor: any Cryptor
    /// Every cryptor that can decrypt, ``defaultCryptor`` first; for one identifier, the first wins.
    public let cryptors: [any Cryptor]

    /// Creates a module that encrypts with `defaultCryptor` and decrypts with it and `cryptors`.
    ///
    /// - Parameters:
    ///   - defaultCryptor: The cryptor that encrypts everything, and the first one tried for data it
    ///     wrote.
    ///   - cryptors: Further cryptors that decrypt data other clients wrote; for one identifier the
    ///     first wins. Leave out the legacy cryptor only if no client ever wrote headerless data.
    public init(defaultCryptor: any Cryptor, cryptors: [any Cryptor] = []) {
        self.defaultCryptor = defaultCryptor
        self.cryptors = [defaultCryptor] + cryptors
    }

    /// The module PubNub recommends: encrypts with ``AESCBCCryptor`` (`ACRH`, random IV in the
    /// header), decrypts both that and ``LegacyCryptor`` data.
    ///
    /// - Parameters:
    ///   - cipherKey: the shared secret.
    ///   - useRandomIV: how the legacy cryptor reads headerless data: with a random IV in front
    ///     (the default of new PubNub configurations) or with the fixed IV of older clients.
    /// - Throws: ``CryptoError/Code-swift.struct/invalidKey`` for an empty key,
    ///   ``CryptoError/Code-swift.struct/unavailable`` when the platform's cryptography is missing.
    public static func aesCbcCryptoModule(cipherKey: String, useRandomIV: Bool = true) throws(CryptoError)
        -> CryptoModule
    {
        CryptoModule(
            defaultCryptor: try AESCBCCryptor(cipherKey: cipherKey),
            cryptors: [try LegacyCryptor(cipherKey: cipherKey, useRandomIV: useRandomIV)])
    }

    /// The module for talking to clients that only know the legacy format: encrypts with
    /// ``LegacyCryptor`` (no header), decrypts both that and ``AESCBCCryptor`` data. What PubNub's
    /// SDKs use when only a cipher key is configured.
    ///
    /// - Parameters:
    ///   - cipherKey: the shared secret.
    ///   - useRandomIV: random per-message IVs written in front of the ciphertext (the default of
    ///     new PubNub configurations) or the fixed IV `0123456789012345` of older clients.
    /// - Throws: ``CryptoError/Code-swift.struct/invalidKey`` for an empty key,
    ///   ``CryptoError/Code-swift.struct/unavailable`` when the platform's cryptography is missing.
    public static func legacyCryptoModule(cipherKey: String, useRandomIV: Bool = true) throws(CryptoError)
        -> CryptoModule
    {
        CryptoModule(
            defaultCryptor: try LegacyCryptor(cipherKey: cipherKey, useRandomIV: useRandomIV),
            cryptors: [try AESCBCCryptor(cipherKey: cipherKey)])
    }

    /// Encrypts `plaintext` with ``defaultCryptor``: a header and the ciphertext, or the bare
    /// legacy ciphertext when the default cryptor is the legacy one.
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/emptyInput`` for empty input (as PubNub's SDKs
    ///   do), otherwise what the cryptor throws.
    public func encrypt(_ plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !plaintext.isEmpty else { throw CryptoError(code: .emptyInput, message: "there is nothing to encrypt") }
        let payload = try defaultCryptor.encrypt(plaintext)
        if defaultCryptor.id == .legacy { return payload.data }
        let header = CryptoHeader(cryptor: defaultCryptor.id, metadata: payload.metadata)
        var output: [UInt8] = []
        output.reserveCapacity(header.encodedCount + payload.data.count)
        try header.write(to: &output)
        output += payload.data
        return output
    }

    /// Decrypts data from any cryptor this module knows, chosen by the header (headerless data
    /// goes to the legacy cryptor).
    ///
    /// - Throws: ``CryptoError`` with ``CryptoError/Code-swift.struct/emptyInput``,
    ///   ``CryptoError/Code-swift.struct/malformedHeader``,
    ///   ``CryptoError/Code-swift.struct/unknownCryptor`` (a cryptor this module lacks, including
    ///   the legacy one) or ``CryptoError/Code-swift.struct/decryptionFailed``.
    public func decrypt(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !data.isEmpty else { throw CryptoError(code: .emptyInput, message: "there is nothing to decrypt") }
        let id: CryptorID
        let payload: EncryptedPayload
        if let (header, count) = try CryptoHeader.read(from: data[...]) {
            id = header.cryptor
            payload = EncryptedPayload(metadata: header.metadata, data: Array(data[count...]))
        } else {
            id = .legacy
            payload = EncryptedPayload(data: data)
        }
        guard let cryptor = cryptors.first(where: { $0.id == id }) else {
            throw CryptoError(
                code: .unknownCryptor,
                message: id == .legacy
                    ? "the data has no header and this module has no legacy cryptor"
                    : "the data was encrypted by cryptor \(id), which this module does not have")
        }
        guard !payload.data.isEmpty else {
            throw CryptoError(code: .decryptionFailed, message: "there is no ciphertext after the header")
        }
        return try cryptor.decrypt(payload)
    }
}

// A module holds its cryptors' keys: it prints what it encrypts and decrypts with, nothing more.
extension CryptoModule: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The cryptors by identifier, keys never shown: `CryptoModule(encrypts: ACRH, decrypts: ACRH, 0000)`.
    public var description: String {
        "CryptoModule(encrypts: \(defaultCryptor.id), decrypts: \(cryptors.map { "\($0.id)" }.joined(separator: ", ")))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The cryptors' identifiers only; `dump` never descends into a cryptor, whose type may be
    /// one that does not redact its key.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["defaultCryptor": "\(defaultCryptor.id)", "cryptors": cryptors.map { "\($0.id)" }],
            displayStyle: .struct)
    }
}
