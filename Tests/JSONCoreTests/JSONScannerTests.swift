import JSONCore
import Testing

/// `JSONScanner` is the structural half of both answer readers (subscribe and DataSync): what it
/// accepts must be exactly what the parser reads the same way, and everything else must throw so
/// the reader hands the document to the tree decoder.
@Suite struct JSONScannerTests {
    /// Walks a root object with the scanner's steps, names read as plain strings, into an object.
    private static func walk(_ text: String) throws -> JSONObject {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { buffer throws -> JSONObject in
            var scanner = JSONScanner(buffer)
            var object = JSONObject()
            scanner.skipSpace()
            try scanner.consume(UInt8(ascii: "{"))
            if try scanner.objectHasMembers() {
                repeat {
                    scanner.skipSpace()
                    try scanner.consume(UInt8(ascii: "\""))
                    guard let end = scanner.plainStringEnd(from: scanner.index) else { throw OffTheFastPath() }
                    let name = String(decoding: buffer[scanner.index..<end], as: UTF8.self)
                    scanner.index = end + 1
                    scanner.skipSpace()
                    try scanner.consume(UInt8(ascii: ":"))
                    scanner.skipSpace()
                    object[name] = try scanner.value(depth: 1)
                } while try scanner.nextMember()
            }
            guard scanner.atEndAfterSpace() else { throw OffTheFastPath() }
            return object
        }
    }

    @Test(arguments: [
        #"{}"#, #" { } "#, #"{"a":1}"#, "{ \"a\" :\t[1, {\"b\": null}] ,\n\"c\" : \"x\" }",
        #"{"a":1,"a":2}"#, #"{"deep":[[[{"x":[]}]]]}"#,
    ])
    func aWellFormedObjectWalksToWhatTheParserReads(text: String) throws {
        let parsed = try JSONValue(parsing: Array(text.utf8))
        #expect(try .object(Self.walk(text)) == parsed)
    }

    @Test(arguments: [
        #"{"a":1,}"#, #"{"a":1"#, #"{"a" 1}"#, #"{"a":}"#, #"{"a":1} x"#, #"{"#, "", #"["a"]"#,
        #"{"a\u0062":1}"#, #"{"é":1}"#, #"{"a":1 "b":2}"#, #"{"a":[1,]}"#,
    ])
    func anythingElseLeavesTheFastPath(text: String) {
        #expect(throws: OffTheFastPath.self) { try Self.walk(text) }
    }

    /// For every byte in the middle of a string: when the scanner calls the string plain, the
    /// parser reads exactly its bytes; when it does not, the byte is one that needs decoding.
    @Test func aPlainStringIsExactlyOneWhoseBytesAreItsText() {
        for byte in UInt8.min...UInt8.max {
            let bytes: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "a"), byte, UInt8(ascii: "b"), UInt8(ascii: "\"")]
            let end = bytes.withUnsafeBytes { JSONScanner($0).plainStringEnd(from: 1) }
            let needsDecoding = byte < 0x20 || byte >= 0x80 || byte == UInt8(ascii: "\\")
            if byte == UInt8(ascii: "\"") {
                #expect(end == 2, "a quote ends the string")
            } else if needsDecoding {
                #expect(end == nil, "byte \(byte)")
            } else {
                #expect(end == 4, "byte \(byte)")
                let text = String(decoding: bytes[1..<4], as: UTF8.self)
                #expect((try? JSONValue(parsing: bytes)) == .string(text), "byte \(byte)")
            }
        }
    }

    @Test func anUnterminatedStringIsNotPlain() {
        let bytes = Array(#""abc"#.utf8)
        #expect(bytes.withUnsafeBytes { JSONScanner($0).plainStringEnd(from: 1) } == nil)
    }

    /// The nesting limit counts from the document's root, as in a whole-document parse.
    @Test func aValueCountsTheContainersAroundIt() throws {
        let nested = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        let bytes = Array(nested.utf8)
        let limit = JSONParsingOptions().maximumDepth
        try bytes.withUnsafeBytes { buffer in
            var shallow = JSONScanner(buffer)
            _ = try shallow.value(depth: 1)
            #expect(shallow.index == bytes.count)
            var deep = JSONScanner(buffer)
            #expect(throws: OffTheFastPath.self) { try deep.value(depth: limit - 5) }
        }
    }
}
