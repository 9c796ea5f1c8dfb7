import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import Testing
import Transport

/// An emulator started in this process on an ephemeral loopback port, with the classes the
/// suite needs, and a client talking to it over real HTTP through one backend.
struct IntegrationFixture {
    static let classes: JSONValue = [
        "entityClasses": [
            [
                "name": "Product",
                "versions": [
                    [
                        "version": 1,
                        "properties": [
                            ["name": "price", "pointer": "/payload/price", "type": "number", "filtering": "full"],
                            ["name": "sku", "pointer": "/payload/sku", "type": "string", "filtering": "simple"],
                        ],
                    ]
                ],
            ]
        ],
        "relationshipClasses": [
            [
                "name": "Bought", "cardinality": "many-to-many", "entityAClass": "User", "entityBClass": "Product",
                "versions": [["version": 1]],
            ]
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
    let fixture = try await IntegrationFixture.start(backend, startTime: startTime)
    do {
        try await body(fixture)
    } catch {
        await fixture.stop()
        throw error
    }
    await fixture.stop()
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
