import JSONCore
import JSONPatch
import Testing

/// RFC 6901 §4 and RFC 6902 §4.6 compare member names and strings code point by code point:
/// "é" (U+00E9) and "e\u{301}" (U+0065 U+0301), equal as Swift strings, are different here.
@Suite struct PatchScalarIdentityTests {
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    static func both() throws -> JSONValue {
        try JSONValue(parsing: #"{"\u00e9":1,"e\u0301":2}"#)
    }

    @Test func pointerResolvesOnlyTheExactName() throws {
        let onlyComposed = try JSONValue(parsing: #"{"\u00e9":1}"#)
        #expect(try JSONPointer("/" + Self.composed).value(in: onlyComposed) == 1)
        #expect(try JSONPointer("/" + Self.decomposed).value(in: onlyComposed) == nil)
        #expect(try JSONPointer("/" + Self.decomposed).value(in: Self.both()) == 2)
    }

    @Test func pointersWithDifferentSpellingsAreDifferent() throws {
        let composed = try JSONPointer("/a/" + Self.composed)
        let decomposed = try JSONPointer("/a/" + Self.decomposed)
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        #expect(!composed.isPrefix(of: decomposed.appending("x")))
        #expect(try JSONPointer("/a").isPrefix(of: decomposed))
    }

    @Test func testOperationComparesNamesByScalars() throws {
        let document = try JSONValue(parsing: #"{"\u00e9":"x"}"#)
        let error = try #require(throws: PatchError.self) {
            try Patch.apply([.test(path: "/" + Self.decomposed, value: "x")], to: document)
        }
        #expect(error.code == .pathNotFound)
    }

    @Test func testOperationComparesStringsByScalars() throws {
        let document: JSONValue = ["name": .string(Self.composed)]
        let error = try #require(throws: PatchError.self) {
            try Patch.apply([.test(path: "/name", value: .string(Self.decomposed))], to: document)
        }
        #expect(error.code == .testFailed)
        #expect(try Patch.apply([.test(path: "/name", value: .string(Self.composed))], to: document) == document)
    }

    @Test func addKeepsTheOtherSpelling() throws {
        let document = try JSONValue(parsing: #"{"\u00e9":1}"#)
        let patched = try Patch.apply([.add(path: "/" + Self.decomposed, value: 2)], to: document)
        #expect(patched == (try Self.both()))
        #expect(patched.objectValue?.count == 2)
    }

    @Test func removeAndReplaceTouchOnlyTheExactName() throws {
        let removed = try Patch.apply([.remove(path: "/" + Self.decomposed)], to: Self.both())
        #expect(removed == (try JSONValue(parsing: #"{"\u00e9":1}"#)))
        let replaced = try Patch.apply([.replace(path: "/" + Self.composed, value: 3)], to: Self.both())
        #expect(replaced == (try JSONValue(parsing: #"{"\u00e9":3,"e\u0301":2}"#)))
        let moved = try Patch.apply([.move(from: "/" + Self.composed, path: "/" + Self.decomposed)], to: Self.both())
        #expect(moved == (try JSONValue(parsing: #"{"e\u0301":1}"#)))
    }

    @Test func diffSeesBothMembers() throws {
        let old = try JSONValue(parsing: #"{"\u00e9":1}"#)
        let new = try Self.both()
        let operations = Patch.diff(from: old, to: new)
        #expect(operations == [.add(path: "/" + Self.decomposed, value: 2)])
        #expect(try Patch.apply(operations, to: old) == new)
        #expect(try Patch.apply(Patch.diff(from: new, to: old), to: new) == old)
    }
}
