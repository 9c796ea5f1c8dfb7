import DataSyncEmulator
public import Foundation
public import JSONCore
public import Transport

/// A **server-side tool** for tests: it holds a keyset's *secret key* and asks the emulator's
/// Access Manager for tokens the way a PubNub server SDK does, with `POST /v3/pam/{sub}/grant`
/// and `DELETE /v3/pam/{sub}/grant/{token}` signed with the v2 request signature.
///
/// It exists so SDK end-to-end tests can obtain real tokens from an emulator keyset with access
/// control on. It is never part of a client: a client application must not hold a secret key,
/// and the SDK never signs requests.
///
/// ```swift
/// let server = AccessManagerTestServer(
///     client: httpClient, host: "127.0.0.1", port: port, publishKey: "pub", subscribeKey: "sub",
///     secretKey: "sec", now: { emulator.clock.now.date })
/// let token = try await server.grantToken(
///     ttlMinutes: 15, resources: ["datasync:entities": ["order-1": 32 | 64]], authorizedUUID: "alice")
/// ```
public struct AccessManagerTestServer: Sendable {
    /// A refused grant or revoke: the HTTP status and body the emulator answered.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The HTTP status.
        public var status: Int
        /// The body, as text.
        public var body: String
        /// Status and body.
        public var description: String { "Access Manager answered \(status): \(body)" }
    }

    /// Sends the grant and revoke requests.
    public let client: any HTTPClient
    /// `http` for a local emulator.
    public let scheme: String
    /// The emulator's host.
    public let host: String
    /// The emulator's port.
    public let port: Int?
    /// The keyset's publish key (part of the signed text).
    public let publishKey: String
    /// The keyset's subscribe key.
    public let subscribeKey: String
    /// The keyset's secret key. Server-side only.
    public let secretKey: String
    /// The time the `timestamp` parameter is taken from; pass the emulator's clock when it is
    /// manual, since a timestamp more than 60 s away from it is refused.
    public let now: @Sendable () -> Date

    /// Creates the tool for one keyset of the emulator at `host:port`.
    public init(
        client: any HTTPClient, scheme: String = "http", host: String, port: Int?, publishKey: String,
        subscribeKey: String, secretKey: String, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.scheme = scheme
        self.host = host
        self.port = port
        self.publishKey = publishKey
        self.subscribeKey = subscribeKey
        self.secretKey = secretKey
        self.now = now
    }

    /// Grants a token. `resources` and `patterns` map a grant bucket (`channels`, `groups`,
    /// `uuids`, `datasync:entities`, `datasync:relationships`, `datasync:memberships`, …) to
    /// names (or regular expressions) and their permission bits (read 1, write 2, manage 4,
    /// delete 8, create 16, get 32, update 64, join 128).
    ///
    /// - Throws: ``Failure`` when the emulator refuses the grant; the transport's error when
    ///   the request cannot be sent.
    public func grantToken(
        ttlMinutes: Int, resources: [String: [String: Int]] = [:], patterns: [String: [String: Int]] = [:],
        authorizedUUID: String? = nil, meta: JSONValue = [:]
    ) async throws -> String {
        func table(_ value: [String: [String: Int]]) -> JSONValue {
            .object(value.mapValues { names in .object(names.mapValues { JSONValue.int(Int64($0)) }) })
        }
        var permissions: [String: JSONValue] = [
            "resources": table(resources), "patterns": table(patterns), "meta": meta,
        ]
        if let authorizedUUID { permissions["uuid"] = .string(authorizedUUID) }
        let body: JSONValue = ["ttl": .int(Int64(ttlMinutes)), "permissions": .object(permissions)]
        let response = try await send(.post, path: "/v3/pam/\(encode(subscribeKey))/grant", body: try body.jsonBytes())
        guard response.status == 200, let json = try? JSONValue(parsing: response.body),
            let token = json["data"]?["token"]?.stringValue
        else {
            throw Failure(status: response.status, body: String(decoding: response.body, as: UTF8.self))
        }
        return token
    }

    /// Revokes `token`; requests carrying it are refused with "Token is revoked." from then on.
    ///
    /// - Throws: ``Failure`` when the emulator refuses; the transport's error when the request
    ///   cannot be sent.
    public func revokeToken(_ token: String) async throws {
        let response = try await send(
            .delete, path: "/v3/pam/\(encode(subscribeKey))/grant/\(encode(token))", body: nil)
        guard response.status == 200 else {
            throw Failure(status: response.status, body: String(decoding: response.body, as: UTF8.self))
        }
    }

    private func encode(_ segment: String) -> String { HTTPRequest.encodePathSegment(segment) }

    private func send(_ method: HTTPMethod, path: String, body: [UInt8]?) async throws -> HTTPResponse {
        var query = [
            (name: "uuid", value: "access-manager-test-server"),
            (name: "timestamp", value: String(Int64(now().timeIntervalSince1970.rounded(.down)))),
        ]
        let signature = RequestSignature.sign(
            method: method.rawValue, path: path, query: query, body: body ?? [], publishKey: publishKey,
            secretKey: secretKey)
        query.append((name: "signature", value: signature))
        var headers = HTTPHeaders()
        if body != nil { headers = ["Content-Type": "application/json"] }
        let request = HTTPRequest(
            method: method, scheme: scheme, host: host, port: port, path: path,
            queryItems: query.map { HTTPQueryItem(name: $0.name, value: $0.value) }, headers: headers, body: body)
        return try await client.send(request)
    }
}
