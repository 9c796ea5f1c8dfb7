import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Testing
import Transport

/// 2026-09-07T07:34:55Z, a whole second so token issue times are exact.
let accessStart = Date(timeIntervalSince1970: 1_788_766_495)

/// An emulator on loopback whose keyset `pub-a`/`sub-a` has access control on (secret `sec-a`),
/// on a manual clock, with the Course class of the projection tests defined and two courses
/// seeded; plus the app's **server side** (``server``), which alone holds the secret key and
/// mints tokens through the grant endpoint.
struct AccessRig: StoppableRig {
    static let keyset = PubSubKeyset.protected(publishKey: "pub-a", subscribeKey: "sub-a", secretKey: "sec-a")

    static let classes = ClassFixtures.courseClasses

    let backend: HTTPBackend
    let emulator: Emulator
    let clock: EmulatorClock
    let port: Int
    /// The server role: holds the secret key. Never part of a client.
    let server: AccessManagerTestServer

    static func start(_ backend: HTTPBackend) async throws -> AccessRig {
        let clock = EmulatorClock.manual(startingAt: accessStart)
        let emulator = try Emulator(
            configuration: EmulatorConfiguration(clock: clock, pubSub: PubSubConfiguration(keysets: [keyset])))
        try await emulator.defineClasses(classes, subscribeKey: keyset.subscribeKey)
        try await emulator.seed([
            "keysets": [
                "sub-a": [
                    "entities": [
                        [
                            "id": "c1", "entityClass": "Course", "status": "open",
                            "payload": ["title": "Swift", "score": 3, "secret": "s1"],
                        ],
                        [
                            "id": "c2", "entityClass": "Course", "status": "open",
                            "payload": ["title": "Rust", "score": 4, "secret": "s2"],
                        ],
                    ]
                ]
            ]
        ])
        let url = try await emulator.start()
        let port = try #require(url.port)
        let server = AccessManagerTestServer(
            client: try backend.makeClient(), host: "127.0.0.1", port: port, publishKey: keyset.publishKey,
            subscribeKey: keyset.subscribeKey, secretKey: keyset.secretKey, now: { clock.now.date })
        return AccessRig(backend: backend, emulator: emulator, clock: clock, port: port, server: server)
    }

    func stop() async { await emulator.stop() }

    /// A client of the protected keyset over this rig's backend: no token unless given, no
    /// secret key ever, no heartbeats (so a test sees only what it asks for).
    func client(
        userId: String = "alice", token: String? = nil, provider: (any TokenProvider)? = nil
    ) throws -> PubNub {
        try recordedClient(userId: userId, token: token, provider: provider).pubnub
    }

    /// ``client(userId:token:provider:)`` with a recorder in front of the transport, to see the
    /// `auth` every request carried.
    func recordedClient(
        userId: String = "alice", token: String? = nil, provider: (any TokenProvider)? = nil
    ) throws -> (pubnub: PubNub, recorder: RecordingHTTPClient) {
        let recorder = RecordingHTTPClient(try backend.makeClient())
        var configuration = PubNubConfiguration(
            publishKey: Self.keyset.publishKey, subscribeKey: Self.keyset.subscribeKey, userId: userId,
            authToken: token, origin: "127.0.0.1:\(port)", useSecureConnections: false, transport: recorder,
            retryPolicy: .none)
        configuration.tokenProvider = provider
        configuration.heartbeatInterval = .zero
        return (PubNub(configuration: configuration), recorder)
    }
}

/// What a token provider was asked for and what it handed out, in order.
final class ProviderLog: @unchecked Sendable {
    // @unchecked Sendable: `entries` is only touched under `lock`.
    private let lock = NSLock()
    private var entries: [(reason: TokenRefreshReason, token: String)] = []

    var reasons: [TokenRefreshReason] { lock.withLock { entries.map(\.reason) } }
    var tokens: [String] { lock.withLock { entries.map(\.token) } }

    func record(_ reason: TokenRefreshReason, _ token: String) { lock.withLock { entries.append((reason, token)) } }
}

/// Waits for the first status of `stream` that satisfies `condition` (the test's time limit ends
/// a wait that never succeeds).
func firstStatus(
    in stream: AsyncStream<PubNubStatus>, where condition: (PubNubStatus) -> Bool
) async -> PubNubStatus? {
    for await status in stream where condition(status) { return status }
    return nil
}
