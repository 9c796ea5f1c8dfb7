import DataSyncTestSupport
import Testing

@testable import Auth

typealias Item = CBORTestEncoder.Item

@Suite("CBOR reader")
struct CBORReaderTests {
    @Test(
        "integers decode in every argument width",
        arguments: [
            (UInt64(0), 0), (23, 0), (24, 1), (255, 1), (256, 2), (65_535, 2), (65_536, 4), (UInt64(UInt32.max), 4),
            (UInt64(UInt32.max) + 1, 8), (UInt64.max, 8), (5, 8), (7, 2),
        ])
    func integerWidths(value: UInt64, width: Int) throws {
        let bytes = CBORTestEncoder.encode(.unsignedWidth(value, width: width))
        #expect(bytes.count == 1 + width)
        #expect(try CBORReader.decode(bytes) == .unsigned(value))
    }

    @Test("negative integers keep their full range")
    func negatives() throws {
        #expect(try CBORReader.decode(CBORTestEncoder.encode(.negative(0))) == .negative(0))
        #expect(try CBORReader.decode(CBORTestEncoder.encode(.negative(UInt64.max))) == .negative(UInt64.max))
    }

    @Test(
        "half, single and double floats widen to Double",
        arguments: [
            (Item.half(0x3C00), 1.0), (.half(0xC400), -4.0), (.half(0x0001), 5.960_464_477_539_063e-8),
            (.half(0x7BFF), 65_504.0), (.half(0x7C00), Double.infinity), (.float(3.5), 3.5),
            (.double(-0.125), -0.125), (.double(1e300), 1e300),
        ])
    func floats(item: Item, expected: Double) throws {
        #expect(try CBORReader.decode(CBORTestEncoder.encode(item)) == .float(expected))
    }

    @Test("half NaN decodes as NaN")
    func halfNaN() throws {
        guard case .float(let value) = try CBORReader.decode(CBORTestEncoder.encode(.half(0x7E00))) else {
            Issue.record("not a float")
            return
        }
        #expect(value.isNaN)
    }

    @Test("strings, arrays and maps decode in definite and indefinite forms")
    func containers() throws {
        #expect(try CBORReader.decode(CBORTestEncoder.encode(.text("héllo"))) == .textString("héllo"))
        #expect(
            try CBORReader.decode(CBORTestEncoder.encode(.indefiniteText(["hé", "", "llo"]))) == .textString("héllo"))
        #expect(
            try CBORReader.decode(CBORTestEncoder.encode(.indefiniteByteString([[1], [], [2, 3]])))
                == .byteString([1, 2, 3]))
        #expect(
            try CBORReader.decode(CBORTestEncoder.encode(.indefiniteArray([.unsigned(1), .array([])])))
                == .array([.unsigned(1), .array([])]))
        let map = try CBORReader.decode(
            CBORTestEncoder.encode(.indefiniteMap([(.bytes("k"), .bool(false)), (.text("t"), .null)])))
        #expect(
            map
                == .map([
                    .init(key: .byteString(Array("k".utf8)), value: .bool(false)),
                    .init(key: .textString("t"), value: .null),
                ]))
    }

    @Test("tags and simple values decode")
    func tagsAndSimple() throws {
        #expect(
            try CBORReader.decode(CBORTestEncoder.encode(.tag(1, .unsigned(1_363_896_240))))
                == .tagged(1, .unsigned(1_363_896_240)))
        #expect(try CBORReader.decode(CBORTestEncoder.encode(.simple(16))) == .simple(16))
        #expect(try CBORReader.decode(CBORTestEncoder.encode(.simple(255))) == .simple(255))
        #expect(try CBORReader.decode(CBORTestEncoder.encode(.undefined)) == .undefined)
        #expect(try CBORReader.decode(CBORTestEncoder.encode(.bool(true))) == .bool(true))
    }

    @Test(
        "malformed, truncated and oversized input gives a clear error",
        arguments: [
            ("empty", [], AuthError.Code.truncated),
            ("truncated argument", [0x19, 0x01], .truncated),
            ("truncated string", [0x65, 0x61, 0x62], .truncated),
            ("truncated array", [0x83, 0x01], .truncated),
            ("unterminated indefinite array", [0x9F, 0x01], .truncated),
            ("reserved info 28", [0x1C], .malformedCBOR),
            ("reserved info 30 in a string", [0x5E], .malformedCBOR),
            ("stray break", [0xFF], .malformedCBOR),
            ("indefinite integer", [0x1F], .malformedCBOR),
            ("two-byte simple below 32", [0xF8, 0x10], .malformedCBOR),
            ("invalid UTF-8 text", [0x62, 0xC3, 0x28], .malformedCBOR),
            ("wrong chunk type", [0x5F, 0x61, 0x61, 0xFF], .malformedCBOR),
            ("nested indefinite chunk", [0x7F, 0x7F, 0xFF, 0xFF], .malformedCBOR),
            ("trailing bytes", [0x01, 0x02], .malformedCBOR),
            ("integer map key", [0xA1, 0x01, 0x02], .unsupportedCBOR),
            ("array map key", [0xA1, 0x80, 0x02], .unsupportedCBOR),
            ("huge byte string", [0x5B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .limitExceeded),
            ("huge text", [0x7A, 0x7F, 0xFF, 0xFF, 0xFF, 0x61], .limitExceeded),
            ("huge array", [0x9B, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00], .limitExceeded),
            ("huge map", [0xBA, 0x10, 0x00, 0x00, 0x00, 0x01, 0x01], .limitExceeded),
            // Found by fuzz-auth: the length check once counted the argument's own bytes as data.
            (
                "length counting its own argument bytes", [0x58, 0x09, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
                .truncated
            ),
            (
                "8-byte length one short", [0x5B, 0, 0, 0, 0, 0, 0, 0, 0x09] + [UInt8](repeating: 1, count: 8),
                .truncated
            ),
            ("array counting its argument", [0x98, 0x03, 0x01, 0x01], .truncated),
            ("map counting its argument", [0xB8, 0x02, 0x41, 0x61, 0x01], .truncated),
            ("indefinite chunk counting its argument", [0x5F, 0x58, 0x04, 0x01, 0x01, 0xFF], .truncated),
            ("map count beyond the bytes left", [0xA2, 0x41, 0x61, 0x01], .truncated),
        ] as [(String, [UInt8], AuthError.Code)])
    func rejects(name: String, bytes: [UInt8], code: AuthError.Code) {
        #expect(throws: AuthError.self, "\(name)") { try CBORReader.decode(bytes) }
        do {
            _ = try CBORReader.decode(bytes)
        } catch {
            #expect(error.code == code, "\(name): \(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("nesting deeper than the limit is refused, not recursed into")
    func deepNesting() throws {
        let deepArrays = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
        #expect(throws: AuthError(code: .limitExceeded, message: "CBOR nesting is deeper than 32 levels", offset: 32)) {
            try CBORReader.decode(deepArrays)
        }
        let deepTags = [UInt8](repeating: 0xC1, count: 10_000) + [0x00]
        let error = #expect(throws: AuthError.self) { try CBORReader.decode(deepTags) }
        #expect(error?.code == .limitExceeded)
        let allowed = [UInt8](repeating: 0x81, count: 31) + [0x00]
        #expect((try? CBORReader.decode(allowed)) != nil)
    }
}
