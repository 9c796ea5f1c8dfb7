import PubNubCrypto
import Testing

@Suite("The platform primitives against NIST and FIPS vectors")
struct PrimitiveVectorTests {
    // NIST SP 800-38A, F.2.5 (CBC-AES256.Encrypt) and F.2.6 (CBC-AES256.Decrypt): four blocks, no padding.
    static let key = bytes(hex: "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
    static let iv = bytes(hex: "000102030405060708090a0b0c0d0e0f")
    static let plaintext = bytes(
        hex: """
            6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
            30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710
            """)
    static let ciphertext = bytes(
        hex: """
            f58c4c04d6e5f1ba779eabfb5f7bfbd6 9cfc4e967edb808d679f777bc6702c7d
            39f23369a9d9bacfa530e26304231461 b2eb05e2c39be9fcda6c19078c6a9d1b
            """)

    @Test("F.2.5: AES-256-CBC encryption gives the NIST ciphertext")
    func nistEncrypt() throws {
        let output = try CryptoPrimitives.aes256CBC(
            encrypting: true, padding: false, key: Self.key, iv: Self.iv, Self.plaintext[...])
        #expect(output == Self.ciphertext)
    }

    @Test("F.2.6: AES-256-CBC decryption gives the NIST plaintext")
    func nistDecrypt() throws {
        let output = try CryptoPrimitives.aes256CBC(
            encrypting: false, padding: false, key: Self.key, iv: Self.iv, Self.ciphertext[...])
        #expect(output == Self.plaintext)
    }

    @Test("F.2.5 with each prefix of whole blocks: CBC chains block by block")
    func nistPrefixes() throws {
        for blocks in 1...4 {
            let output = try CryptoPrimitives.aes256CBC(
                encrypting: true, padding: false, key: Self.key, iv: Self.iv, Self.plaintext.prefix(blocks * 16))
            #expect(output == Array(Self.ciphertext.prefix(blocks * 16)))
        }
    }

    @Test("PKCS#7 adds a whole block to whole-block input, and the NIST blocks come first")
    func pkcs7OverNIST() throws {
        let output = try CryptoPrimitives.aes256CBC(
            encrypting: true, key: Self.key, iv: Self.iv, Self.plaintext[...])
        #expect(output.count == 80)
        #expect(Array(output.prefix(64)) == Self.ciphertext)
        let back = try CryptoPrimitives.aes256CBC(encrypting: false, key: Self.key, iv: Self.iv, output[...])
        #expect(back == Self.plaintext)
    }

    @Test("PKCS#7 pads every length to the next whole block", arguments: [0, 1, 15, 16, 17, 31, 32, 100])
    func pkcs7Lengths(length: Int) throws {
        let input = [UInt8](repeating: 0x61, count: length)
        let output = try CryptoPrimitives.aes256CBC(encrypting: true, key: Self.key, iv: Self.iv, input[...])
        #expect(output.count == (length / 16 + 1) * 16)
        #expect(try CryptoPrimitives.aes256CBC(encrypting: false, key: Self.key, iv: Self.iv, output[...]) == input)
    }

    @Test("Decryption rejects bad sizes and bad padding instead of returning bytes")
    func rejectsBadInput() {
        let key = Self.key
        let iv = Self.iv
        let nist = Self.ciphertext
        for input in [[], [UInt8](repeating: 1, count: 15), [UInt8](repeating: 1, count: 17)] {
            let error = cryptoError {
                _ = try CryptoPrimitives.aes256CBC(encrypting: false, key: key, iv: iv, input[...])
            }
            #expect(error?.code == .decryptionFailed)
        }
        // The NIST plaintext does not end in PKCS#7 padding (a last byte of 0x10 needs 16 of them).
        let unpadded = cryptoError {
            _ = try CryptoPrimitives.aes256CBC(encrypting: false, key: key, iv: iv, nist[...])
        }
        #expect(unpadded?.code == .decryptionFailed)
        let shortKey = cryptoError {
            _ = try CryptoPrimitives.aes256CBC(encrypting: true, key: Array(key.prefix(16)), iv: iv, nist[...])
        }
        #expect(shortKey?.code == .encryptionFailed)
        let noPaddingPartial = cryptoError {
            _ = try CryptoPrimitives.aes256CBC(encrypting: true, padding: false, key: key, iv: iv, nist.prefix(20))
        }
        #expect(noPaddingPartial?.code == .encryptionFailed)
    }

    // FIPS 180-2 / NIST CSRC examples.
    @Test(
        "SHA-256 gives the FIPS 180 digests",
        arguments: [
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func sha256(message: String, digest: String) throws {
        #expect(try CryptoPrimitives.sha256(Array(message.utf8)) == bytes(hex: digest))
    }

    @Test("SHA-256 of one million 'a' gives the FIPS 180 digest")
    func sha256Million() throws {
        let digest = try CryptoPrimitives.sha256([UInt8](repeating: 0x61, count: 1_000_000))
        #expect(digest == bytes(hex: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"))
    }

    @Test("Random bytes have the asked length and differ between calls")
    func random() throws {
        let first = try CryptoPrimitives.randomBytes(32)
        let second = try CryptoPrimitives.randomBytes(32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(try CryptoPrimitives.randomBytes(0).isEmpty)
    }

    #if !canImport(CommonCrypto)
        @Test("A library that cannot be loaded is reported as unavailable, naming every candidate")
        func unavailable() throws {
            let result = CryptoPrimitives.load(candidates: ["libcrypto-missing.so.9", "/nonexistent/libcrypto.so"])
            guard case .failure(let error) = result else {
                Issue.record("a missing library loaded")
                return
            }
            #expect(error.code == .unavailable)
            #expect(error.message.contains("libcrypto-missing.so.9"))
            #expect(error.message.contains("/nonexistent/libcrypto.so"))
            let library = try #require(CryptoPrimitives.libraryDescription)
            #expect(library.contains("OpenSSL"))
        }
    #endif
}
