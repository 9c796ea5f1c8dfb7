import Foundation
import JSONCore
import JSONPatch
import Testing

@Suite struct PatchOperationCodingTests {
    static let cases: [(PatchOperation, JSONValue)] = [
        (.add(path: "/payload/tags", value: "sale"), ["op": "add", "path": "/payload/tags", "value": "sale"]),
        (.replace(path: "/payload/price", value: 79.99), ["op": "replace", "path": "/payload/price", "value": 79.99]),
        (.remove(path: "/payload/tempFlag"), ["op": "remove", "path": "/payload/tempFlag"]),
        (
            .move(from: "/payload/oldTag", path: "/payload/tag"),
            ["op": "move", "from": "/payload/oldTag", "path": "/payload/tag"]
        ),
        (
            .copy(from: "/payload/price", path: "/payload/msrp"),
            ["op": "copy", "from": "/payload/price", "path": "/payload/msrp"]
        ),
        (.test(path: "/status", value: "active"), ["op": "test", "path": "/status", "value": "active"]),
        (.add(path: "/a", value: nil), ["op": "add", "path": "/a", "value": nil]),
        (.test(path: "", value: ["x": [1, 2.5]]), ["op": "test", "path": "", "value": ["x": [1, 2.5]]]),
        (.replace(path: "/user.name", value: 24), ["op": "replace", "path": "/user.name", "value": 24]),
    ]

    @Test(arguments: cases)
    func encodesTheWireFormAndDecodesBack(operation: PatchOperation, wire: JSONValue) throws {
        let value = try JSONValue(from: operation)
        #expect(value == wire)
        #expect(value.objectValue?.keys.sorted() == wire.objectValue?.keys.sorted())
        #expect(try value.decode(PatchOperation.self) == operation)

        let bytes = try JSONEncoder().encode(operation)
        #expect(try JSONValue(parsing: bytes) == wire)
        #expect(try JSONDecoder().decode(PatchOperation.self, from: bytes) == operation)
    }

    @Test func aPatchIsABareArray() throws {
        let operations = Self.cases.map(\.0)
        let bytes = try JSONValue(from: operations).jsonBytes()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("[{\"op\":\"add\",\"path\":\"/payload/tags\",\"value\":\"sale\"}"))
        #expect(try JSONValue(parsing: bytes).decode([PatchOperation].self) == operations)
        #expect(try JSONDecoder().decode([PatchOperation].self, from: Data(bytes)) == operations)
    }

    @Test func removeCarriesNoValue() throws {
        let text = try JSONValue(from: PatchOperation.remove(path: "/a")).jsonString()
        #expect(text == "{\"op\":\"remove\",\"path\":\"/a\"}")
    }

    @Test func ignoresUnusedMembers() throws {
        let wire: JSONValue = ["op": "remove", "path": "/a", "value": 1, "from": "/b", "extra": true]
        #expect(try wire.decode(PatchOperation.self) == .remove(path: "/a"))
    }

    static let malformed: [(JSONValue, String)] = [
        (["path": "/a", "value": 1], "needs an \"op\" member"),
        (["op": "spam", "path": "/a", "value": 1], "unknown JSON Patch op \"spam\""),
        (["op": 3, "path": "/a"], "\"op\" member must be a string"),
        (["op": "add", "value": 1], "\"add\" operation needs a \"path\""),
        (["op": "add", "path": nil, "value": 1], "\"path\" member must be a JSON Pointer string"),
        (["op": "add", "path": "/a"], "\"add\" operation needs a \"value\""),
        (["op": "replace", "path": "/a"], "\"replace\" operation needs a \"value\""),
        (["op": "test", "path": "/a"], "\"test\" operation needs a \"value\""),
        (["op": "move", "path": "/a"], "\"move\" operation needs a \"from\""),
        (["op": "copy", "path": "/a"], "\"copy\" operation needs a \"from\""),
        (["op": "copy", "from": 1, "path": "/a"], "\"from\" member must be a JSON Pointer string"),
        (["op": "remove"], "\"remove\" operation needs a \"path\""),
    ]

    @Test(arguments: malformed)
    func rejectsMalformedOperations(wire: JSONValue, message: String) throws {
        let error = try #require(throws: JSONError.self) { try wire.decode(PatchOperation.self) }
        #expect(error.message.contains(message), "\(error.message)")

        let bytes = try wire.jsonBytes()
        let foundationError = try #require(throws: DecodingError.self) {
            try JSONDecoder().decode(PatchOperation.self, from: Data(bytes))
        }
        #expect("\(foundationError)".contains(message), "\(foundationError)")
    }

    @Test func decodingErrorNamesTheOperationIndex() throws {
        let wire: JSONValue = [["op": "remove", "path": "/a"], ["op": "add", "path": "/b"]]
        let error = try #require(throws: JSONError.self) { try wire.decode([PatchOperation].self) }
        #expect(error.path?.contains("1") == true, "\(error)")
    }

    @Test func accessorsExposeTheMembers() {
        #expect(PatchOperation.move(from: "/a", path: "/b").from == "/a")
        #expect(PatchOperation.add(path: "/a", value: 1).from == nil)
        #expect(PatchOperation.add(path: "/a", value: 1).value == 1)
        #expect(PatchOperation.remove(path: "/a").value == nil)
        #expect(PatchOperation.copy(from: "/a", path: "/b").path == "/b")
    }
}
