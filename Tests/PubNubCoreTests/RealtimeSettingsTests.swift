import Auth
import DataSyncTestSupport
import PubNubBase
import PubNubCore
import Testing

private final class TokenWatcher: PubNubComponent {
    private let changes = Locked(0)
    var count: Int { changes.withLock { $0 } }
    func shutDown() {}
    func tokenDidChange() { changes.withLock { $0 += 1 } }
}

@Suite("Real-time settings on the configuration and the token-change hook")
struct RealtimeSettingsTests {
    @Test("the defaults: unlimited exponential reconnection, restore, 10 s handshake and REST timeouts, no threshold")
    func defaults() {
        let configuration = PubNubConfiguration(publishKey: nil, subscribeKey: "s", userId: "u")
        #expect(configuration.subscribeReconnectionPolicy == .default)
        #expect(configuration.subscribeReconnectionPolicy.maximumAttempts == nil)
        #expect(configuration.restore)
        #expect(configuration.presenceTimeout == .seconds(300))
        #expect(configuration.heartbeatInterval == nil)
        #expect(!configuration.suppressLeaveEvents)
        #expect(configuration.filterExpression == nil)
        #expect(configuration.maintainPresenceState)
        #expect(configuration.requestMessageCountThreshold == 0)
        #expect(configuration.subscribeTimeout == .seconds(310))
        #expect(configuration.handshakeTimeout == .seconds(10))
        #expect(configuration.requestTimeout == .seconds(10))
    }

    @Test("exponential delays double from the minimum up to the cap, plus the jitter fraction")
    func exponentialDelays() {
        let policy = SubscribeReconnectionPolicy.exponential(
            minimumDelay: .seconds(2), maximumDelay: .seconds(10), maximumJitter: .seconds(1))
        #expect(
            (0..<5).map { policy.delay(beforeAttempt: $0, unitRandom: 0) } == [2, 4, 8, 10, 10].map(Duration.seconds))
        #expect(policy.delay(beforeAttempt: 0, unitRandom: 0.5) == .milliseconds(2500))
        #expect(policy.delay(beforeAttempt: 0, unitRandom: .nan) == .seconds(2))
        #expect(policy.allowsAttempt(1_000_000), "no limit by default")
    }

    @Test(
        "reconnection and REST retry compute the same delay for the same settings",
        arguments: [(Duration.seconds(2), Duration.seconds(10)), (.milliseconds(300), .seconds(150)), (.zero, .zero)])
    func sameBackoffAsRetry(minimum: Duration, maximum: Duration) {
        let reconnect = SubscribeReconnectionPolicy.exponential(
            minimumDelay: minimum, maximumDelay: maximum, maximumJitter: .seconds(1))
        let retry = RetryPolicy.exponential(minimumDelay: minimum, maximumDelay: maximum, maximumJitter: .seconds(1))
        for attempt in [0, 1, 2, 5, 40, Int.max] {
            for unitRandom in [0, 0.25, 1, 7, -1, .nan, .infinity] {
                #expect(
                    reconnect.delay(beforeAttempt: attempt, unitRandom: unitRandom)
                        == retry.delay(beforeRetry: attempt, unitRandom: unitRandom))
            }
        }
    }

    @Test("linear and limited policies, and none")
    func limits() {
        let linear = SubscribeReconnectionPolicy.linear(delay: .seconds(3), maximumAttempts: 2, maximumJitter: .zero)
        #expect(linear.delay(beforeAttempt: 5, unitRandom: 0.9) == .seconds(3))
        #expect(linear.allowsAttempt(1))
        #expect(!linear.allowsAttempt(2))
        #expect(!SubscribeReconnectionPolicy.none.allowsAttempt(0))
    }

    @Test("set(token:) tells every component that the token changed")
    func tokenHook() {
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: nil, subscribeKey: "s", userId: "u", transport: MockHTTPClient.success()))
        let watcher = pubnub.components.component { TokenWatcher() }
        pubnub.set(token: "one")
        pubnub.set(token: "two")
        #expect(watcher.count == 2)
    }
}
