import Foundation
import JSONCore
import Testing

/// Member names and strings are compared by Unicode scalars (RFC 8259 §8.3), never by Swift's
/// canonical equivalence: "é" (U+00E9) and "e\u{301}" (U+0065 U+0301) are different.
@Suite struct ScalarIdentityTests {
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    @Test func theTwoSpellingsAreCanonicallyEquivalentSwiftStrings() {
        // The premise of every other test here: Swift's own `==` calls them equal.
        #expect(Self.composed == Self.decomposed)
    }

    @Test(arguments: [
        #"{"\u00e9":1,"e\u0301":2}"#,
        "{\"\u{E9}\":1,\"e\u{301}\":2}",
    ])
    func parserKeepsBothMembers(text: String) throws {
        let value = try JSONValue(parsing: text)
        #expect(value.objectValue?.count == 2)
        #expect(value[Self.composed] == 1)
        #expect(value[Self.decomposed] == 2)
    }

    @Test func equivalentNamesAreNotDuplicates() throws {
        let options = JSONParsingOptions(rejectsDuplicateKeys: true)
        let value = try JSONValue(parsing: #"{"\u00e9":1,"e\u0301":2}"#, options: options)
        #expect(value.objectValue?.count == 2)
        #expect(throws: JSONError.self) { try JSONValue(parsing: #"{"\u00e9":1,"\u00e9":2}"#, options: options) }
    }

    @Test func writerRoundTripKeepsBothMembersInScalarOrder() throws {
        let value = try JSONValue(parsing: #"{"\u00e9":1,"e\u0301":2}"#)
        // U+0065 sorts before U+00E9, whatever Swift's String ordering says.
        #expect(try value.jsonString() == "{\"e\u{301}\":2,\"\u{E9}\":1}")
        for sorted in [true, false] {
            let back = try JSONValue(parsing: value.jsonBytes(sortedKeys: sorted))
            #expect(back == value)
            #expect(back.objectValue?.count == 2)
        }
    }

    @Test func objectsWithDifferentSpellingsAreDifferent() throws {
        let composed = try JSONValue(parsing: #"{"\u00e9":1}"#)
        let decomposed = try JSONValue(parsing: #"{"e\u0301":1}"#)
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
    }

    @Test func stringsWithDifferentSpellingsAreDifferent() {
        let composed = JSONValue.string(Self.composed)
        let decomposed = JSONValue.string(Self.decomposed)
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        #expect(JSONValue.array([composed]) != JSONValue.array([decomposed]))
    }

    @Test func equalValuesHashEqually() throws {
        let first = try JSONValue(parsing: #"{"\u00e9":"e\u0301","e\u0301":[1,"\u00e9"],"a":1.0}"#)
        let second = try JSONValue(parsing: #"{"a":1,"e\u0301":[1.0,"\u00e9"],"\u00e9":"e\u0301"}"#)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(Set([first, second]).count == 1)
    }

    @Test func objectBehavesLikeADictionaryWithExactNames() throws {
        var members: JSONObject = [Self.composed: 1, "a": true]
        members[Self.decomposed] = 2
        #expect(members.count == 3)
        #expect(members[Self.composed] == 1)
        #expect(members[Self.decomposed] == 2)
        #expect(members.keys.contains(Self.decomposed))
        #expect(members.sortedKeys == ["a", Self.decomposed, Self.composed])
        #expect(members.sortedKeys.map { Array($0.unicodeScalars) } == [["a"], ["e", "\u{301}"], ["\u{E9}"]])

        #expect(members.removeValue(forKey: Self.decomposed) == 2)
        #expect(members[Self.composed] == 1)
        #expect(members[Self.decomposed] == nil)
        #expect(!members.keys.contains(Self.decomposed))

        members.merge([Self.decomposed: 3, "a": false]) { _, new in new }
        #expect(members == [Self.composed: 1, Self.decomposed: 3, "a": false])
        #expect(members.mapValues { _ in JSONValue.null }.count == 3)
        #expect(members.filter { $0.key != "a" }.count == 2)
        #expect(members.dictionary.count == 2)  // the Swift view merges the two spellings

        if let index = members.index(forKey: Self.decomposed) {
            members.values[index] = 4
        }
        #expect(members[Self.decomposed] == 4)
        #expect(members[Self.composed] == 1)
    }

    @Test func codableConversionsKeepBothMembers() throws {
        let value = try JSONValue(parsing: #"{"\u00e9":1,"e\u0301":{"\u00e9":true,"e\u0301":false}}"#)
        #expect(try JSONValue(from: value) == value)
        #expect(try value.decode(JSONValue.self) == value)
        let object = try value.decode(JSONObject.self)
        #expect(object.count == 2)
        #expect(try object.jsonValue() == value)
    }

    @Test func foundationCodersStillReadAndWriteObjects() throws {
        let value: JSONValue = ["name": "Ada", "tags": ["x"], "nested": ["n": 1]]
        let bytes = try JSONEncoder().encode(value)
        #expect(try JSONValue(parsing: Array(bytes)) == value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: bytes) == value)
        #expect(try JSONDecoder().decode(JSONObject.self, from: bytes) == value.objectValue)
    }
}
