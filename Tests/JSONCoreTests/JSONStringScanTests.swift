import JSONCore
import Testing

/// The parser scans string contents eight bytes at a time; every byte that must stop the scan
/// (quote, backslash, control character) has to be found wherever it falls in a word, and text
/// around it read as the byte loop would.
@Suite struct JSONStringScanTests {
    @Test func everyASCIIByteAtEveryPositionOfAWord() {
        for byte in UInt8(0)...UInt8(0x7F) {
            for position in 0..<17 {
                let content =
                    [UInt8](repeating: UInt8(ascii: "a"), count: position) + [byte]
                    + [UInt8](repeating: UInt8(ascii: "b"), count: 17 - position)
                let text = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
                let parsed = try? JSONValue(parsing: text)
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x00..<0x20:
                    // A quote ends the string early with text after it and a control byte is
                    // an error; a backslash starts the escape `\b` (backspace) with the next byte.
                    if byte == UInt8(ascii: "\\") {
                        #expect(
                            parsed
                                == .string(
                                    String(repeating: "a", count: position) + "\u{8}"
                                        + String(repeating: "b", count: 16 - position)))
                    } else {
                        #expect(parsed == nil, "byte \(byte) at \(position) should not parse")
                    }
                default:
                    #expect(parsed == .string(String(decoding: content, as: UTF8.self)), "byte \(byte) at \(position)")
                }
            }
        }
    }

    @Test func nonASCIITextIsValidatedWhereverItFalls() throws {
        for position in 0..<17 {
            let prefix = String(repeating: "x", count: position)
            let valid = prefix + "é✓" + "yyyyyyyy"
            #expect(try JSONValue(parsing: "\"" + valid + "\"") == .string(valid))
            // A lone continuation byte is invalid UTF-8 at any offset.
            let invalid = [UInt8(ascii: "\"")] + Array(prefix.utf8) + [0x80] + Array("yyyyyyyy\"".utf8)
            #expect(throws: JSONError.self) { try JSONValue(parsing: invalid) }
        }
    }

    @Test func unterminatedLongStringsAreReported() {
        let text = "\"" + String(repeating: "z", count: 40)
        #expect(throws: JSONError.self) { try JSONValue(parsing: text) }
    }
}

/// Member names are made once and reused when the same bytes come back (a cache keyed by where
/// a name was seen); names that share a slot, a length or a prefix must still come out as written.
@Suite struct JSONNameCacheTests {
    /// A DataSync payload is one small object: its names are all different, so a cache for them
    /// is built, filled and destroyed for nothing (the parser used to make it at the first name).
    @Test func aDocumentWithOneObjectBuildsNoNameCacheAndTheSecondObjectDoes() throws {
        let one = Array(#"{"firstName":"Ada","lastName":"Lovelace","n":{}}"#.utf8)
        try one.withUnsafeBytes { bytes in
            var reader = JSONValueReader(UnsafeRawBufferPointer(bytes))
            let (value, end) = try reader.value(at: 0, depth: 0)
            #expect(end == one.count)
            #expect(value == ["firstName": "Ada", "lastName": "Lovelace", "n": [:]])
            #expect(reader.nameCacheSlots == 0)
        }
        let two = Array(#"[{"name":1},{"name":2},{"name":3}]"#.utf8)
        try two.withUnsafeBytes { bytes in
            var reader = JSONValueReader(UnsafeRawBufferPointer(bytes))
            let (value, _) = try reader.value(at: 0, depth: 0)
            #expect(value == [["name": 1], ["name": 2], ["name": 3]])
            #expect(reader.nameCacheSlots > 0)
        }
    }

    @Test func namesThatCollideOrDifferSlightlyStayApart() throws {
        // Names of one length with the same first and last byte share a cache slot.
        let names = ["ab", "aab", "abb", "axb", "ayb", "a", "b", "", "text", "tex", "t\u{E9}xt", "n", "N"]
        var text = "["
        for round in 0..<3 {
            for (index, name) in names.enumerated() {
                if round + index > 0 { text += "," }
                text += "{\"\(name)\":\(index),\"x\(name)\":\(round)}"
            }
        }
        text += "]"
        let parsed = try JSONValue(parsing: text)
        let objects = try #require(parsed.arrayValue)
        #expect(objects.count == names.count * 3)
        for (position, object) in objects.enumerated() {
            let index = position % names.count
            let round = position / names.count
            #expect(
                object
                    == .object(JSONObject([names[index]: .int(Int64(index)), "x" + names[index]: .int(Int64(round))])))
            #expect(object.objectValue?.keys.sorted() == [names[index], "x" + names[index]].sorted())
        }
    }

    @Test func oneLetterNamesEachKeepTheirOwnName() throws {
        // One-letter names once shared four cache slots; every letter, in both cases, in objects
        // of up to nine members (the small form and the hashed one), repeated so the cache is hit.
        let letters = (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(UnicodeScalar($0)) }
        let names = letters + letters.map { $0.uppercased() }
        var objects: [JSONObject] = []
        var text = "["
        for round in 0..<3 {
            for start in stride(from: 0, to: names.count, by: 9) {
                let group = names[start..<min(start + 9, names.count)]
                var object = JSONObject()
                var members: [String] = []
                for (offset, name) in group.enumerated() {
                    object[name] = .int(Int64(round * 100 + offset))
                    members.append("\"\(name)\":\(round * 100 + offset)")
                }
                objects.append(object)
                if text.count > 1 { text += "," }
                text += "{" + members.joined(separator: ",") + "}"
            }
        }
        text += "]"
        #expect(try JSONValue(parsing: text) == .array(objects.map(JSONValue.object)))
    }

    @Test func containersLargerThanTheScratchStacksInitialRoom() throws {
        // The parser's stacks start with room for 16 values and grow; nest past that too.
        let elements = (0..<100).map { JSONValue.int(Int64($0)) }
        let members = JSONObject(uniqueKeysWithValues: (0..<40).map { ("k\($0)", JSONValue.int(Int64($0))) })
        var nested: JSONValue = ["inner": .array(elements), "members": .object(members)]
        for depth in 0..<30 { nested = ["d\(depth)": nested, "list": [.int(Int64(depth)), .null]] }
        #expect(try JSONValue(parsing: nested.jsonBytes()) == nested)
        // A failure deep inside leaves nothing behind for the next parse.
        #expect(throws: JSONError.self) { try JSONValue(parsing: "[[[{\"a\":[1,2,{\"b\":3,\"c\":[") }
        #expect(try JSONValue(parsing: #"[{"a":[1,2,{"b":3}]}]"#) == [["a": [1, 2, ["b": 3]]]])
    }

    @Test func longAndEscapedNamesAreReadInFull() throws {
        let long = String(repeating: "k", count: 40)
        let parsed = try JSONValue(parsing: "[{\"\(long)\":1},{\"\(long)\":2},{\"k\\u006b\":3},{\"kk\":4}]")
        #expect(parsed == [[long: 1], [long: 2], ["kk": 3], ["kk": 4]])
    }
}
