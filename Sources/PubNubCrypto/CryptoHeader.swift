/// The header the crypto module writes in front of data encrypted by any cryptor but the legacy
/// one:
///
/// ```
/// "PNED" | version (1 byte, = 1) | cryptor id (4 bytes) | metadata length | metadata
/// ```
///
/// The metadata length is one byte when below 255; otherwise the byte 0xFF followed by the length
/// as two big-endian bytes (so at most 65 535).
package struct CryptoHeader: Sendable, Hashable {
    /// The four bytes every header starts with: ASCII `PNED`.
    package static let sentinel: [UInt8] = [0x50, 0x4E, 0x45, 0x44]
    /// The only header version defined.
    package static let currentVersion: UInt8 = 1
    /// The longest metadata the length field can express.
    package static let maximumMetadataLength = 65_535

    /// The cryptor that encrypted the data.
    package var cryptor: CryptorID
    /// What that cryptor needs back to decrypt.
    package var metadata: [UInt8]

    package init(cryptor: CryptorID, metadata: [UInt8]) {
        self.cryptor = cryptor
        self.metadata = metadata
    }

    /// How many bytes ``write(to:)`` appends.
    package var encodedCount: Int {
        Self.sentinel.count + 1 + 4 + (metadata.count < 255 ? 1 : 3) + metadata.count
    }

    /// Appends the encoded header to `output`.
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/encryptionFailed`` when the metadata is longer
    ///   than 65 535 bytes.
    package func write(to output: inout [UInt8]) throws(CryptoError) {
        guard metadata.count <= Self.maximumMetadataLength else {
            throw CryptoError(
                code: .encryptionFailed,
                message: "cryptor \(cryptor) returned \(metadata.count) bytes of metadata; a header holds at most 65535"
            )
        }
        output += Self.sentinel
        output.append(Self.currentVersion)
        output += cryptor.bytes
        if metadata.count < 255 {
            output.append(UInt8(metadata.count))
        } else {
            output += [0xFF, UInt8(metadata.count >> 8), UInt8(metadata.count & 0xFF)]
        }
        output += metadata
    }

    /// Reads the header at the start of `data`.
    ///
    /// - Returns: `nil` when `data` does not start with ``sentinel`` (legacy data, which has no
    ///   header); otherwise the header and how many bytes it took.
    /// - Throws: ``CryptoError/Code-swift.struct/malformedHeader`` when the header is cut short or
    ///   has version 0; ``CryptoError/Code-swift.struct/unknownCryptor`` for a newer version.
    package static func read(from data: ArraySlice<UInt8>) throws(CryptoError) -> (header: CryptoHeader, count: Int)? {
        guard data.starts(with: sentinel) else { return nil }
        var cursor = data.startIndex + sentinel.count
        func take(_ count: Int, _ what: String) throws(CryptoError) -> ArraySlice<UInt8> {
            guard data.endIndex - cursor >= count else {
                throw CryptoError(
                    code: .malformedHeader,
                    message: "the header ends after \(cursor - data.startIndex) bytes, before its \(what)")
            }
            defer { cursor += count }
            return data[cursor..<cursor + count]
        }
        let version = try take(1, "version").first ?? 0
        guard version != 0 else {
            throw CryptoError(code: .malformedHeader, message: "header version 0 is not defined")
        }
        guard version <= currentVersion else {
            throw CryptoError(
                code: .unknownCryptor, message: "header version \(version) is newer than this module knows")
        }
        guard let cryptor = CryptorID(header: try take(4, "cryptor identifier")) else {
            throw CryptoError(code: .malformedHeader, message: "the cryptor identifier is not 4 bytes")
        }
        var length = Int(try take(1, "metadata length").first ?? 0)
        if length == 255 {
            let wide = try take(2, "two-byte metadata length")
            length = Int(wide[wide.startIndex]) << 8 | Int(wide[wide.startIndex + 1])
        }
        let metadata = try take(length, "\(length) bytes of metadata")
        return (CryptoHeader(cryptor: cryptor, metadata: Array(metadata)), cursor - data.startIndex)
    }
}
