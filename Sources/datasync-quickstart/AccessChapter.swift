import DataSync
import DataSyncEmulator
import Foundation
import Realtime

/// Why a token provider was asked, in order.
final class ReasonLog: @unchecked Sendable {
    // @unchecked Sendable: `reasons` is only touched under `lock`.
    private let lock = NSLock()
    private var reasons: [TokenRefreshReason] = []

    var all: [TokenRefreshReason] { lock.withLock { reasons } }

    func add(_ reason: TokenRefreshReason) { lock.withLock { reasons.append(reason) } }
}

/// The access chapter, run against the in-process emulator only, where the server role holds
/// the keyset's secret key: Alice's own client with a token for her own user, a write outside
/// her grant refused with 403, and a token that expires mid-run, refreshed by the provider.
struct AccessChapter {
    let server: AppServer
    let emulator: Emulator
    /// A client for a user id, asking `provider` for its tokens.
    let makeClient: (String, (any TokenProvider)?) -> PubNub

    func run(alice: String, bob: String, watcher: AliceWatcher) async throws {
        step("Access control: Alice signs in; her client asks the app's server for her token")
        let reasons = ReasonLog()
        let grant = Grant(
            resources: ["uuids": [alice: Grant.get | Grant.update]], summary: "get and update on her own user")
        let aliceClient = makeClient(alice, server.tokenProvider(for: alice, grant, log: reasons.add))
        let profile = try await aliceClient.dataSync.getUser(id: alice)
        detail("alice: read her own profile (title \(profile.payload?["title"]?.stringValue ?? "?"))")
        let updated = try await aliceClient.dataSync.updateUser(
            id: alice, operations: [.replace(path: "/payload/title", value: "Staff engineer")])
        detail("alice: set her own title to \(updated.payload?["title"]?.stringValue ?? "?")")
        try await watcher.expect([.entityUpdated])

        step("Alice writes to Bob's profile, outside her grant: the service answers 403")
        do {
            _ = try await aliceClient.dataSync.updateUser(
                id: bob, operations: [.replace(path: "/payload/title", value: "Intern")])
            throw QuickstartFailure("a write outside Alice's grant was accepted")
        } catch let error where error.pubNubError?.reason == .forbidden {
            let refusal = error.pubNubError
            detail(
                "refused as expected: HTTP \(refusal?.statusCode ?? 0) \(refusal?.message ?? "?") "
                    + "from \(refusal?.service ?? "the service"); Bob's profile is unchanged")
        }

        step("Time passes: the emulator's clock jumps 16 minutes, past every token's 15-minute lifetime")
        emulator.clock.advance(by: .seconds(16 * 60))
        let again = try await aliceClient.dataSync.getUser(id: alice)
        guard reasons.all == [.missing, .expired] else {
            throw QuickstartFailure("Alice's token provider was asked for \(reasons.all), not [missing, expired]")
        }
        detail(
            "alice: her read met \"Token is expired.\"; the token provider fetched a fresh token and the read "
                + "was resent with it (title \(again.payload?["title"]?.stringValue ?? "?")); nothing failed")
        detail("the other clients refresh the same way on their next request")
    }
}
