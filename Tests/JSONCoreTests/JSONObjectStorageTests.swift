import Foundation
import JSONCore
import Testing

/// `JSONObject` keeps up to `smallObjectLimit` members in an array and more in a hash table. The
/// two forms must be indistinguishable through the API: these tests build objects on both sides
/// of the boundary, by parsing and by mutation, and compare them.
@Suite struct JSONObjectStorageTests {
    static let limit = JSONObject.smallObjectLimit

    static func isSmall(_ object: JSONObject) -> Bool {
        if case .small = object.storage { return true }
        return false
    }

    /// `{"k0":0,"k1":1,…}` with `count` members, as text.
    static func text(count: Int, reversed: Bool = false) -> String {
        var indices = Array(0..<count)
        if reversed { indices.reverse() }
        return "{" + indices.map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
    }

    /// The same members built through `Dictionary` and then forced into the hash table.
    static func hashed(count: Int) -> JSONObject {
        var object = JSONObject(minimumCapacity: limit + 1)
        for index in 0..<count { object["k\(index)"] = .int(Int64(index)) }
        return object
    }

    @Test(arguments: [
        0, 1, JSONObject.smallObjectLimit - 1, JSONObject.smallObjectLimit, JSONObject.smallObjectLimit + 1,
        2 * JSONObject.smallObjectLimit,
    ])
    func parsedObjectsUseTheFormTheirSizeCallsFor(count: Int) throws {
        let object = try #require(try JSONValue(parsing: Self.text(count: count)).objectValue)
        #expect(object.count == count)
        #expect(Self.isSmall(object) == (count <= Self.limit))
        for index in 0..<count { #expect(object["k\(index)"] == .int(Int64(index))) }
        #expect(object["k\(count)"] == nil)
        #expect(Set(object.keys) == Set((0..<count).map { "k\($0)" }))
        #expect(object.map(\.key).count == count)
    }

    @Test(arguments: [1, JSONObject.smallObjectLimit - 1, JSONObject.smallObjectLimit, JSONObject.smallObjectLimit + 1])
    func equalityAndHashingIgnoreTheForm(count: Int) throws {
        let parsed = try #require(try JSONValue(parsing: Self.text(count: count)).objectValue)
        let reversed = try #require(try JSONValue(parsing: Self.text(count: count, reversed: true)).objectValue)
        let table = Self.hashed(count: count)
        #expect(!Self.isSmall(table))
        #expect(parsed == table)
        #expect(table == parsed)
        #expect(parsed == reversed)
        #expect(parsed.hashValue == table.hashValue)
        #expect(parsed.hashValue == reversed.hashValue)
        #expect(Set([JSONValue.object(parsed), .object(table), .object(reversed)]).count == 1)

        var different = table
        different["k0"] = "changed"
        #expect(parsed != different)
        #expect(different != parsed)
        var extra = parsed
        extra["extra"] = 1
        #expect(extra != table)
        #expect(table != extra)
    }

    @Test func equalityComparesNamesByScalarsInBothForms() throws {
        let small = try #require(try JSONValue(parsing: #"{"\u00e9":1}"#).objectValue)
        let otherSpelling = try #require(try JSONValue(parsing: #"{"e\u0301":1}"#).objectValue)
        #expect(Self.isSmall(small))
        #expect(small != otherSpelling)
        var table = Self.hashed(count: 0)
        table["\u{E9}"] = 1
        #expect(!Self.isSmall(table))
        #expect(table == small)
        #expect(table != otherSpelling)
        #expect(table.hashValue == small.hashValue)
    }

    @Test func insertingPastTheLimitMovesToTheTableAndKeepsEveryMember() throws {
        var object = try #require(try JSONValue(parsing: Self.text(count: Self.limit)).objectValue)
        #expect(Self.isSmall(object))
        object["k0"] = "replaced"  // a replacement does not grow the object
        #expect(Self.isSmall(object))
        object["new"] = true
        #expect(!Self.isSmall(object))
        #expect(object.count == Self.limit + 1)
        #expect(object["k0"] == "replaced")
        #expect(object["new"] == true)
        for index in 1..<Self.limit { #expect(object["k\(index)"] == .int(Int64(index))) }

        var viaDefault = try #require(try JSONValue(parsing: Self.text(count: Self.limit)).objectValue)
        viaDefault["counter", default: 0] = 5
        #expect(!Self.isSmall(viaDefault))
        #expect(viaDefault["counter"] == 5)

        var viaUpdate = try #require(try JSONValue(parsing: Self.text(count: Self.limit)).objectValue)
        #expect(viaUpdate.updateValue(1, forKey: "other") == nil)
        #expect(viaUpdate.updateValue(2, forKey: "other") == 1)
        #expect(viaUpdate.count == Self.limit + 1)

        var viaMerge = try #require(try JSONValue(parsing: Self.text(count: Self.limit)).objectValue)
        viaMerge.merge(["k0": "merged", "added": 1]) { _, new in new }
        #expect(viaMerge.count == Self.limit + 1)
        #expect(viaMerge["k0"] == "merged")
        #expect(viaMerge == viaMerge.merging(Self.hashed(count: 0)) { old, _ in old })
    }

    @Test(arguments: [JSONObject.smallObjectLimit, JSONObject.smallObjectLimit + 1])
    func removalWorksInBothForms(count: Int) throws {
        var object = try #require(try JSONValue(parsing: Self.text(count: count)).objectValue)
        #expect(object.removeValue(forKey: "k0") == 0)
        #expect(object.removeValue(forKey: "k0") == nil)
        #expect(object.count == count - 1)
        object["k1"] = nil
        #expect(object["k1"] == nil)
        #expect(object.count == count - 2)
        let index = try #require(object.index(forKey: "k2"))
        #expect(object.remove(at: index) == (key: "k2", value: 2))
        #expect(object.count == count - 3)
        #expect(object == Self.hashed(count: count).filter { !["k0", "k1", "k2"].contains($0.key) })
        object.removeAll()
        #expect(object.isEmpty)
        #expect(object == JSONObject())
    }

    @Test(arguments: [JSONObject.smallObjectLimit - 1, JSONObject.smallObjectLimit, JSONObject.smallObjectLimit + 1])
    func duplicateKeysKeepTheLastValueOrAreRejected(count: Int) throws {
        // `count` members in the text, one of them a repeat of the first name.
        var members = (0..<count - 1).map { "\"k\($0)\":\($0)" }
        members.append(#""k0":"last""#)
        let text = "{" + members.joined(separator: ",") + "}"
        let object = try #require(try JSONValue(parsing: text).objectValue)
        #expect(object.count == count - 1)
        #expect(object["k0"] == "last")
        #expect(throws: JSONError.self) {
            try JSONValue(parsing: text, options: JSONParsingOptions(rejectsDuplicateKeys: true))
        }
        #expect(throws: Never.self) {
            try JSONValue(parsing: Self.text(count: count), options: JSONParsingOptions(rejectsDuplicateKeys: true))
        }
    }

    @Test func nestedValuesAreMutatedInPlaceInBothForms() throws {
        for count in [1, Self.limit + 1] {
            var object = try #require(try JSONValue(parsing: Self.text(count: count)).objectValue)
            object["k0"] = ["list": [1]]
            let snapshot = object
            object["k0"]?["list"] = [1, 2]
            #expect(object["k0"] == ["list": [1, 2]])
            #expect(snapshot["k0"] == ["list": [1]])  // the copy is untouched
            if let index = object.index(forKey: "k0") { object.values[index] = "set" }
            #expect(object["k0"] == "set")
            #expect(snapshot["k0"] == ["list": [1]])
        }
    }

    @Test(arguments: [2, JSONObject.smallObjectLimit + 1])
    func sortedWritingAndViewsAgreeAcrossForms(count: Int) throws {
        let parsed = try JSONValue(parsing: Self.text(count: count, reversed: true))
        let table = JSONValue.object(Self.hashed(count: count))
        #expect(try parsed.jsonBytes() == table.jsonBytes())
        #expect(parsed.objectValue?.sortedKeys == table.objectValue?.sortedKeys)
        #expect(try JSONValue(parsing: parsed.jsonBytes(sortedKeys: false)) == parsed)
        let object = try #require(parsed.objectValue)
        #expect(object.mapValues { _ in .null }.count == count)
        #expect(object.compactMapValues { $0 == 0 ? JSONValue?.none : $0 }.count == count - 1)
        #expect(object.dictionary.count == count)
        #expect(object.values.count == count)
        #expect(object.keys.contains("k0") && !object.keys.contains("k\(count)"))
        #expect(Array(object.keys) == object.map(\.key))
    }

    @Test func capacityAndReservationCrossTheLimit() {
        var object = JSONObject(minimumCapacity: 2)
        #expect(Self.isSmall(object))
        object["a"] = 1
        object.reserveCapacity(Self.limit * 4)
        #expect(!Self.isSmall(object))
        #expect(object.capacity >= Self.limit * 4)
        #expect(object["a"] == 1)
    }
}
