import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import Messaging
import Realtime
import Testing
import Transport

/// A subscriber that reaches the emulator through a `FaultProxy` (its reconnection waits on a
/// manual clock), and a publisher that reaches the emulator directly, over real HTTP.
private struct ProxiedRig {
    let emulator: Emulator
    let proxy: FaultProxy
    let clock: ManualClock
    let subscriber: PubNub
    let publisher: PubNub
    let timeline = Timeline()

    static func start(
        _ backend: HTTPBackend, configure: (inout PubNubConfiguration) -> Void
    ) async throws -> ProxiedRig {
        let emulator = try Emulator()
        let url = try await emulator.start()
        let port = try #require(url.port)
        let proxy = try FaultProxy(upstreamPort: port)
        let clock = ManualClock()
        var configuration = PubNubConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: "subscriber", origin: "127.0.0.1:\(proxy.port)",
            useSecureConnections: false, transport: try backend.makeClient(), retryPolicy: .none, clock: clock)
        configuration.heartbeatInterval = .zero
        configure(&configuration)
        let subscriber = PubNub(configuration: configuration)
        let publisher = try RealtimeFixture.makePublisher(backend, port: UInt16(port))
        let rig = ProxiedRig(
            emulator: emulator, proxy: proxy, clock: clock, subscriber: subscriber, publisher: publisher)
        rig.timeline.attach(to: subscriber)
        return rig
    }

    func publish(_ range: ClosedRange<Int>) async throws {
        for index in range {
            _ = try await publisher.publish(channel: "recovery", message: JSONValue.object(["n": .int(Int64(index))]))
        }
    }

    func stop() async {
        subscriber.disconnect()
        proxy.stop()
        await emulator.stop()
    }
}

/// Issue 36 §1 and issue 30 §3 over real sockets: once a fault ends, the loop is back after at
/// most one short step of the injected clock, whatever the reconnection policy would have waited.
@Suite("Recovery after a fault through the fault proxy", .timeLimit(.minutes(2)))
struct RecoveryThroughFaultProxyTests {
    @Test(
        "refused connects are retried on the short schedule, so the heal is noticed within 2 s of the clock",
        arguments: HTTPBackend.allCases)
    func refusedThenHealed(backend: HTTPBackend) async throws {
        let rig = try await ProxiedRig.start(backend) { configuration in
            configuration.subscribeReconnectionPolicy = .exponential(maximumJitter: .zero)
        }
        rig.proxy.set(.refuse)
        rig.subscriber.subscribe(to: ["recovery"])
        // Six refused handshakes: the default exponential policy alone would be at 64 s by now.
        for failures in 1...6 {
            #expect(await rig.timeline.waitForStatuses(failures))
            await rig.clock.waitForSleepers(1)
            if failures < 6 { rig.clock.advance(by: rig.clock.requestedSleeps[failures - 1]) }
        }
        #expect(rig.clock.requestedSleeps == [0.5, 1, 2, 2, 2, 2].map { Duration.seconds($0) })
        rig.proxy.set(.none)
        rig.clock.advance(by: .seconds(2))
        #expect(await rig.timeline.waitForStatus(.reconnected))
        #expect(rig.timeline.categories() == Array(repeating: .networkIssues, count: 6) + [.reconnected])
        #expect(rig.clock.now.offset == .milliseconds(9500), "0.5 + 1 + 2 + 2 + 2 + 2 s of waiting in all")
        try await rig.publish(1...2)
        #expect(await rig.timeline.waitForMessages(2))
        await rig.stop()
    }

    @Test(
        "behind a blackhole a timed-out REST call gives up the long-poll; a probe ends the 60 s wait once healed",
        arguments: HTTPBackend.allCases)
    func blackholeThenHealed(backend: HTTPBackend) async throws {
        let rig = try await ProxiedRig.start(backend) { configuration in
            configuration.subscribeReconnectionPolicy = .linear(delay: .seconds(60), maximumJitter: .zero)
            configuration.reconnectionProbeInterval = .seconds(2)
        }
        rig.subscriber.subscribe(to: ["recovery"])
        #expect(await rig.timeline.waitForStatus(.connected))
        await rig.emulator.waitForHeldSubscribe()
        try await rig.publish(1...1)
        #expect(await rig.timeline.waitForMessages(1))
        await rig.emulator.waitForHeldSubscribe()
        rig.proxy.set(.blackhole)
        // Published while the subscriber cannot hear: delivered after the heal, once each.
        try await rig.publish(2...3)
        // The proxy blackholes open connections within about 10 ms, so the held long-poll may still
        // hear message 2 and be followed by a new one; a call that started before the loop's
        // current long-poll says nothing about it, so ask until one that started after it times out.
        var calls = 0
        while !rig.timeline.categories().contains(.unexpectedDisconnect), calls < 20, !Task.isCancelled {
            calls += 1
            await #expect(throws: PubNubError.self) {
                try await rig.subscriber.time(custom: PubNub.RequestConfiguration(timeout: .milliseconds(300)))
            }
            // The suspicion reaches the loop through its inbox; the next call is made only if it did not.
            _ = await eventually(limit: .seconds(1)) { rig.timeline.categories().contains(.unexpectedDisconnect) }
        }
        #expect(await rig.timeline.waitForStatus(.unexpectedDisconnect))
        // The policy's 60 s wait and the probe's 2 s sleep.
        await rig.clock.waitForSleepers(2)
        #expect(rig.clock.requestedSleeps.contains(.seconds(60)))
        rig.proxy.set(.none)
        rig.clock.advance(by: .seconds(2))
        #expect(await rig.timeline.waitForStatus(.reconnected))
        #expect(await rig.timeline.waitForMessages(3))
        #expect(rig.timeline.messages.map(\.number) == [1, 2, 3], "nothing lost, nothing twice")
        #expect(rig.timeline.categories() == [.connected, .unexpectedDisconnect, .reconnected])
        #expect(rig.clock.now.offset == .seconds(2), "one probe interval, not the policy's 60 s")
        await rig.stop()
    }
}

extension Emulator {
    /// Returns once a long-poll is held, yielding between checks.
    fileprivate func waitForHeldSubscribe() async {
        #expect(await eventually { self.heldSubscribeCount >= 1 })
    }
}
