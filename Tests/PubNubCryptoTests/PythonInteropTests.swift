import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCrypto
import Testing

/// One ciphertext and what it holds, as `Tests/Interop/crypto_vectors.py` reads and writes them.
struct InteropCase: Codable {
    var name: String
    var producer: String
    var cryptor: String
    var cipherKey: String
    var useRandomIV: Bool
    var plaintext: String
    var ciphertext: String
}

struct InteropDocument: Codable {
    var description: String
    var sdk: String
    var cases: [InteropCase]
}

@Suite("Interoperability with PubNub's official Python SDK")
struct PythonInteropTests {
    static let script = PythonInterop.script("crypto_vectors.py")
    static let fixture = packageRoot.appendingPathComponent("Tests/Interop/python-crypto-vectors.json")

    static func loadFixture() throws -> InteropDocument {
        try JSONDecoder().decode(InteropDocument.self, from: Data(contentsOf: fixture))
    }

    static func modules(for item: InteropCase) throws -> [CryptoModule] {
        [
            try CryptoModule.aesCbcCryptoModule(cipherKey: item.cipherKey, useRandomIV: item.useRandomIV),
            try CryptoModule.legacyCryptoModule(cipherKey: item.cipherKey, useRandomIV: item.useRandomIV),
        ]
    }

    @Test("The fixture covers every format the Python SDK writes")
    func fixtureCoverage() throws {
        let document = try Self.loadFixture()
        #expect(document.sdk == "pubnub-python 10.8.0")
        let kinds = Set(document.cases.map { "\($0.cryptor) \($0.useRandomIV)" })
        #expect(kinds == ["ACRH true", "0000 true", "0000 false"])
        #expect(document.cases.count >= 200)
        #expect(document.cases.contains { $0.cipherKey.unicodeScalars.contains { !$0.isASCII } })
    }

    @Test("Swift decrypts every ciphertext the Python SDK produced, with both modules")
    func decryptPythonCiphertexts() throws {
        for item in try Self.loadFixture().cases {
            let expected = Array(item.plaintext.utf8)
            let message = try JSONValue(parsing: expected)
            for module in try Self.modules(for: item) {
                #expect(try module.decryptBase64(item.ciphertext) == expected, "\(item.name)")
                #expect(try module.decryptMessage(item.ciphertext) == message, "\(item.name)")
            }
            let raw = try #require(Data(base64Encoded: item.ciphertext))
            #expect(raw.starts(with: Array("PNED".utf8)) == (item.cryptor == "ACRH"), "\(item.name)")
        }
    }

    @Test("With the static IV, Swift writes exactly the bytes the Python SDK wrote")
    func staticIVMatchesByteForByte() throws {
        let cases = try Self.loadFixture().cases.filter { $0.cryptor == "0000" && !$0.useRandomIV }
        #expect(!cases.isEmpty)
        for item in cases {
            let module = try CryptoModule.legacyCryptoModule(cipherKey: item.cipherKey, useRandomIV: false)
            #expect(try module.encryptBase64(Array(item.plaintext.utf8)) == item.ciphertext, "\(item.name)")
        }
    }

    @Test("A wrong key fails on every Python ciphertext")
    func wrongKeyOnPythonCiphertexts() throws {
        for item in try Self.loadFixture().cases {
            let wrong = try CryptoModule.aesCbcCryptoModule(
                cipherKey: item.cipherKey + "!", useRandomIV: item.useRandomIV)
            #expect(cryptoError { _ = try wrong.decryptMessage(item.ciphertext) }?.code == .decryptionFailed)
        }
    }

    /// Ciphertexts made here, for the Python SDK to decrypt.
    static func swiftCases() throws -> [InteropCase] {
        var generator = SeededRandomNumberGenerator(seed: 7)
        let keys = [
            "enigma", "myCipherKey", "\u{43A}\u{43B}\u{44E}\u{447}-\u{1F511}", String(repeating: "k", count: 100),
        ]
        var messages: [JSONValue] = [
            "hello", ["text": "h\u{E9}llo w\u{F6}rld \u{1F30D}", "n": 1], [1, 2.5, nil, true],
            .string(String(repeating: "x", count: 13)), .string(String(repeating: "y", count: 14)),
            .string(String(repeating: "z", count: 15)),
        ]
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789 ")
        let long = String((0..<65_536).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        messages.append(["blob": .string(long)])
        var cases: [InteropCase] = []
        for key in keys {
            for (index, message) in messages.enumerated() {
                let text = String(decoding: try message.jsonBytes(sortedKeys: true), as: UTF8.self)
                for (name, cryptor, randomIV) in [
                    ("aesCbc", "ACRH", true), ("legacy", "0000", true), ("legacy", "0000", false),
                ] {
                    let module =
                        name == "aesCbc"
                        ? try CryptoModule.aesCbcCryptoModule(cipherKey: key, useRandomIV: randomIV)
                        : try CryptoModule.legacyCryptoModule(cipherKey: key, useRandomIV: randomIV)
                    cases.append(
                        InteropCase(
                            name: "swift \(name) key \(key.prefix(12)) message\(index) randomIV=\(randomIV)",
                            producer: "PubNubCrypto", cryptor: cryptor, cipherKey: key, useRandomIV: randomIV,
                            plaintext: text, ciphertext: try module.encryptMessage(message)))
                }
            }
        }
        return cases
    }

    /// Runs only when `PUBNUB_PYTHON` names a Python with `pubnub==10.8.0` installed; then any
    /// disagreement, or a Python that cannot run, fails the test.
    @Test(
        "The Python SDK decrypts every ciphertext Swift produced",
        .enabled(if: PythonInterop.python != nil))
    func pythonDecryptsSwiftCiphertexts() async throws {
        let python = try #require(PythonInterop.python)
        let document = InteropDocument(
            description: "Ciphertexts produced by PubNubCrypto for the Python SDK to decrypt", sdk: "PubNubCrypto",
            cases: try Self.swiftCases())
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("pubnubcrypto-swift-vectors-\(UUID().uuidString).json")
        try JSONEncoder().encode(document).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let result = try await ChildProcess(
            executable: python, arguments: [Self.script.path, "verify", file.path], mergingStandardError: true
        ).finish()
        let report = result.standardOutput
        #expect(result.status == 0, "Python disagrees:\n\(report)")
        #expect(report.contains("\(document.cases.count) of \(document.cases.count) Swift ciphertexts"), "\(report)")
    }
}
