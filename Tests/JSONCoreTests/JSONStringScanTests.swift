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

    @Test func longAndEscapedNamesAreReadInFull() throws {
        let long = String(repeating: "k", count: 40)
        let parsed = try JSONValue(parsing: "[{\"\(long)\":1},{\"\(long)\":2},{\"k\\u006b\":3},{\"kk\":4}]")
        #expect(parsed == [[long: 1], [long: 2], ["kk": 3], ["kk": 4]])
    }
}
