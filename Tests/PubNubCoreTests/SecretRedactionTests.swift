import Auth
import Foundation
import PubNubCore
import PubNubCrypto
import Testing
import Transport

/// Every way a value reaches text (interpolation, `print`, `debugPrint`, `dump`) must keep
/// credentials out: the token, request signatures, `Authorization` headers and the keys a crypto
/// module derives from its cipher key.
@Suite("Secrets never printed")
struct SecretRedactionTests {
    /// A token long enough that a redacted prefix cannot contain a telling part of it.
    static let token = "qEF2AkF0GmEI03xDdHRsGDxDcmVzpURjaGFuoWljaGFubmVsLTEY70NncnChb2NoYW5uZWxfZ3JvdXAtMQVDdXNy"
    static let cipherKey = "correct-horse-battery-staple"

    /// The three renderings a user may reach for.
    static func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped]
    }

    /// Fails when `text` holds `secret` or any 12-character piece of it.
    static func expectHidden(
        _ secret: String, in text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let characters = Array(secret)
        let window = min(12, characters.count)
        for start in 0...(characters.count - window) {
            let piece = String(characters[start..<(start + window)])
            if text.contains(piece) {
                Issue.record("\(what) shows '\(piece)' of a secret:\n\(text)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// Fails when the integers written in `text` (as `dump` writes the elements of a byte array)
    /// contain `key`'s bytes in a row.
    static func expectBytesHidden(
        _ key: [UInt8], in text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let numbers = text.split { !$0.isNumber }.compactMap { Int($0) }
        let needle = key.prefix(8).map(Int.init)
        guard numbers.count >= needle.count else { return }
        for start in 0...(numbers.count - needle.count) where Array(numbers[start..<(start + needle.count)]) == needle {
            Issue.record("\(what) shows the key's bytes:\n\(text)", sourceLocation: sourceLocation)
            return
        }
    }

    /// The keys the two cryptors derive from ``cipherKey``: the raw SHA-256 digest (AES-CBC) and
    /// the first 32 hex characters of it (legacy).
    static func derivedKeys() throws -> (raw: [UInt8], hex: String) {
        let digest = try CryptoPrimitives.sha256(Array(cipherKey.utf8))
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        return (digest, String(hex.prefix(32)))
    }

    static func configuration() throws -> PubNubConfiguration {
        var configuration = PubNubConfiguration(
            publishKey: "pub-demo", subscribeKey: "sub-demo", userId: "alice", authToken: token,
            origin: "127.0.0.1:8090", useSecureConnections: false)
        configuration.cryptoModule = try CryptoModule.aesCbcCryptoModule(cipherKey: cipherKey)
        configuration.warningHandler = nil
        return configuration
    }

    @Test("a configuration never shows its token or the crypto module's keys")
    func configuration() throws {
        let configuration = try Self.configuration()
        let keys = try Self.derivedKeys()
        for text in Self.renderings(configuration) {
            Self.expectHidden(Self.token, in: text, "the configuration")
            Self.expectHidden(keys.hex, in: text, "the configuration")
            Self.expectBytesHidden(keys.raw, in: text, "the configuration")
            #expect(text.contains("alice"), "the identity stays visible: \(text)")
        }
        #expect(String(describing: configuration).contains(TokenRedaction.redact(Self.token)))
    }

    @Test("a client never shows its token or keys")
    func client() throws {
        let pubnub = PubNub(configuration: try Self.configuration())
        let keys = try Self.derivedKeys()
        for text in Self.renderings(pubnub) {
            Self.expectHidden(Self.token, in: text, "the client")
            Self.expectHidden(keys.hex, in: text, "the client")
            Self.expectBytesHidden(keys.raw, in: text, "the client")
        }
    }

    @Test("crypto modules and both cryptors never show a derived key")
    func cryptors() throws {
        let keys = try Self.derivedKeys()
        let values: [Any] = [
            try CryptoModule.aesCbcCryptoModule(cipherKey: Self.cipherKey),
            try CryptoModule.legacyCryptoModule(cipherKey: Self.cipherKey, useRandomIV: false),
            try AESCBCCryptor(cipherKey: Self.cipherKey),
            try LegacyCryptor(cipherKey: Self.cipherKey),
        ]
        for value in values {
            for text in Self.renderings(value) {
                Self.expectHidden(keys.hex, in: text, "\(type(of: value))")
                Self.expectBytesHidden(keys.raw, in: text, "\(type(of: value))")
                Self.expectHidden(Self.cipherKey, in: text, "\(type(of: value))")
            }
        }
        #expect("\(try CryptoModule.aesCbcCryptoModule(cipherKey: Self.cipherKey))".contains("ACRH"))
    }

    @Test("a request hides auth and signature in any letter case, secret headers, and its body")
    func request() {
        let request = HTTPRequest(
            method: .post, host: "ps.pndsn.com", path: "/v1/x",
            queryItems: [
                HTTPQueryItem(name: "auth", value: Self.token),
                HTTPQueryItem(name: "Signature", value: "v2.SIGNATURE-SECRET-XYZ"),
                HTTPQueryItem(name: "AUTH", value: Self.token + "-upper"), HTTPQueryItem(name: "uuid", value: "alice"),
            ],
            headers: ["Authorization": "Bearer " + Self.token, "Cookie": "session=COOKIE-SECRET-VALUE"],
            body: Array("BODY-SECRET-CONTENT".utf8))
        for text in Self.renderings(request) {
            Self.expectHidden(Self.token, in: text, "the request")
            Self.expectHidden("v2.SIGNATURE-SECRET-XYZ", in: text, "the request")
            Self.expectHidden("session=COOKIE-SECRET-VALUE", in: text, "the request")
            Self.expectHidden("BODY-SECRET-CONTENT", in: text, "the request")
            #expect(text.contains("uuid=alice"), "non-secret query items stay: \(text)")
        }
        #expect(request.redactedURL.contains("Signature=REDACTED"))
        #expect(request.redactedURL.contains("AUTH=REDACTED"))
        for text in Self.renderings(request.headers) {
            Self.expectHidden(Self.token, in: text, "the headers")
        }
    }

    @Test("the logging middleware redacts auth and signature whatever their case")
    func loggingMiddleware() {
        let middleware = LoggingMiddleware(sink: ClosureLogSink { _ in })
        let request = HTTPRequest(
            host: "ps.pndsn.com", path: "/time/0",
            queryItems: [
                HTTPQueryItem(name: "Auth", value: Self.token),
                HTTPQueryItem(name: "SIGNATURE", value: "sig-secret-123456"),
            ])
        let url = middleware.redactedURL(request)
        Self.expectHidden(Self.token, in: url, "the logged URL")
        Self.expectHidden("sig-secret-123456", in: url, "the logged URL")
    }

    @Test("a token store and a parsed token never show the token or its signature")
    func tokens() throws {
        let store = TokenStore(token: Self.token)
        for text in Self.renderings(store) {
            Self.expectHidden(Self.token, in: text, "the token store")
        }
        let vector =
            "qEF2AkF0GmEI03xDdHRsGDxDcmVzpURjaGFuoWljaGFubmVsLTEY70NncnChb2NoYW5uZWxfZ3JvdXAtMQVDdXNyoENzcGOgRHV1aWShZnV1aWQt"
            + "MRhoQ3BhdKVEY2hhbqFtXmNoYW5uZWwtXFMqJBjvQ2dycKF0XjpjaGFubmVsX2dyb3VwLVxTKiQFQ3VzcqBDc3BjoER1dWlkoWpedXVpZC1cUyok"
            + "GGhEbWV0YaBEdXVpZHR0ZXN0LWF1dGhvcml6ZWQtdXVpZENzaWdYIPpU-vCe9rkpYs87YUrFNWkyNq8CVvmKwEjVinnDrJJc"
        let token = try AccessToken(parsing: vector)
        for text in Self.renderings(token) {
            Self.expectHidden(vector, in: text, "the access token")
            Self.expectBytesHidden(token.signature, in: text, "the access token")
        }
    }
}
