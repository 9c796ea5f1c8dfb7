import DataSyncTestSupport
import Foundation
import PubNubCrypto
import Testing

/// Bytes from hex text; whitespace is ignored. Test input only, so bad text yields a short array.
func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace }.utf8)
    var result: [UInt8] = []
    var index = 0
    while index + 1 < digits.count {
        if let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) {
            result.append(byte)
        }
        index += 2
    }
    return result
}

/// `count` reproducible pseudo-random bytes.
func randomBytes(_ count: Int, using generator: inout SeededRandomNumberGenerator) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(count)
    while result.count < count {
        var word = generator.next()
        for _ in 0..<min(8, count - result.count) {
            result.append(UInt8(truncatingIfNeeded: word))
            word >>= 8
        }
    }
    return result
}

/// The ``CryptoError`` `body` throws, or `nil` when it returns. Any other error is a test failure
/// (closures passed here do not infer typed throws, so the check is made at run time).
func cryptoError(_ body: () throws -> Void) -> CryptoError? {
    do {
        try body()
        return nil
    } catch let error as CryptoError {
        return error
    } catch {
        Issue.record("not a CryptoError: \(error)")
        return CryptoError(code: CryptoError.Code(rawValue: "notACryptoError"), message: "\(error)")
    }
}

/// A cryptor that does not encrypt but returns metadata of a chosen length, to exercise the header.
struct MetadataCryptor: Cryptor {
    let id = CryptorID(0x54, 0x45, 0x53, 0x54)  // "TEST"
    let metadataCount: Int

    func encrypt(_ plaintext: [UInt8]) throws(CryptoError) -> EncryptedPayload {
        EncryptedPayload(metadata: (0..<metadataCount).map { UInt8(truncatingIfNeeded: $0 * 7) }, data: plaintext)
    }

    func decrypt(_ payload: EncryptedPayload) throws(CryptoError) -> [UInt8] {
        let expected = (0..<metadataCount).map { UInt8(truncatingIfNeeded: $0 * 7) }
        guard payload.metadata == expected else {
            throw CryptoError(code: .decryptionFailed, message: "metadata came back as \(payload.metadata.count) bytes")
        }
        return payload.data
    }
}

/// The package root, from this file's path (Tests/PubNubCryptoTests/TestHelpers.swift).
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
