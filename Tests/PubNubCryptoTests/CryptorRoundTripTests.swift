import DataSyncTestSupport
import JSONCore
import PubNubCrypto
import Testing

@Suite("Both cryptors and both modules round-trip every size")
struct CryptorRoundTripTests {
    static let sizes = [0, 1, 15, 16, 17, 31, 32, 33, 255, 1 << 20]

    static func cryptors() throws -> [any Cryptor] {
        [
            try AESCBCCryptor(cipherKey: "enigma"),
            try LegacyCryptor(cipherKey: "enigma", useRandomIV: true),
            try LegacyCryptor(cipherKey: "enigma", useRandomIV: false),
        ]
    }

    @Test("Each cryptor decrypts what it encrypted, with the expected length", arguments: sizes)
    func cryptorRoundTrip(size: Int) throws {
        var generator = SeededRandomNumberGenerator(seed: UInt64(size) &+ 17)
        let plaintext = randomBytes(size, using: &generator)
        let padded = (size / 16 + 1) * 16
        for cryptor in try Self.cryptors() {
            let payload = try cryptor.encrypt(plaintext)
            let randomIV = cryptor.id == .aesCbc || (cryptor as? LegacyCryptor)?.useRandomIV == true
            if cryptor.id == .aesCbc {
                #expect(payload.metadata.count == 16)
                #expect(payload.data.count == padded)
            } else {
                #expect(payload.metadata.isEmpty)
                #expect(payload.data.count == padded + (randomIV ? 16 : 0))
            }
            #expect(try cryptor.decrypt(payload) == plaintext, "cryptor \(cryptor.id) size \(size)")
            if randomIV {
                #expect(try cryptor.encrypt(plaintext) != payload, "a fresh IV for every message")
            } else {
                #expect(try cryptor.encrypt(plaintext) == payload, "the static IV is deterministic")
            }
        }
    }

    @Test("Each module decrypts its own output and the other module's", arguments: sizes.filter { $0 > 0 })
    func moduleRoundTrip(size: Int) throws {
        var generator = SeededRandomNumberGenerator(seed: UInt64(size) &* 31)
        let plaintext = randomBytes(size, using: &generator)
        for randomIV in [true, false] {
            let current = try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma", useRandomIV: randomIV)
            let legacy = try CryptoModule.legacyCryptoModule(cipherKey: "enigma", useRandomIV: randomIV)
            let fromCurrent = try current.encrypt(plaintext)
            let fromLegacy = try legacy.encrypt(plaintext)
            #expect(fromCurrent.starts(with: Array("PNED\u{1}ACRH\u{10}".utf8)))
            #expect(fromCurrent.count == 10 + 16 + (size / 16 + 1) * 16)
            #expect(!fromLegacy.starts(with: Array("PNED".utf8)))
            for module in [current, legacy] {
                #expect(try module.decrypt(fromCurrent) == plaintext)
                #expect(try module.decrypt(fromLegacy) == plaintext)
            }
        }
    }

    @Test("The factories pick the default cryptor PubNub's SDKs pick, and know both")
    func factories() throws {
        let current = try CryptoModule.aesCbcCryptoModule(cipherKey: "k")
        let legacy = try CryptoModule.legacyCryptoModule(cipherKey: "k")
        #expect(current.defaultCryptor.id == .aesCbc)
        #expect(legacy.defaultCryptor.id == .legacy)
        #expect(current.cryptors.map(\.id) == [.aesCbc, .legacy])
        #expect(legacy.cryptors.map(\.id) == [.legacy, .aesCbc])
        // PubNub's configurations default to random IVs for the legacy cryptor.
        #expect((legacy.defaultCryptor as? LegacyCryptor)?.useRandomIV == true)
        #expect((current.cryptors.last as? LegacyCryptor)?.useRandomIV == true)
    }

    @Test("The legacy key is the first 32 hex characters of SHA-256; the static IV is fixed")
    func legacyKnownAnswer() throws {
        // SHA-256("enigma") as hex starts "b0ff74…"; the legacy cryptor uses those 32 ASCII bytes
        // as the AES key. Computed independently of the cryptor, through the primitives:
        let digest = try CryptoPrimitives.sha256(Array("enigma".utf8))
        let hex = digest.map { byte in
            let text = String(byte, radix: 16)
            return text.count == 1 ? "0" + text : text
        }.joined()
        let key = Array(hex.prefix(32).utf8)
        let plaintext = Array(#"{"text":"hello"}"#.utf8)
        let expected = try CryptoPrimitives.aes256CBC(
            encrypting: true, key: key, iv: Array("0123456789012345".utf8), plaintext[...])
        let cryptor = try LegacyCryptor(cipherKey: "enigma", useRandomIV: false)
        #expect(try cryptor.encrypt(plaintext).data == expected)
        #expect(LegacyCryptor.staticInitializationVector == Array("0123456789012345".utf8))
    }

    @Test("The AES-CBC key is the raw SHA-256 digest and the IV travels in the header")
    func aesCbcKnownAnswer() throws {
        let plaintext = Array(#"{"text":"hello"}"#.utf8)
        let module = try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma")
        let output = try module.encrypt(plaintext)
        let iv = Array(output[10..<26])
        let key = try CryptoPrimitives.sha256(Array("enigma".utf8))
        let expected = try CryptoPrimitives.aes256CBC(encrypting: true, key: key, iv: iv, plaintext[...])
        #expect(Array(output[26...]) == expected)
    }

    @Test("JSON messages travel as base64 text and come back equal")
    func messages() throws {
        let message: JSONValue = [
            "text": "h\u{E9}llo w\u{F6}rld \u{1F30D}", "count": 3, "ratio": 0.5, "tags": ["a", nil, true],
        ]
        for module in [
            try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma"),
            try CryptoModule.legacyCryptoModule(cipherKey: "enigma", useRandomIV: false),
        ] {
            let wire = try module.encryptMessage(message)
            #expect(wire.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+/=".contains($0)) })
            #expect(try module.decryptMessage(wire) == message)
            #expect(try module.decryptBase64(wire) == (try message.jsonBytes()))
        }
    }

    @Test("A message that is not JSON-writable is refused before encrypting")
    func invalidMessage() throws {
        let module = try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma")
        #expect(cryptoError { _ = try module.encryptMessage(["bad": .double(.nan)]) }?.code == .invalidMessage)
    }
}
