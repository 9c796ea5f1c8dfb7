import DataSyncTestSupport
import JSONCore
import PubNubCrypto
import Testing

@Suite("The crypto module throws on bad input and never crashes")
struct CryptoModuleErrorTests {
    static let module = Result { try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma") }

    static func header(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("An empty cipher key is an invalid key, for every constructor")
    func emptyKey() {
        #expect(cryptoError { _ = try AESCBCCryptor(cipherKey: "") }?.code == .invalidKey)
        #expect(cryptoError { _ = try LegacyCryptor(cipherKey: "") }?.code == .invalidKey)
        #expect(cryptoError { _ = try CryptoModule.aesCbcCryptoModule(cipherKey: "") }?.code == .invalidKey)
        #expect(cryptoError { _ = try CryptoModule.legacyCryptoModule(cipherKey: "") }?.code == .invalidKey)
    }

    @Test("Empty input is refused both ways, as PubNub's SDKs refuse it")
    func emptyInput() throws {
        let module = try Self.module.get()
        #expect(cryptoError { _ = try module.encrypt([]) }?.code == .emptyInput)
        #expect(cryptoError { _ = try module.decrypt([]) }?.code == .emptyInput)
        #expect(cryptoError { _ = try module.decryptBase64("") }?.code == .emptyInput)
    }

    @Test(
        "Text that is not standard base64 is invalid base64",
        arguments: ["not base64!", "QUJD\n", "QUJ", "====", "\u{1F511}"])
    func badBase64(text: String) throws {
        let module = try Self.module.get()
        #expect(cryptoError { _ = try module.decryptBase64(text) }?.code == .invalidBase64)
        #expect(cryptoError { _ = try module.decryptMessage(text) }?.code == .invalidBase64)
    }

    @Test(
        "A header cut short, or of version 0, is malformed",
        arguments: [
            "PNED", "PNED\u{1}", "PNED\u{1}AC", "PNED\u{1}ACRH", "PNED\u{1}ACRH\u{10}", "PNED\u{1}ACRH\u{10}0123",
            "PNED\u{0}ACRH\u{0}0123456789abcdef",
        ])
    func malformedHeader(text: String) throws {
        let module = try Self.module.get()
        let data = Self.header(text)
        #expect(cryptoError { _ = try module.decrypt(data) }?.code == .malformedHeader, "\(data)")
    }

    @Test("A wide metadata length cut short is malformed")
    func wideLengthTruncated() throws {
        let module = try Self.module.get()
        let base = Self.header("PNED\u{1}ACRH") + [0xFF]
        #expect(cryptoError { _ = try module.decrypt(base) }?.code == .malformedHeader)
        #expect(cryptoError { _ = try module.decrypt(base + [0x01]) }?.code == .malformedHeader)
        #expect(
            cryptoError { _ = try module.decrypt(base + [0x01, 0x00] + [UInt8](repeating: 0, count: 255)) }?.code
                == .malformedHeader)
    }

    @Test("A newer header version or an unknown cryptor is an unknown cryptor")
    func unknownCryptor() throws {
        let module = try Self.module.get()
        let block = [UInt8](repeating: 0, count: 16)
        #expect(
            cryptoError { _ = try module.decrypt(Self.header("PNED\u{2}ACRH\u{10}") + block + block) }?.code
                == .unknownCryptor)
        #expect(
            cryptoError { _ = try module.decrypt(Self.header("PNED\u{1}ABCD\u{0}") + block) }?.code == .unknownCryptor)
        // A module without a legacy cryptor cannot read headerless data.
        let aesOnly = CryptoModule(defaultCryptor: try AESCBCCryptor(cipherKey: "enigma"))
        let legacyData = try CryptoModule.legacyCryptoModule(cipherKey: "enigma").encrypt([1, 2, 3])
        #expect(cryptoError { _ = try aesOnly.decrypt(legacyData) }?.code == .unknownCryptor)
    }

    @Test("A valid header with nothing after it, or an IV of the wrong size, fails decryption")
    func headerWithoutCiphertext() throws {
        let module = try Self.module.get()
        let iv = [UInt8](repeating: 7, count: 16)
        #expect(
            cryptoError { _ = try module.decrypt(Self.header("PNED\u{1}ACRH\u{10}") + iv) }?.code == .decryptionFailed)
        let eightByteIV = Self.header("PNED\u{1}ACRH\u{8}") + [UInt8](repeating: 7, count: 8) + iv
        #expect(cryptoError { _ = try module.decrypt(eightByteIV) }?.code == .decryptionFailed)
        let partialBlock = Self.header("PNED\u{1}ACRH\u{10}") + iv + [1, 2, 3]
        #expect(cryptoError { _ = try module.decrypt(partialBlock) }?.code == .decryptionFailed)
    }

    @Test(
        "Metadata lengths 254, 255, 256 and 65535 use the one- and three-byte length forms",
        arguments: [0, 1, 254, 255, 256, 65_535])
    func metadataLengths(count: Int) throws {
        let module = CryptoModule(defaultCryptor: MetadataCryptor(metadataCount: count))
        let plaintext = Array("payload".utf8)
        let output = try module.encrypt(plaintext)
        #expect(output.starts(with: Self.header("PNED\u{1}TEST")))
        if count < 255 {
            #expect(output[9] == UInt8(count))
            #expect(output.count == 10 + count + plaintext.count)
        } else {
            #expect(Array(output[9..<12]) == [0xFF, UInt8(count >> 8), UInt8(count & 0xFF)])
            #expect(output.count == 12 + count + plaintext.count)
        }
        #expect(try module.decrypt(output) == plaintext)
    }

    @Test("Metadata longer than 65535 bytes cannot be written")
    func metadataTooLong() {
        let module = CryptoModule(defaultCryptor: MetadataCryptor(metadataCount: 65_536))
        #expect(cryptoError { _ = try module.encrypt([1]) }?.code == .encryptionFailed)
    }

    @Test("Every truncation of a ciphertext fails, for both formats")
    func truncations() throws {
        // ASCII text: no block of it ends in a byte that is valid PKCS#7 padding (1...16), so a
        // ciphertext cut at a block boundary cannot decrypt by chance.
        let plaintext = Array(#"{"text":"a message long enough for several blocks of ciphertext"}"#.utf8)
        for module in [
            try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma"),
            try CryptoModule.legacyCryptoModule(cipherKey: "enigma", useRandomIV: true),
            try CryptoModule.legacyCryptoModule(cipherKey: "enigma", useRandomIV: false),
        ] {
            let output = try module.encrypt(plaintext)
            for length in 0..<output.count {
                let error = cryptoError { _ = try module.decrypt(Array(output.prefix(length))) }
                #expect(error != nil, "\(module.defaultCryptor.id) cut to \(length) of \(output.count) bytes")
            }
        }
    }

    @Test("A wrong key fails decryption and never yields the message")
    func wrongKey() throws {
        let message: JSONValue = ["text": "the secret is in the second block of this message"]
        for randomIV in [true, false] {
            let right = try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma", useRandomIV: randomIV)
            let wrong = try CryptoModule.aesCbcCryptoModule(cipherKey: "enigmb", useRandomIV: randomIV)
            let legacy = try CryptoModule.legacyCryptoModule(cipherKey: "enigma", useRandomIV: randomIV)
            for wire in [try right.encryptMessage(message), try legacy.encryptMessage(message)] {
                #expect(cryptoError { _ = try wrong.decryptMessage(wire) }?.code == .decryptionFailed)
                do {
                    #expect(try wrong.decryptBase64(wire) != (try message.jsonBytes()))
                } catch {
                    #expect((error as? CryptoError)?.code == .decryptionFailed)
                }
            }
        }
        // The static IV makes this one deterministic: bad padding, so the bytes API fails too.
        let legacy = try CryptoModule.legacyCryptoModule(cipherKey: "enigma", useRandomIV: false)
        let wrong = try CryptoModule.legacyCryptoModule(cipherKey: "wrong", useRandomIV: false)
        let wire = try legacy.encryptBase64(Array(#""hello""#.utf8))
        #expect(cryptoError { _ = try wrong.decryptBase64(wire) }?.code == .decryptionFailed)
    }

    @Test("Legacy data read with the other IV mode is not taken for the message")
    func mismatchedIVMode() throws {
        let message: JSONValue = ["text": "longer than one block, so a shifted read is visible"]
        let randomIV = try CryptoModule.legacyCryptoModule(cipherKey: "enigma", useRandomIV: true)
        let staticIV = try CryptoModule.legacyCryptoModule(cipherKey: "enigma", useRandomIV: false)
        #expect(
            cryptoError { _ = try staticIV.decryptMessage(try randomIV.encryptMessage(message)) }?.code
                == .decryptionFailed)
        #expect(
            cryptoError { _ = try randomIV.decryptMessage(try staticIV.encryptMessage(message)) }?.code
                == .decryptionFailed)
    }

    @Test("Random bytes, with and without the sentinel, throw or decrypt but never crash")
    func randomInput() throws {
        var generator = SeededRandomNumberGenerator(seed: 2024)
        let modules = [
            try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma", useRandomIV: true),
            try CryptoModule.legacyCryptoModule(cipherKey: "enigma", useRandomIV: false),
        ]
        var thrown = 0
        let rounds = 3000
        for round in 0..<rounds {
            let length = Int.random(in: 0...80, using: &generator)
            var data = randomBytes(length, using: &generator)
            if round % 3 == 0 { data = Array("PNED".utf8) + data }
            if round % 6 == 0, data.count > 9 { data.replaceSubrange(4..<9, with: Array("\u{1}ACRH".utf8)) }
            for module in modules {
                do {
                    _ = try module.decrypt(data)
                    // Only whole blocks can ever decrypt.
                    #expect(data.count % 16 == 0 || data.starts(with: Array("PNED".utf8)))
                } catch {
                    thrown += 1
                }
                _ = try? module.decryptMessage(String(decoding: data, as: UTF8.self))
            }
        }
        // Random data passes the padding check about once in 256 tries; almost all must throw.
        #expect(thrown > rounds * 2 * 9 / 10)
    }
}
