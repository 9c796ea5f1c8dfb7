public import JSONCore

extension CryptoModule {
    /// Encrypts `message`'s compact JSON text (keys sorted, so equal messages give equal plaintext) and returns it as standard base64: the string PubNub
    /// publishes in place of the message.
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/invalidMessage`` when the message holds `NaN` or an
    ///   infinity, otherwise what ``encrypt(_:)`` throws.
    public func encryptMessage(_ message: JSONValue) throws(CryptoError) -> String {
        let text: [UInt8]
        do {
            text = try message.jsonBytes()
        } catch {
            throw CryptoError(code: .invalidMessage, message: "the message cannot be written as JSON: \(error)")
        }
        return try encryptBase64(text)
    }

    /// Decrypts a base64 string received in place of a message and parses the JSON inside.
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/invalidBase64``, what ``decrypt(_:)`` throws, or
    ///   ``CryptoError/Code-swift.struct/decryptionFailed`` when the plaintext is not JSON (which is
    ///   how a wrong key shows when the padding happens to look valid).
    public func decryptMessage(_ base64: String) throws(CryptoError) -> JSONValue {
        let plaintext = try decryptBase64(base64)
        do {
            return try JSONValue(parsing: plaintext)
        } catch {
            throw CryptoError(code: .decryptionFailed, message: "the decrypted message is not JSON (wrong key?)")
        }
    }

    /// Encrypts `plaintext` and returns the result as standard padded base64.
    ///
    /// - Throws: what ``encrypt(_:)`` throws.
    public func encryptBase64(_ plaintext: [UInt8]) throws(CryptoError) -> String {
        Base64.encode(try encrypt(plaintext))
    }

    /// Decodes standard padded base64 and decrypts the bytes.
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/invalidBase64`` for text that is not base64, or
    ///   what ``decrypt(_:)`` throws.
    public func decryptBase64(_ base64: String) throws(CryptoError) -> [UInt8] {
        guard let data = Base64.decode(base64) else {
            throw CryptoError(code: .invalidBase64, message: "the text is not padded standard base64")
        }
        return try decrypt(data)
    }
}
