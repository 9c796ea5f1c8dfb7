// ─────────────────────────────────────────────────────────────────────────────────────────────
//  SERVER SIDE. This file plays your app's backend, not the app.
//
//  It holds the keyset's secret key and asks Access Manager for tokens with a signed
//  `POST /v3/pam/{sub}/grant`, as PubNub's server SDKs do (here through DataSyncTestSupport's
//  `AccessManagerTestServer`, a server-side tool). A client app never holds the secret key: it
//  asks your backend for a token (a `TokenProvider`) and sends only that token.
// ─────────────────────────────────────────────────────────────────────────────────────────────
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import Realtime
import Transport

/// What one token permits: names (or regular expressions) per grant bucket, with their bits.
struct Grant: Sendable {
    static let read = 1
    static let delete = 8
    static let create = 16
    static let get = 32
    static let update = 64

    var resources: [String: [String: Int]] = [:]
    var patterns: [String: [String: Int]] = [:]
    /// How the story describes the grant when it is issued.
    var summary: String
}

/// The app's backend: the only place the secret key lives.
struct AppServer: Sendable {
    let accessManager: AccessManagerTestServer
    /// The lifetime of every token it issues.
    let ttlMinutes = 15

    /// The backend of the emulator at `url`, for its keyset `keyset` (whose secret key it holds).
    init(emulator: Emulator, url: URL, keyset: PubSubKeyset) throws {
        let clock = emulator.clock
        accessManager = AccessManagerTestServer(
            client: try PlatformHTTPClient.make(), host: url.host ?? "127.0.0.1", port: url.port,
            publishKey: keyset.publishKey, subscribeKey: keyset.subscribeKey, secretKey: keyset.secretKey,
            now: { clock.now.date })
    }

    /// Grants `grant` to `userId` for ``ttlMinutes`` (the token is valid only with that user id).
    func token(for userId: String, _ grant: Grant) async throws -> String {
        try await accessManager.grantToken(
            ttlMinutes: ttlMinutes, resources: grant.resources, patterns: grant.patterns, authorizedUUID: userId)
    }

    /// What a client app configures as its `tokenProvider`: in a real app an HTTPS call to your
    /// backend, here a call into this server role. `log` is told each time a token is issued.
    func tokenProvider(
        for userId: String, _ grant: Grant, log: @escaping @Sendable (TokenRefreshReason) -> Void = { _ in }
    ) -> ClosureTokenProvider {
        ClosureTokenProvider { reason in
            let token = try await token(for: userId, grant)
            detail("server: issued \(userId) a \(ttlMinutes)-minute token (\(grant.summary)); asked because: \(reason)")
            log(reason)
            return token
        }
    }
}
