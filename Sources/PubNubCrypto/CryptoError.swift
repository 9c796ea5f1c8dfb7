/// A failure to encrypt or decrypt a message.
///
/// ``code-swift.property`` can grow: match the codes you handle and keep a default branch. No
/// input, however malformed (random bytes, a truncated header, a wrong key, bad base64, nothing at
/// all), makes the crypto module crash; it throws one of these instead.
///
/// ```swift
/// do {
///     let message = try module.decryptMessage(text)
/// } catch where error.code == .decryptionFailed {
///     // wrong cipher key, or not a message this module encrypted
/// }
/// ```
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The platform's cryptography cannot be used (on Linux: no loadable libcrypto 3 or 1.1).
        public static let unavailable = Code(rawValue: "unavailable")
        /// The cipher key is empty.
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// There was nothing to encrypt or decrypt.
        public static let emptyInput = Code(rawValue: "emptyInput")
        /// Encryption failed (for example the system's random generator failed, or a cryptor's
        /// metadata is too long for the header).
        public static let encryptionFailed = Code(rawValue: "encryptionFailed")
        /// The ciphertext could not be decrypted: wrong key, wrong initialization vector mode,
        /// a length that is not whole blocks, bad padding, or plaintext that is not what was asked
        /// for (not JSON when a message was expected).
        public static let decryptionFailed = Code(rawValue: "decryptionFailed")
        /// The data names a cryptor (or a header version) this module does not know.
        public static let unknownCryptor = Code(rawValue: "unknownCryptor")
        /// The data starts with the `PNED` sentinel but the header after it is truncated or invalid.
        public static let malformedHeader = Code(rawValue: "malformedHeader")
        /// The text is not standard padded base64.
        public static let invalidBase64 = Code(rawValue: "invalidBase64")
        /// The message cannot be written as JSON (it holds `NaN` or an infinity).
        public static let invalidMessage = Code(rawValue: "invalidMessage")
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence for people.
    public let message: String

    /// Creates an error, as a custom ``Cryptor`` should to report a failure in the crypto module's
    /// own terms.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The code and the message.
    public var description: String { "CryptoError.\(code): \(message)" }
}
