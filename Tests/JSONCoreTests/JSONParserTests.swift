import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let text = #" { "a" : [ 1 , -2.5e1 , "x" , true , false , null , { } , [ ] ] } "#
        let value = try JSONValue(parsing: text)
        #expect(value == ["a": [1, -25.0, "x", true, false, nil, [:], []]])
    }

    @Test(arguments: ["0", "\"s\"", "true", "null", "[]", "{}", "-1.5"])
    func anyValueMayBeTheTopLevel(text: String) throws {
        _ = try JSONValue(parsing: text)
    }

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
        (#""\u00e9\u4e2d""#, "é中"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\uD83D\uDE00 ok""#, "😀 ok"),
        ("\"caf\u{E9} \u{1F600}\"", "café 😀"),
        (#""\u0000""#, "\u{0}"),
    ])
    func stringEscapesAndUnicode(text: String, expected: String) throws {
        #expect(try JSONValue(parsing: text) == .string(expected))
    }

    @Test func writerEscapesOnlyWhatJSONRequires() throws {
        let value = JSONValue.string("q\"b\\s/\n\t\u{01}é😀")
        #expect(try value.jsonString() == #""q\"b\\s/\n\t\u0001é😀""#)
        #expect(try JSONValue(parsing: value.jsonBytes()) == value)
    }

    @Test func encodingIsDeterministic() throws {
        var members: [String: JSONValue] = [:]
        for index in (0..<200).shuffled() { members["key\(index)"] = .int(Int64(index)) }
        let first = try JSONValue.object(members).jsonBytes()
        var reordered: [String: JSONValue] = [:]
        for index in (0..<200).reversed() { reordered["key\(index)"] = .int(Int64(index)) }
        #expect(try JSONValue.object(reordered).jsonBytes() == first)
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.hasPrefix(#"{"key0":0,"key1":1,"key10":10,"#))
    }

    @Test func unsortedEncodingHasTheSameContent() throws {
        let value: JSONValue = ["z": 1, "a": [true], "m": ["x": nil]]
        #expect(try JSONValue(parsing: value.jsonBytes(sortedKeys: false)) == value)
    }

    @Test(arguments: [
        ("", JSONError.Code.unexpectedEnd, 0),
        ("   ", .unexpectedEnd, 3),
        ("[1,2", .unexpectedEnd, 4),
        (#"{"a":1"#, .unexpectedEnd, 6),
        (#"{"a""#, .unexpectedEnd, 4),
        (#""abc"#, .unexpectedEnd, 0),
        ("tru", .unexpectedEnd, 3),
        ("[1,]", .unexpectedCharacter, 3),
        ("{,}", .unexpectedCharacter, 1),
        (#"{"a" 1}"#, .unexpectedCharacter, 5),
        ("[1 2]", .unexpectedCharacter, 3),
        ("nul", .unexpectedEnd, 3),
        ("nulx", .unexpectedCharacter, 3),
        ("1 2", .trailingData, 2),
        ("NaN", .invalidNumber, 0),
        ("Infinity", .invalidNumber, 0),
        ("-Infinity", .invalidNumber, 0),
        ("01", .invalidNumber, 0),
        ("1.", .invalidNumber, 2),
        (".5", .unexpectedCharacter, 0),
        ("1e", .invalidNumber, 2),
        ("-", .unexpectedEnd, 1),
        ("+1", .unexpectedCharacter, 0),
        ("1e400", .numberOutOfRange, 0),
        (#""\x""#, .invalidEscape, 1),
        (#""\u12G4""#, .invalidEscape, 5),
        (#""\ud83d""#, .invalidEscape, 1),
        (#""\ud83d\u0041""#, .invalidEscape, 1),
        (#""\ude00""#, .invalidEscape, 1),
        ("\"a\nb\"", .controlCharacterInString, 2),
        ("'a'", .unexpectedCharacter, 0),
    ])
    func badInputThrowsAClearError(text: String, code: JSONError.Code, offset: Int) {
        do {
            _ = try JSONValue(parsing: text)
            Issue.record("\(text) parsed")
        } catch let error as JSONError {
            #expect(error.code == code, "\(text): \(error)")
            #expect(error.offset == offset, "\(text): \(error)")
            #expect(!error.message.isEmpty)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(arguments: [[0xFF], [0x22, 0xC3, 0x28, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22]])
    func invalidUTF8IsRejected(bytes: [UInt8]) {
        #expect(throws: JSONError.self) { try JSONValue(parsing: bytes) }
        do {
            _ = try JSONValue(parsing: bytes)
        } catch let error as JSONError {
            #expect(error.code == .invalidUTF8 || error.code == .unexpectedCharacter)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func deepNestingThrowsInsteadOfCrashing() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect {
            try JSONValue(parsing: deep)
        } throws: { error in
            (error as? JSONError)?.code == .nestingTooDeep
        }
        let objects = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(throws: JSONError.self) { try JSONValue(parsing: objects) }
        let truncated = String(repeating: "[", count: 10_000)
        #expect(throws: JSONError.self) { try JSONValue(parsing: truncated) }
    }

    @Test func nestingLimitIsConfigurable() throws {
        let text = "[[[1]]]"
        #expect(throws: JSONError.self) { try JSONValue(parsing: text, options: JSONParsingOptions(maximumDepth: 2)) }
        #expect(try JSONValue(parsing: text, options: JSONParsingOptions(maximumDepth: 3)) == [[[1]]])
    }

    @Test func duplicateKeysLastWinsOrRejected() throws {
        let text = #"{"a":1,"a":2}"#
        #expect(try JSONValue(parsing: text) == ["a": 2])
        #expect {
            try JSONValue(parsing: text, options: JSONParsingOptions(rejectsDuplicateKeys: true))
        } throws: { error in
            (error as? JSONError)?.code == .duplicateKey
        }
    }

    @Test func parsesFromNonContiguousCollections() throws {
        let bytes = Array("[1,2,3]".utf8)
        #expect(try JSONValue(parsing: bytes.reversed().reversed()) == [1, 2, 3])
        #expect(try JSONValue(parsing: Data("[true]".utf8)) == [true])
    }

    @Test func errorDescriptionSaysWhereAndWhat() {
        do {
            _ = try JSONValue(parsing: "[1,]")
        } catch {
            #expect("\(error)".contains("byte 3"))
            #expect("\(error)".contains("expected a value"))
        }
    }
}

@Suite struct JSONNumberConversionTests {
    /// The parser's fast decimal path must agree bit for bit with the standard library.
    @Test func decimalsAgreeWithTheStandardLibrary() throws {
        var system = SystemRandomNumberGenerator()
        let start = UInt64.random(in: 0...UInt64.max, using: &system)
        var generator = SeededRandomNumberGenerator(seed: start)
        func next() -> UInt64 { generator.next() }
        for _ in 0..<20_000 {
            let digits = Int(next() % 18) + 1
            var text = next() % 2 == 0 ? "-" : ""
            let whole = String(next() % 1_000_000_000_000_000_000).prefix(digits)
            text += whole
            if next() % 3 != 0 {
                text += "." + String(next() % 1_000_000_000_000).prefix(Int(next() % 12) + 1)
            }
            if next() % 3 == 0 {
                text += "e" + (next() % 2 == 0 ? "-" : "+") + String(next() % 40)
            }
            let parsed = try JSONValue(parsing: text)
            let expected = try #require(Double(text), "seed \(start): \(text)")
            guard let actual = parsed.doubleValue else {
                Issue.record("seed \(start): \(text) parsed as \(parsed)")
                continue
            }
            if case .int = parsed { continue }
            #expect(actual.bitPattern == expected.bitPattern, "seed \(start): \(text)")
        }
    }
}
