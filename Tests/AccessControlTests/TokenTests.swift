import Auth
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

@Suite struct HMACTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    /// RFC 4231 test cases 1–4, 6 and 7 (case 5 is truncated output).
    @Test(arguments: [
        (
            String(repeating: "0b", count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            "4a656665", Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            String(repeating: "aa", count: 20), [UInt8](repeating: 0xDD, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            "0102030405060708090a0b0c0d0e0f10111213141516171819", [UInt8](repeating: 0xCD, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            String(repeating: "aa", count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            String(repeating: "aa", count: 131),
            Array(
                "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                    .utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ])
    func rfc4231(key: String, message: [UInt8], expected: String) {
        #expect(SHA256.hmac(key: Self.hex(key), message: message) == Self.hex(expected))
    }
}

@Suite struct TokenCodecTests {
    static let content = AccessTokenContent(
        issuedAt: 1_788_766_495, ttlMinutes: 15,
        resources: ["chan": ["room": 3], "grp": ["g": 5], "uuid": ["alice": 104], "datasync:entities": ["e1": 32]],
        patterns: ["chan": ["^room-.*$": 1]],
        meta: ["owner": "svc", "n": 3, "pn-projections": ["res": ["datasync:entities:e1": "public"]]],
        authorizedUUID: "alice")

    @Test func theSDKParserReadsAMintedTokenPaddedOrNot() throws {
        let text = AccessTokenCodec.mint(Self.content, secretKey: "sec")
        #expect(!text.contains("+") && !text.contains("/"))
        #expect(text.utf8.count % 4 == 0)
        for form in [text, text.replacingOccurrences(of: "=", with: "")] {
            let token = try AccessToken(parsing: form)
            #expect(token.version == 2)
            #expect(token.issuedAt == Date(timeIntervalSince1970: 1_788_766_495))
            #expect(token.ttlMinutes == 15)
            #expect(token.authorizedUserID == "alice")
            #expect(token.allows([.read, .write], on: "room", in: .channels))
            #expect(token.allows(.read, on: "room-7", in: .channels))
            #expect(!token.allows(.write, on: "room-7", in: .channels))
            #expect(token.allows([.read, .manage], on: "g", in: .channelGroups))
            #expect(token.allows([.get, .update, .delete], on: "alice", in: .uuids))
            #expect(token.allows(.get, on: "e1", in: .dataSyncEntities))
            #expect(token.meta["owner"] == "svc")
            #expect(token.projections.projection(for: "e1", type: .entities) == "public")
            #expect(token.signature.count == 32)
        }
    }

    @Test func aMintedTokenVerifiesPaddedOrNotAndReadsBackItsContent() throws {
        let text = AccessTokenCodec.mint(Self.content, secretKey: "sec")
        for form in [text, text.replacingOccurrences(of: "=", with: "")] {
            var read = try AccessTokenCodec.verify(form, secretKey: "sec").get()
            #expect(read.signature.count == 32)
            read.signature = []
            #expect(read == Self.content)
        }
    }

    @Test func anotherSecretKeyIsRefused() {
        let text = AccessTokenCodec.mint(Self.content, secretKey: "sec")
        #expect(throws: TokenRejection.badSignature) { try AccessTokenCodec.verify(text, secretKey: "other").get() }
    }

    @Test func everyOneByteEditIsRefused() throws {
        let text = AccessTokenCodec.mint(Self.content, secretKey: "sec")
        let bytes = try #require(AccessTokenCodec.decodeText(text))
        for index in bytes.indices {
            for flip: UInt8 in [0x01, 0x80] {
                var edited = bytes
                edited[index] ^= flip
                if case .success = AccessTokenCodec.verify(bytes: edited, secretKey: "sec") {
                    Issue.record("an edit of byte \(index) was accepted")
                }
            }
        }
        #expect(throws: TokenRejection.self) { try AccessTokenCodec.verify(bytes: bytes + [0], secretKey: "sec").get() }
        #expect(throws: TokenRejection.self) {
            try AccessTokenCodec.verify(bytes: Array(bytes.dropLast()), secretKey: "sec").get()
        }
    }

    @Test func everySingleBitFlipIsRefused() throws {
        let text = AccessTokenCodec.mint(Self.content, secretKey: "sec")
        let bytes = try #require(AccessTokenCodec.decodeText(text))
        for index in bytes.indices {
            for bit in 0..<8 {
                var edited = bytes
                edited[index] ^= 1 << bit
                if case .success = AccessTokenCodec.verify(bytes: edited, secretKey: "sec") {
                    Issue.record("flipping bit \(bit) of byte \(index) was accepted")
                }
            }
        }
    }

    /// Found by `fuzz-token-verifier` (the input is kept in `Fuzz/corpus/token-verifier`): the
    /// `sig` entry is outside the signed body, and its key was read as text or bytes alike, so a
    /// token whose `sig` key was re-encoded as a text string (`0x43` → `0x63`, one bit) still
    /// verified.
    @Test func theSignatureEntryMustBeWrittenExactlyAsMinted() throws {
        let text = AccessTokenCodec.mint(Self.content, secretKey: "sec")
        let bytes = try #require(AccessTokenCodec.decodeText(text))
        let sigKey: [UInt8] = [0x43, 0x73, 0x69, 0x67]
        let start = try #require(
            bytes.indices.dropLast(3).last { Array(bytes[$0..<$0 + 4]) == sigKey })
        var textKey = bytes
        textKey[start] = 0x63
        #expect(throws: TokenRejection.self) { try AccessTokenCodec.verify(bytes: textKey, secretKey: "sec").get() }
        // The 32-byte value with a longer length header than needed (`59 00 20` for `58 20`).
        var longLength = Array(bytes[..<(start + 4)])
        longLength += [0x59, 0x00, 0x20]
        longLength += bytes[(start + 6)...]
        #expect(throws: TokenRejection.self) {
            try AccessTokenCodec.verify(bytes: longLength, secretKey: "sec").get()
        }
        #expect(throws: Never.self) { try AccessTokenCodec.verify(bytes: bytes, secretKey: "sec").get() }
    }

    @Test func keysAreByteStrings() throws {
        let text = AccessTokenCodec.mint(Self.content, secretKey: "sec")
        let bytes = try #require(AccessTokenCodec.decodeText(text))
        var parser = CBORParser(bytes)
        guard case .map(let pairs) = try parser.item() else {
            Issue.record("not a map")
            return
        }
        #expect(pairs.map { $0.key.keyText } == ["v", "t", "ttl", "res", "pat", "meta", "uuid", "sig"])
        for pair in pairs {
            guard case .bytes = pair.key else {
                Issue.record("a text key")
                continue
            }
        }
    }

    @Test(arguments: ["", "!!!!", "a", "oA", "v2", String(repeating: "A", count: 70_000)])
    func garbageIsMalformed(text: String) {
        guard case .failure(.malformed) = AccessTokenCodec.verify(text, secretKey: "sec") else {
            Issue.record("accepted \(text.prefix(10))")
            return
        }
    }

    @Test func deepNestingIsRefusedNotRecursedWithoutBound() {
        let bytes: [UInt8] = [0xA2] + [UInt8](repeating: 0x81, count: 5000) + [0]
        guard case .failure(.malformed) = AccessTokenCodec.verify(bytes: bytes, secretKey: "s") else {
            Issue.record("accepted")
            return
        }
    }
}

@Suite struct SignatureTests {
    /// A request as PubNub's Python SDK signs it (`utils.sign_request`), computed independently.
    @Test func v2MatchesAnIndependentComputation() {
        let query = [
            (name: "uuid", value: "my uuid"), (name: "pnsdk", value: "PubNub-Python/10.8.0"),
            (name: "timestamp", value: "1700000000"),
        ]
        let canonical = RequestSignature.canonicalQuery(query)
        #expect(canonical == "pnsdk=PubNub-Python%2F10.8.0&timestamp=1700000000&uuid=my%20uuid")
        let input = Array("POST\npub\n/v3/pam/sub/grant\n\(canonical)\n{\"ttl\":1}".utf8)
        let mac = SHA256.hmac(key: Array("sec".utf8), message: input)
        let expected =
            "v2."
            + Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(
            RequestSignature.sign(
                method: "post", path: "/v3/pam/sub/grant", query: query, body: Array("{\"ttl\":1}".utf8),
                publishKey: "pub", secretKey: "sec") == expected)
    }

    @Test func tildeAndReservedCharactersAreEncoded() {
        #expect(RequestSignature.encode("a~b*c!d'(e)[f]+ g") == "a%7Eb%2Ac%21d%27%28e%29%5Bf%5D%2B%20g")
        #expect(RequestSignature.encode("é") == "%C3%A9")
    }

    @Test func legacyPublishFormsAreAccepted() {
        let query = [(name: "uuid", value: "u"), (name: "timestamp", value: "100")]
        let legacyInput = Array("sub\npub\n/publish/pub/sub/0/ch/0\n\(RequestSignature.canonicalQuery(query))".utf8)
        let legacy = Data(SHA256.hmac(key: Array("sec".utf8), message: legacyInput)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let jsForm = RequestSignature.sign(
            method: "GET", path: "/publish/pub/sub/0/ch/0", query: query, publishKey: "pub", secretKey: "sec")
        for signature in [legacy, jsForm] {
            let signed = query + [(name: "signature", value: signature)]
            let result = RequestSignature.verify(
                method: "POST", path: "/publish/pub/sub/0/ch/0", query: signed, body: Array("\"m\"".utf8),
                publishKey: "pub", subscribeKey: "sub", secretKey: "sec", now: 100)
            #expect((try? result.get()) != nil)
        }
        // The legacy form is not accepted off /publish.
        let legacyElsewhere = Array("sub\npub\n/v2/subscribe/sub/ch/0\n\(RequestSignature.canonicalQuery(query))".utf8)
        let other = Data(SHA256.hmac(key: Array("sec".utf8), message: legacyElsewhere)).base64EncodedString()
        let refused = RequestSignature.verify(
            method: "GET", path: "/v2/subscribe/sub/ch/0", query: query + [(name: "signature", value: other)], body: [],
            publishKey: "pub", subscribeKey: "sub", secretKey: "sec", now: 100)
        #expect(throws: RequestSignature.Failure.mismatch) { try refused.get() }
    }
}
