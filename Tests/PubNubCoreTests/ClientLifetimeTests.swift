import Auth
import DataSyncTestSupport
import PubNubBase
import PubNubCore
import Testing
import Transport

/// A component that runs a background loop on the client's clock, as the subscribe loop will.
/// It holds only what it was given (the clock), never the client.
private final class TickingComponent: PubNubComponent {
    let task: Task<Int, Never>
    private let shutDowns = Locked(0)

    init(clock: ManualClock) {
        task = Task {
            var ticks = 0
            while !Task.isCancelled {
                do {
                    try await clock.sleep(for: .seconds(1))
                    ticks += 1
                } catch {
                    break
                }
            }
            return ticks
        }
    }

    var shutDownCount: Int { shutDowns.withLock { $0 } }

    func shutDown() {
        shutDowns.withLock { $0 += 1 }
        task.cancel()
    }
}

@Suite("Client lifetime: components and their background work")
struct ClientLifetimeTests {
    private func configuration(clock: ManualClock) -> PubNubConfiguration {
        PubNubConfiguration(
            publishKey: nil, subscribeKey: "demo", userId: "tester", transport: MockHTTPClient.success(), clock: clock)
    }

    @Test("releasing the client shuts its components down and their background work ends")
    func releasedClientStopsWork() async throws {
        let clock = ManualClock()
        var pubnub: PubNub? = PubNub(configuration: configuration(clock: clock))
        weak let observed = pubnub
        let component = try #require(pubnub).components.component { TickingComponent(clock: clock) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        #expect(component.shutDownCount == 0)

        pubnub = nil
        #expect(observed == nil, "the component's work must not keep the client alive")
        #expect(component.shutDownCount == 1)
        let ticks = await component.task.value
        #expect(ticks == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test("a component is made once per type and kept")
    func componentMadeOnce() {
        let clock = ManualClock()
        let pubnub = PubNub(configuration: configuration(clock: clock))
        var made = 0
        let first = pubnub.components.component {
            made += 1
            return TickingComponent(clock: clock)
        }
        let second = pubnub.components.component {
            made += 1
            return TickingComponent(clock: clock)
        }
        #expect(first === second)
        #expect(made == 1)
        pubnub.components.shutDownAll()
        #expect(first.shutDownCount == 1)
    }

    @Test("a component made after shut-down is shut down at once and not kept")
    func componentAfterShutDown() async {
        let components = PubNubComponents()
        components.shutDownAll()
        let clock = ManualClock()
        let late = components.component { TickingComponent(clock: clock) }
        #expect(late.shutDownCount == 1)
        #expect(components.isShutDown)
        _ = await late.task.value
        let again = components.component { TickingComponent(clock: clock) }
        #expect(again !== late)
    }
}
