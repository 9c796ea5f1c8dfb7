#if canImport(CommonCrypto)
    internal import CommonCrypto
#else
    internal import CCrypto
#endif

/// AES-256-CBC, SHA-256 and random bytes from the platform: CommonCrypto on Apple platforms,
/// the system libcrypto (OpenSSL 3 or 1.1) loaded at run time everywhere else.
///
/// Everything here is stateless once the library is loaded, and safe to call from any thread
/// (OpenSSL 1.1 and later lock internally; CommonCrypto calls are reentrant).
package enum CryptoPrimitives {
    /// The AES block size, and the size of an initialization vector.
    package static let blockSize = 16
    /// The AES-256 key size.
    package static let keySize = 32
    /// The size of a SHA-256 digest.
    package static let digestSize = 32

    #if canImport(CommonCrypto)
        /// The libraries tried in order; CommonCrypto is part of the system, so none.
        package static let libraryNames: [String] = []

        /// Always succeeds: CommonCrypto is part of every Apple platform.
        package static func ensureAvailable() throws(CryptoError) {}

        /// A short description of the library in use.
        package static var libraryDescription: String? { "CommonCrypto" }
    #else
        /// The libraries tried in order: OpenSSL 3, then 1.1, then whatever the unversioned name is.
        package static let libraryNames = ["libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so"]

        /// Loaded once per process, on first use.
        private static let loadResult: Result<Void, CryptoError> = load(candidates: libraryNames)

        /// Tries `candidates` in order and keeps the first that loads completely.
        package static func load(candidates: [String]) -> Result<Void, CryptoError> {
            var reasons: [String] = []
            for name in candidates {
                var buffer = [CChar](repeating: 0, count: 512)
                let status = buffer.withUnsafeMutableBufferPointer { pointer in
                    ccrypto_load(name, pointer.baseAddress, pointer.count)
                }
                if status == 0 { return .success(()) }
                let reason = buffer.withUnsafeBufferPointer { pointer in
                    pointer.baseAddress.map { String(cString: $0) } ?? "unknown reason"
                }
                reasons.append(reason)
            }
            return .failure(
                CryptoError(
                    code: .unavailable,
                    message: "libcrypto is not available: "
                        + (reasons.isEmpty ? "no library named" : reasons.joined(separator: "; "))))
        }

        /// Loads libcrypto if it is not loaded yet.
        ///
        /// - Throws: ``CryptoError/Code-swift.struct/unavailable`` when no candidate library loads.
        package static func ensureAvailable() throws(CryptoError) {
            try loadResult.get()
        }

        /// The loaded library's version text, or `nil` when none is loaded.
        package static var libraryDescription: String? {
            guard (try? loadResult.get()) != nil, let text = ccrypto_version() else { return nil }
            return String(cString: text)
        }
    #endif

    /// AES-256-CBC from `input` into `output`, which must hold `input.count + 16` bytes; returns how
    /// many bytes were written. With `padding`, PKCS#7 padding is added or checked and removed.
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/encryptionFailed`` or
    ///   ``CryptoError/Code-swift.struct/decryptionFailed`` (bad sizes, bad padding).
    package static func aes256CBC(
        encrypting: Bool, padding: Bool = true, key: [UInt8], iv: [UInt8], input: UnsafeRawBufferPointer,
        output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) -> Int {
        try ensureAvailable()
        let failure = CryptoError(
            code: encrypting ? .encryptionFailed : .decryptionFailed,
            message: encrypting
                ? "AES-256-CBC encryption failed"
                : "AES-256-CBC decryption failed (wrong key, or not whole blocks with valid padding)")
        guard key.count == keySize, iv.count == blockSize, output.count >= input.count + blockSize,
            let outputBase = output.baseAddress
        else { throw failure }
        if !padding && input.count % blockSize != 0 { throw failure }
        if !encrypting && (input.isEmpty || input.count % blockSize != 0) { throw failure }
        var written = 0
        #if canImport(CommonCrypto)
            let status = key.withUnsafeBytes { keyBytes in
                iv.withUnsafeBytes { ivBytes in
                    CCCrypt(
                        CCOperation(encrypting ? kCCEncrypt : kCCDecrypt), CCAlgorithm(kCCAlgorithmAES),
                        CCOptions(padding ? kCCOptionPKCS7Padding : 0), keyBytes.baseAddress, keyBytes.count,
                        ivBytes.baseAddress, input.baseAddress, input.count, outputBase, output.count, &written)
                }
            }
            guard status == CCCryptorStatus(kCCSuccess) else { throw failure }
        #else
            let status = key.withUnsafeBufferPointer { keyBytes in
                iv.withUnsafeBufferPointer { ivBytes in
                    ccrypto_aes_256_cbc(
                        encrypting ? 1 : 0, padding ? 1 : 0, keyBytes.baseAddress, ivBytes.baseAddress,
                        input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                        outputBase.assumingMemoryBound(to: UInt8.self), output.count, &written)
                }
            }
            guard status == 0 else { throw failure }
        #endif
        return written
    }

    /// AES-256-CBC of `input` into a new array; see ``aes256CBC(encrypting:padding:key:iv:input:output:)``.
    package static func aes256CBC(
        encrypting: Bool, padding: Bool = true, key: [UInt8], iv: [UInt8], _ input: ArraySlice<UInt8>
    ) throws(CryptoError) -> [UInt8] {
        // The standard library's buffer helpers rethrow untyped errors, so the failure is carried out.
        var failure: CryptoError?
        let output = [UInt8](unsafeUninitializedCapacity: input.count + blockSize) { buffer, initialized in
            initialized = 0
            input.withUnsafeBytes { inputBytes in
                do throws(CryptoError) {
                    initialized = try aes256CBC(
                        encrypting: encrypting, padding: padding, key: key, iv: iv, input: inputBytes,
                        output: UnsafeMutableRawBufferPointer(buffer))
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
        return output
    }

    /// The SHA-256 digest of `bytes`.
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/unavailable`` when the library cannot be loaded.
    package static func sha256(_ bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        try ensureAvailable()
        var digest = [UInt8](repeating: 0, count: digestSize)
        #if canImport(CommonCrypto)
            bytes.withUnsafeBytes { input in
                digest.withUnsafeMutableBufferPointer { output in
                    var context = CC_SHA256_CTX()
                    CC_SHA256_Init(&context)
                    // CC_LONG is 32 bits: feed large inputs in slices.
                    var offset = 0
                    while offset < input.count {
                        let slice = min(input.count - offset, 1 << 30)
                        CC_SHA256_Update(&context, input.baseAddress?.advanced(by: offset), CC_LONG(slice))
                        offset += slice
                    }
                    CC_SHA256_Final(output.baseAddress, &context)
                }
            }
        #else
            let status = bytes.withUnsafeBufferPointer { input in
                digest.withUnsafeMutableBufferPointer { output in
                    ccrypto_sha256(input.baseAddress, input.count, output.baseAddress)
                }
            }
            guard status == 0 else {
                throw CryptoError(code: .unavailable, message: "libcrypto could not compute SHA-256")
            }
        #endif
        return digest
    }

    /// `count` bytes from the platform's cryptographically secure random generator.
    ///
    /// - Throws: ``CryptoError/Code-swift.struct/encryptionFailed`` when the generator fails.
    package static func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        try ensureAvailable()
        var bytes = [UInt8](repeating: 0, count: count)
        #if canImport(CommonCrypto)
            let ok = bytes.withUnsafeMutableBytes { buffer in
                CCRandomGenerateBytes(buffer.baseAddress, buffer.count) == CCRNGStatus(kCCSuccess)
            }
        #else
            let ok = bytes.withUnsafeMutableBufferPointer { buffer in
                ccrypto_random_bytes(buffer.baseAddress, buffer.count) == 0
            }
        #endif
        guard ok else { throw CryptoError(code: .encryptionFailed, message: "the random generator failed") }
        return bytes
    }
}
