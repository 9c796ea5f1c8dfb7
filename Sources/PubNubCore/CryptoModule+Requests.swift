package import JSONCore
package import PubNubBase
package import PubNubCrypto

extension CryptoModule {
    /// `message` encrypted as it travels in a request (its base64 ciphertext as a JSON string);
    /// a failure is `.invalidArguments` naming `what`, since nothing has been sent yet.
    package func encryptedForRequest(_ message: JSONValue, what: String) throws(PubNubError) -> JSONValue {
        do {
            return .string(try encryptMessage(message))
        } catch {
            throw PubNubError(
                reason: .invalidArguments, message: "\(what) could not be encrypted: \(error)", underlying: error)
        }
    }
}
