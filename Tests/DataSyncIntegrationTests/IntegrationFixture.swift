import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import Testing
import Transport

/// An emulator started in this process on an ephemeral loopback port, with the classes the
/// suite needs, and a client talking to it over real HTTP through one backend.
struct IntegrationFixture: StoppableRig {
    static let classes: JSONValue = [
        "entityClasses": [
            ClassFixtures.entityClass(
                "Product",
                versions: [
                    ClassFixtures.version([
                        ClassFixtures.property("price", "number", filtering: "full"),
                        ClassFixtures.property("sku", "string", filtering: "simple"),
                    ])
                ])
        ],
        "relationshipClasses": [
            ClassFixtures.relationshipClass("Bought", from: "User", to: "Product", cardinality: "many-to-many")
        ],
    ]

    let emulator: Emulator
    let pubnub: PubNub

    var dataSync: PubNubDataSync { pubnub.dataSync }

    /// Starts an emulator whose clock is frozen at `startTime` and a client on `backend`.
    static func start(_ backend: HTTPBackend, startTime: Date = Date(timeIntervalSince1970: 1_780_000_000)) async throws
        -> IntegrationFixture
    {
        let emulator = try Emulator(configuration: EmulatorConfiguration(classes: classes, startTime: startTime))
        let url = try await emulator.start()
        let host = try #require(url.host)
        let port = try #require(url.port)
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: "pub-demo", subscribeKey: "sub-demo", userId: "integration-\(backend)",
                authToken: "any-token", origin: "\(host):\(port)", useSecureConnections: false,
                transport: try backend.makeClient()))
        return IntegrationFixture(emulator: emulator, pubnub: pubnub)
    }

    func stop() async {
        await emulator.stop()
    }
}

/// Runs `body` against a fresh fixture and always stops the emulator.
func withFixture(
    _ backend: HTTPBackend, startTime: Date = Date(timeIntervalSince1970: 1_780_000_000),
    _ body: (IntegrationFixture) async throws -> Void
) async throws {
    try await IntegrationFixture.start(backend, startTime: startTime).run(body)
}

/// Expects `body` to fail with a `PubNubError` of `reason` and returns that error.
@discardableResult
func expectPubNubError(
    _ reason: PubNubError.Reason, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> PubNubError? {
    do {
        try await body()
        Issue.record("expected \(reason), but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch {
        guard let pubNubError = error.pubNubError else {
            Issue.record("expected a PubNubError \(reason), got \(error)", sourceLocation: sourceLocation)
            return nil
        }
        #expect(pubNubError.reason == reason, "\(pubNubError)", sourceLocation: sourceLocation)
        return pubNubError
    }
}
