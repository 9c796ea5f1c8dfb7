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
}
