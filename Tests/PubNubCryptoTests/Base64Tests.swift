import DataSyncTestSupport
import Foundation
import PubNubCrypto
import Testing

@Suite("Strict standard base64")
struct Base64Tests {
    @Test(
        "RFC 4648 §10 vectors",
        arguments: [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ])
    func rfcVectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test("Agrees with Foundation on every length up to 100")
    func agreesWithFoundation() {
        var generator = SeededRandomNumberGenerator(seed: 64)
        for length in 0...100 {
            let data = randomBytes(length, using: &generator)
            let text = Base64.encode(data)
            #expect(text == Data(data).base64EncodedString())
            #expect(Base64.decode(text) == data)
        }
    }

    @Test(
        "Rejects what is not exactly padded standard base64",
        arguments: ["====", "A===", "AB=C", "Zg=", "Zg", "Zm9v\n", " Zm9v", "Zm-v", "Zm_v", "Zm9v====", "Zg==Zg=="])
    func rejects(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
