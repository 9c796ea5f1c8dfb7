import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

@testable import Auth

/// The `pam.parse_token` vector of the pub/sub spec (token from PubNub's Swift SDK tests).
private enum Vector {
    static let token =
        "qEF2AkF0GmEI03xDdHRsGDxDcmVzpURjaGFuoWljaGFubmVsLTEY70NncnChb2NoYW5uZWxfZ3JvdXAtMQVDdXNyoENzcGOgRHV1aWShZnV1aWQt"
        + "MRhoQ3BhdKVEY2hhbqFtXmNoYW5uZWwtXFMqJBjvQ2dycKF0XjpjaGFubmVsX2dyb3VwLVxTKiQFQ3VzcqBDc3BjoER1dWlkoWpedXVpZC1cUyok"
        + "GGhEbWV0YaBEdXVpZHR0ZXN0LWF1dGhvcml6ZWQtdXVpZENzaWdYIPpU-vCe9rkpYs87YUrFNWkyNq8CVvmKwEjVinnDrJJc"
    static let signatureHex = "fa54faf09ef6b92962cf3b614ac535693236af0256f98ac048d58a79c3ac925c"
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

private func encodedToken(_ item: CBORTestEncoder.Item, padded: Bool = false) -> String {
    CBORTestEncoder.base64URL(CBORTestEncoder.encode(item), padded: padded)
}

@Suite("AccessToken parsing")
struct AccessTokenTests {
    @Test("the spec vector decodes to exactly the listed fields")
    func vectorToken() throws {
        let token = try AccessToken(parsing: Vector.token)
        #expect(token.version == 2)
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_627_968_380))
        #expect(token.ttlMinutes == 60)
        #expect(token.expiresAt == Date(timeIntervalSince1970: 1_627_968_380 + 3600))
        #expect(token.authorizedUserID == "test-authorized-uuid")
        let all: TokenPermission = [.read, .write, .manage, .delete, .get, .update, .join]
        #expect(all.rawValue == 239)
        #expect(
            token.resources
                == TokenGrants([
                    .channels: ["channel-1": all],
                    .channelGroups: ["channel_group-1": [.read, .manage]],
                    .users: [:],
                    .spaces: [:],
                    .uuids: ["uuid-1": [.delete, .get, .update]],
                ]))
        #expect(
            token.patterns
                == TokenGrants([
                    .channels: [#"^channel-\S*$"#: TokenPermission(rawValue: 239)],
                    .channelGroups: [#"^:channel_group-\S*$"#: TokenPermission(rawValue: 5)],
                    .users: [:],
                    .spaces: [:],
                    .uuids: [#"^uuid-\S*$"#: TokenPermission(rawValue: 104)],
                ]))
        #expect(token.meta == [:])
        #expect(token.projections.isEmpty)
        #expect(token.signature.count == 32)
        #expect(hex(token.signature) == Vector.signatureHex)
    }

    @Test("the vector's permissions answer exact names first, then patterns")
    func vectorPermissions() throws {
        let token = try AccessToken(parsing: Vector.token)
        #expect(token.allows(.write, on: "channel-1", in: .channels))
        #expect(token.allows([.read, .join], on: "channel-xyz", in: .channels))
        #expect(!token.allows(.read, on: "other", in: .channels))
        #expect(token.allows(.manage, on: "channel_group-1", in: .channelGroups))
        #expect(!token.allows(.write, on: "channel_group-1", in: .channelGroups))
        #expect(token.allows(.manage, on: ":channel_group-2", in: .channelGroups))
        #expect(!token.allows(.read, on: "uuid-1", in: .uuids))
        #expect(token.allows(.update, on: "uuid-9", in: .uuids))
        #expect(!token.allows(.read, on: "channel-1", in: .spaces))
    }

    @Test("an exact entry decides even when a pattern would grant more")
    func exactEntryWins() throws {
        let item = CBORTestEncoder.token(
            issuedAt: 1_700_000_000, ttl: 10, resources: [("chan", [("room", 1)])],
            patterns: [("chan", [("^ro", 3)])])
        let token = try AccessToken(parsing: encodedToken(item))
        #expect(token.allows(.read, on: "room", in: .channels))
        #expect(!token.allows(.write, on: "room", in: .channels))
        #expect(token.allows(.write, on: "rope", in: .channels))
    }

    @Test("an invalid pattern never matches and never crashes")
    func invalidPattern() throws {
        let item = CBORTestEncoder.token(
            issuedAt: 1_700_000_000, ttl: 10,
            patterns: [("chan", [("([unclosed", 255), ("(", 255), (String(repeating: "a", count: 5000), 255)])])
        let token = try AccessToken(parsing: encodedToken(item))
        #expect(!token.allows(.read, on: "([unclosed", in: .channels))
        #expect(!token.allows(.read, on: String(repeating: "a", count: 5000), in: .channels))
    }

    @Test("expiry uses issue time plus TTL minutes, with a clock-skew allowance")
    func expiry() throws {
        let item = CBORTestEncoder.token(issuedAt: 1_000_000, ttl: 15)
        let token = try AccessToken(parsing: encodedToken(item))
        let expiry = Date(timeIntervalSince1970: 1_000_000 + 15 * 60)
        #expect(token.expiresAt == expiry)
        #expect(!token.isExpired(at: expiry.addingTimeInterval(-31)))
        #expect(token.isExpired(at: expiry.addingTimeInterval(-29)))
        #expect(!token.isExpired(at: expiry.addingTimeInterval(-1), clockSkew: 0))
        #expect(token.isExpired(at: expiry, clockSkew: 0))
        #expect(token.isExpired(at: expiry.addingTimeInterval(-100), clockSkew: 120))
        #expect(!token.isExpired(at: Date(timeIntervalSince1970: 1_000_000)))
    }

    @Test("DataSync buckets and unknown buckets keep their permissions")
    func dataSyncBuckets() throws {
        let item = CBORTestEncoder.token(
            issuedAt: 1_750_000_000, ttl: 1440,
            resources: [
                ("chan", []), ("datasync:entities", [("capy-001", 96)]),
                ("datasync:relationships", [("rel-1", 8)]),
                ("datasync:memberships", [("user-123:channel-X", 32)]),
                ("future:bucket", [("thing", 1 << 40 | 1)]),
            ],
            patterns: [("datasync:entities", [(".*", 48)])], authorizedUUID: "myauthuuid1")
        let token = try AccessToken(parsing: encodedToken(item))
        #expect(token.resources[.dataSyncEntities] == ["capy-001": [.get, .update]])
        #expect(token.resources[.dataSyncRelationships] == ["rel-1": .delete])
        #expect(token.resources[.dataSyncMemberships] == ["user-123:channel-X": .get])
        #expect(token.resources[.channels].isEmpty)
        #expect(token.resources.buckets.keys.contains(.channels))
        let future = TokenResourceBucket(rawValue: "future:bucket")
        #expect(token.resources[future]["thing"]?.rawValue == 1 << 40 | 1)
        #expect(token.patterns[.dataSyncEntities] == [".*": [.get, .create]])
        #expect(token.allows(.create, on: "anything", in: .dataSyncEntities))
        #expect(!token.allows(.create, on: "capy-001", in: .dataSyncEntities))
        #expect(token.allows([.get, .update], on: "capy-001", in: .dataSyncEntities))
        #expect(token.authorizedUserID == "myauthuuid1")
    }

    @Test("pn-projections in meta decode into a typed map")
    func projections() throws {
        let meta: CBORTestEncoder.Item = .map([
            (.text("app_version"), .text("2.0")),
            (
                .text("pn-projections"),
                .map([
                    (
                        .text("res"),
                        .map([
                            (.text("datasync:users:user.001"), .text("__default__")),
                            (.text("datasync:memberships:user.001:channel.001"), .text("__default__")),
                        ])
                    ),
                    (
                        .text("pat"),
                        .map([
                            (.text("datasync:entities:customer.*"), .text("admin")),
                            (.text("datasync:relationships:requestedby.*"), .text("admin")),
                        ])
                    ),
                ])
            ),
        ])
        let token = try AccessToken(parsing: encodedToken(CBORTestEncoder.token(issuedAt: 1, ttl: 1, meta: meta)))
        #expect(token.meta["app_version"] == "2.0")
        #expect(token.meta["pn-projections"]?["pat"]?["datasync:entities:customer.*"] == "admin")
        #expect(token.projections.resources[.users] == ["user.001": "__default__"])
        #expect(token.projections.resources[.memberships] == ["user.001:channel.001": "__default__"])
        #expect(token.projections.patterns[.entities] == ["customer.*": "admin"])
        #expect(token.projections.patterns[.relationships] == ["requestedby.*": "admin"])
        #expect(token.projections.projection(for: "customer.42", type: .entities) == "admin")
        #expect(token.projections.projection(for: "user.001", type: .users) == "__default__")
        #expect(token.projections.projection(for: "loan.1", type: .entities) == nil)
    }

    @Test("meta values of every CBOR kind become JSON")
    func metaConversion() throws {
        let meta: CBORTestEncoder.Item = .map([
            (.text("n"), .negative(41)), (.text("big"), .unsigned(UInt64.max)), (.text("f"), .half(0x3E00)),
            (.text("b"), .bool(true)), (.text("z"), .null), (.bytes("raw"), .byteString([1, 2, 3])),
            (.text("list"), .array([.unsigned(1), .text("two"), .tag(1, .unsigned(3))])),
            (.text("inf"), .double(.infinity)),
        ])
        let token = try AccessToken(parsing: encodedToken(CBORTestEncoder.token(issuedAt: 1, ttl: 1, meta: meta)))
        #expect(token.meta["n"] == .int(-42))
        #expect(token.meta["big"] == .double(Double(UInt64.max)))
        #expect(token.meta["f"] == .double(1.5))
        #expect(token.meta["b"] == true)
        #expect(token.meta["z"] == .null)
        #expect(token.meta["raw"] == "AQID")
        #expect(token.meta["list"] == [1, "two", 3])
        #expect(token.meta["inf"] == .null)
    }

    @Test(
        "every text form of the same token parses the same",
        arguments: [
            "unpadded base64url", "padded base64url", "standard base64", "percent-encoded", "whitespace",
        ])
    func textForms(form: String) throws {
        // Lengths chosen so the CBOR length is not a multiple of 3: padding and '-'/'_' both occur.
        let item = CBORTestEncoder.token(
            issuedAt: 1_700_000_000, ttl: 30, resources: [("chan", [("a~>?", 255)])],
            signature: [0xFB, 0xFF, 0xBE, 0x3E, 0xFF])
        let bytes = CBORTestEncoder.encode(item)
        #expect(bytes.count % 3 != 0)
        let unpadded = CBORTestEncoder.base64URL(bytes)
        let padded = CBORTestEncoder.base64URL(bytes, padded: true)
        #expect(unpadded.contains("-") || unpadded.contains("_"))
        #expect(padded.hasSuffix("="))
        let standard = padded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let text: String
        switch form {
        case "unpadded base64url": text = unpadded
        case "padded base64url": text = padded
        case "standard base64": text = standard
        case "percent-encoded":
            text = standard.replacingOccurrences(of: "+", with: "%2B")
                .replacingOccurrences(of: "/", with: "%2f").replacingOccurrences(of: "=", with: "%3D")
        default: text = "  \n" + unpadded + "\t "
        }
        let token = try AccessToken(parsing: text)
        #expect(token == (try AccessToken(cbor: bytes)))
        #expect(token.signature == [0xFB, 0xFF, 0xBE, 0x3E, 0xFF])
        #expect(token.resources[.channels]["a~>?"] == TokenPermission(rawValue: 255))
    }

    @Test("description never shows the token text or signature")
    func descriptionRedacts() throws {
        let token = try AccessToken(parsing: Vector.token)
        let text = token.description
        #expect(text.contains("v2"))
        #expect(text.contains("ttl 60 min"))
        #expect(!text.contains(String(Vector.token.prefix(16))))
        #expect(!text.lowercased().contains("fa54faf0"))
        let store = TokenStore(token: Vector.token)
        #expect(store.description == "TokenStore(qEF2Ak…(320 chars))")
        #expect(TokenRedaction.redact("short") == "…(5 chars)")
    }
}
