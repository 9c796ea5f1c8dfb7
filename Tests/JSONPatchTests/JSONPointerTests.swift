import JSONCore
import JSONPatch
import Testing

@Suite struct JSONPointerTests {
    @Test(arguments: [
        ("", [String]()),
        ("/", [""]),
        ("/foo", ["foo"]),
        ("/foo/0", ["foo", "0"]),
        ("//", ["", ""]),
        ("/a~1b", ["a/b"]),
        ("/m~0n", ["m~n"]),
        ("/~01", ["~1"]),
        ("/~10", ["/0"]),
        ("/c%d", ["c%d"]),
        ("/ ", [" "]),
        ("/user.name", ["user.name"]),
        ("/ünï/çødé", ["ünï", "çødé"]),
        ("/a/", ["a", ""]),
    ])
    func parsesTokens(text: String, tokens: [String]) throws {
        let pointer = try JSONPointer(text)
        #expect(pointer.tokens == tokens)
        #expect(pointer.description == text)
        #expect(JSONPointer(tokens: tokens) == pointer)
    }

    @Test(arguments: ["foo", "a/b", "~", "/~", "/~2", "/a~", "/a~x/b", "/~~0"])
    func rejectsInvalidText(text: String) {
        #expect(throws: PatchError.self) { try JSONPointer(text) }
        do {
            _ = try JSONPointer(text)
        } catch {
            #expect(error.code == .invalidPointer)
            #expect(error.pointer == text)
        }
    }

    @Test func escapesTokens() {
        #expect(JSONPointer.escape("a/b~c") == "a~1b~0c")
        #expect(JSONPointer.escape("~1") == "~01")
        #expect(JSONPointer.escape("plain") == "plain")
        #expect(JSONPointer.payload.appending("sizes/eu").description == "/payload/sizes~1eu")
        #expect(JSONPointer.root.appending(index: 3).description == "/3")
        #expect(JSONPointer.payload.appending(contentsOf: ["a", "b"]).description == "/payload/a/b")
    }

    @Test(arguments: [
        ("0", 0), ("7", 7), ("10", 10), ("123456", 123_456),
    ])
    func acceptsArrayIndices(token: String, index: Int) {
        #expect(JSONPointer.arrayIndex(token) == index)
    }

    @Test(arguments: ["", "-", "00", "01", "1e0", "+1", "-1", " 1", "1 ", "0x1", "1.0", "99999999999999999999999"])
    func rejectsNonIndices(token: String) {
        #expect(JSONPointer.arrayIndex(token) == nil)
    }

    @Test func relationsAndParents() throws {
        let a = try JSONPointer("/a")
        let ab = try JSONPointer("/a/b")
        #expect(a.isProperPrefix(of: ab))
        #expect(!ab.isProperPrefix(of: a))
        #expect(!a.isProperPrefix(of: a))
        #expect(a.isPrefix(of: a))
        #expect(JSONPointer.root.isProperPrefix(of: a))
        #expect(try !JSONPointer("/ab").isPrefix(of: ab))
        #expect(ab.parent == a)
        #expect(ab.lastToken == "b")
        #expect(JSONPointer.root.parent == nil)
        #expect(JSONPointer.root.isRoot)
    }

    @Test func resolvesValues() throws {
        let document: JSONValue = ["foo": ["bar", "baz"], "": 0, "a/b": 1, "m~n": 8, "k": ["0": "zero"]]
        #expect(JSONPointer.root.value(in: document) == document)
        #expect(try JSONPointer("/foo/1").value(in: document) == "baz")
        #expect(try JSONPointer("/").value(in: document) == 0)
        #expect(try JSONPointer("/a~1b").value(in: document) == 1)
        #expect(try JSONPointer("/m~0n").value(in: document) == 8)
        #expect(try JSONPointer("/k/0").value(in: document) == "zero")
        #expect(try JSONPointer("/foo/2").value(in: document) == nil)
        #expect(try JSONPointer("/foo/-").value(in: document) == nil)
        #expect(try JSONPointer("/foo/01").value(in: document) == nil)
        #expect(try JSONPointer("/foo/0/x").value(in: document) == nil)
    }

    @Test func codesAsString() throws {
        let pointer = try JSONPointer("/a~1b/0")
        let value = try JSONValue(from: [pointer])
        #expect(value == ["/a~1b/0"])
        #expect(try value.decode([JSONPointer].self) == [pointer])
        #expect(throws: JSONError.self) { try JSONValue.array(["nope"]).decode([JSONPointer].self) }
    }
}
