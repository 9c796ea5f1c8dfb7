import DataSyncTestSupport
import Testing

@testable import Auth

private func text(_ item: Item) -> String {
    CBORTestEncoder.base64URL(CBORTestEncoder.encode(item))
}

private let validToken = CBORTestEncoder.token(
    issuedAt: 1_700_000_000, ttl: 60, resources: [("chan", [("c", 1)])], authorizedUUID: "u")

@Suite("AccessToken rejects garbage")
struct TokenGarbageTests {
    @Test(
        "bad text gives a clear error",
        arguments: [
            ("empty", "", AuthError.Code.emptyToken),
            ("whitespace", " \n\t", .emptyToken),
            ("not base64", "hello world!", .invalidEncoding),
            ("non-ASCII", "qEF2Ak€F0", .invalidEncoding),
            ("only padding", "====", .invalidEncoding),
            ("impossible length", "qEF2A", .invalidEncoding),
            ("padding in the middle", "qE==F2Ak", .invalidEncoding),
            ("too much padding", "qE===", .invalidEncoding),
            ("bad percent escape", "qEF2%G1", .invalidEncoding),
            ("cut percent escape", "qEF2%4", .invalidEncoding),
            ("huge text", String(repeating: "A", count: 70_000), .limitExceeded),
        ])
    func badText(name: String, input: String, code: AuthError.Code) {
        let error = #expect(throws: AuthError.self, "\(name)") { try AccessToken(parsing: input) }
        #expect(error?.code == code, "\(name): \(String(describing: error))")
    }

    @Test(
        "bad CBOR or wrong types give a clear error",
        arguments: [
            ("not CBOR at all", Item.raw([0xFF, 0xFE]), AuthError.Code.malformedCBOR),
            ("truncated token", .raw(Array(CBORTestEncoder.encode(validToken).dropLast(5))), .truncated),
            ("huge declared length", .raw([0xA1, 0x41, 0x76, 0x5B, 0, 0, 0, 1, 0, 0, 0, 0]), .limitExceeded),
            ("array instead of map", .array([.unsigned(2)]), .invalidToken),
            ("missing v", .map([(.bytes("t"), .unsigned(1)), (.bytes("ttl"), .unsigned(1))]), .invalidToken),
            (
                "v as text",
                .map([
                    (.bytes("v"), .text("2")), (.bytes("t"), .unsigned(1)), (.bytes("ttl"), .unsigned(1)),
                    (.bytes("sig"), .byteString([])),
                ]), .invalidToken
            ),
            (
                "negative t",
                .map([
                    (.bytes("v"), .unsigned(2)), (.bytes("t"), .negative(5)), (.bytes("ttl"), .unsigned(1)),
                    (.bytes("sig"), .byteString([])),
                ]), .invalidToken
            ),
            (
                "t out of range",
                .map([
                    (.bytes("v"), .unsigned(2)), (.bytes("t"), .unsigned(UInt64.max)), (.bytes("ttl"), .unsigned(1)),
                    (.bytes("sig"), .byteString([])),
                ]), .invalidToken
            ),
            (
                "sig as text",
                .map([
                    (.bytes("v"), .unsigned(2)), (.bytes("t"), .unsigned(1)), (.bytes("ttl"), .unsigned(1)),
                    (.bytes("sig"), .text("abc")),
                ]), .invalidToken
            ),
            (
                "missing sig",
                .map([(.bytes("v"), .unsigned(2)), (.bytes("t"), .unsigned(1)), (.bytes("ttl"), .unsigned(1))]),
                .invalidToken
            ),
            (
                "duplicate field",
                .map([
                    (.bytes("v"), .unsigned(2)), (.bytes("v"), .unsigned(3)), (.bytes("t"), .unsigned(1)),
                    (.bytes("ttl"), .unsigned(1)), (.bytes("sig"), .byteString([])),
                ]), .invalidToken
            ),
            ("res as array", tokenWith("res", .array([])), .invalidToken),
            ("bucket as array", tokenWith("res", .map([(.bytes("chan"), .array([]))])), .invalidToken),
            (
                "permissions as text", tokenWith("pat", .map([(.bytes("chan"), .map([(.text("c"), .text("r"))]))])),
                .invalidToken
            ),
            (
                "negative permissions", tokenWith("res", .map([(.bytes("chan"), .map([(.text("c"), .negative(0))]))])),
                .invalidToken
            ),
            ("uuid as number", tokenWith("uuid", .unsigned(7)), .invalidToken),
            ("meta as text", tokenWith("meta", .text("x")), .invalidToken),
            ("projections as text", tokenWith("meta", .map([(.text("pn-projections"), .text("x"))])), .invalidToken),
            (
                "projection name as number",
                tokenWith(
                    "meta",
                    .map([
                        (
                            .text("pn-projections"),
                            .map([(.text("res"), .map([(.text("datasync:users:u"), .unsigned(1))]))])
                        )
                    ])), .invalidToken
            ),
            (
                "projection key without type",
                tokenWith(
                    "meta",
                    .map([(.text("pn-projections"), .map([(.text("pat"), .map([(.text("users"), .text("admin"))]))]))])),
                .invalidToken
            ),
            ("integer field key", .map([(.unsigned(1), .unsigned(2))]), .unsupportedCBOR),
            ("key not UTF-8", .map([(.byteString([0xC3, 0x28]), .unsigned(2))]), .invalidToken),
        ])
    func badCBOR(name: String, item: Item, code: AuthError.Code) {
        let error = #expect(throws: AuthError.self, "\(name)") { try AccessToken(parsing: text(item)) }
        #expect(error?.code == code, "\(name): \(String(describing: error))")
        #expect(error?.message.isEmpty == false)
    }

    @Test("an error about a token never contains the token")
    func errorsRedact() throws {
        let tokenText = text(validToken) + "!"
        let error = #expect(throws: AuthError.self) { try AccessToken(parsing: tokenText) }
        let description = try #require(error).description
        #expect(!description.contains(String(tokenText.prefix(12))))
        #expect(error?.offset == tokenText.count - 1)
    }

    @Test("a valid token still parses (control for the table above)")
    func control() throws {
        let token = try AccessToken(parsing: text(validToken))
        #expect(token.resources[.channels]["c"] == .read)
        #expect(token.authorizedUserID == "u")
    }
}

/// A valid token with `key` replaced by `value`.
private func tokenWith(_ key: String, _ value: Item) -> Item {
    var entries: [(Item, Item)] = [
        (.bytes("v"), .unsigned(2)), (.bytes("t"), .unsigned(1)), (.bytes("ttl"), .unsigned(1)),
        (.bytes("sig"), .byteString([1])),
    ]
    entries.append((.bytes(key), value))
    return .map(entries)
}
