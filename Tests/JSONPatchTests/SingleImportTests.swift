import JSONPatch
import Testing

/// Compiles with `import JSONPatch` alone: the module's API is usable without importing JSONCore.
@Suite("JSONPatch alone")
struct JSONPatchSingleImportTests {
    @Test("a patch applies with only JSONPatch imported")
    func applyWithOneImport() throws {
        let document: JSONValue = ["name": "Ada"]
        let patched = try Patch.apply([.replace(path: "/name", value: "Grace")], to: document)
        #expect(patched == ["name": "Grace"])
    }

    @Test("diffEncoded takes an encoder with only JSONPatch imported")
    func diffEncodedWithAnEncoderAndOneImport() throws {
        struct Product: Encodable {
            var price: Double
        }
        let encoder = JSONValueEncoder(dateStrategy: .iso8601, dataStrategy: .base64)
        let operations = try Patch.diffEncoded(
            from: Product(price: 1), to: Product(price: 2), under: .root, encoder: encoder)
        #expect(operations == [.replace(path: "/price", value: 2)])
    }
}
