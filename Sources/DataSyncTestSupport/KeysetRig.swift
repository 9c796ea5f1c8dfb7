package import DataSyncEmulator
import Foundation
package import PubNubCore
package import PubNubCrypto
package import Transport

/// An in-process emulator on a loopback port with the open `demo` keyset and one protected keyset,
/// and clients for it: the rig the feature modules' end-to-end tests (history, files, push)
/// share. Package access: a test helper of this repository, not API.
package struct KeysetRig: Sendable {
    /// The keyset with access control on.
    package let protected: PubSubKeyset
    package let emulator: Emulator
    package let port: Int
    /// The clock of the clients ``client(_:userId:keyset:token:crypto:transport:clock:port:)`` makes
    /// unless the call names one (an `ImmediateClock` makes retry waits instant).
    package let clientClock: any Clock<Duration>

    /// Starts an emulator with `demo` and `protected` (and `admin` when given: a secret there
    /// makes the admin routes ask for it).
    package static func start(
        protected: PubSubKeyset, admin: AdminConfiguration = AdminConfiguration(),
        clientClock: any Clock<Duration> = ContinuousClock()
    ) async throws -> KeysetRig {
        let emulator = try Emulator(
            configuration: EmulatorConfiguration(
                pubSub: PubSubConfiguration(keysets: [.demo, protected]), admin: admin))
        let url = try await emulator.start()
        guard let port = url.port else {
            await emulator.stop()
            throw RawSocketError("the emulator reported no port in \(url)")
        }
        return KeysetRig(protected: protected, emulator: emulator, port: port, clientClock: clientClock)
    }

    package func stop() async { await emulator.stop() }

    /// A client of `keyset` over `backend` (or `transport`), without retries, to the emulator (or to
    /// `port`: a proxy or a second server in front of it).
    package func client(
        _ backend: HTTPBackend, userId: String = "alice", keyset: PubSubKeyset = .demo, token: String? = nil,
        crypto: CryptoModule? = nil, transport: (any HTTPClient)? = nil,
        clock: (any Clock<Duration>)? = nil, port: Int? = nil
    ) throws -> PubNub {
        var configuration = PubNubConfiguration(
            publishKey: keyset.publishKey, subscribeKey: keyset.subscribeKey, userId: userId, authToken: token,
            origin: "127.0.0.1:\(port ?? self.port)", useSecureConnections: false,
            transport: try transport ?? backend.makeClient(), retryPolicy: .none, clock: clock ?? clientClock)
        configuration.cryptoModule = crypto
        return PubNub(configuration: configuration)
    }

    /// The server role of the protected keyset: grants and revokes signed with its secret key.
    package func server(_ backend: HTTPBackend) throws -> AccessManagerTestServer {
        AccessManagerTestServer(
            client: try backend.makeClient(), host: "127.0.0.1", port: port, publishKey: protected.publishKey,
            subscribeKey: protected.subscribeKey, secretKey: protected.secretKey)
    }
}
