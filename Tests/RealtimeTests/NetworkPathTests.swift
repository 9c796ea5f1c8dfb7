import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubBase
import PubNubCore
import Realtime
import Testing
import Transport

private typealias Machine = SubscribeStateMachine

private let wifi = NetworkPathUpdate(isSatisfied: true, interfaces: ["en0"])
private let cellular = NetworkPathUpdate(isSatisfied: true, interfaces: ["pdp_ip0"])
private let offline = NetworkPathUpdate(isSatisfied: false)

private func categories(_ effects: [Machine.Effect]) -> [PubNubStatus.Category] {
    effects.compactMap { effect in
        if case .emitStatus(let status, _) = effect { return status.category }
        return nil
    }
}

/// A monitor the test drives: it records observers and hands them the updates it is told to.
private final class FakePathMonitor: NetworkPathMonitor {
    private let state = Locked<[UInt64: @Sendable (NetworkPathUpdate) -> Void]>([:])
    private let keys = Locked<UInt64>(0)

    var observerCount: Int { state.withLock { $0.count } }

    func observe(_ handler: @escaping @Sendable (NetworkPathUpdate) -> Void) -> NetworkPathObservation {
        let key = keys.withLock { key in
            key += 1
            return key
        }
        state.withLock { $0[key] = handler }
        return NetworkPathObservation { [weak self] in _ = self?.state.withLock { $0.removeValue(forKey: key) } }
    }

    func report(_ update: NetworkPathUpdate) {
        for handler in state.withLock({ Array($0.values) }) { handler(update) }
    }
}

@Suite("Network path changes: a lost path is reported at once, a new one reconnects at once")
struct NetworkPathTests {
    // MARK: The state machine

    @Test("the first update is only the starting point; a repeated one changes nothing")
    func firstUpdateIsStartingPoint() {
        var machine = receivingFrom100()
        #expect(machine.handle(.networkPath(wifi)).isEmpty)
        #expect(machine.handle(.networkPath(wifi)).isEmpty)
        #expect(machine.state == .receiving)
    }

    @Test("losing the path gives the held long-poll up at once, and its return ends the wait")
    func lossThenReturn() {
        var machine = receivingFrom100()
        _ = machine.handle(.networkPath(wifi))
        let lost = machine.handle(.networkPath(offline))
        #expect(lost.first == .cancelPending)
        #expect(categories(lost) == [.unexpectedDisconnect])
        let id = machine.generation
        #expect(lost.contains(.scheduleReconnect(id: id, attempt: 0, retryAfter: nil)))
        #expect(machine.handle(.networkPath(offline)).isEmpty)
        #expect(machine.handle(.networkPath(wifi)) == [.reconnectSoon(id: id)])
        #expect(machine.handle(.networkPath(cellular)).isEmpty, "the wait is shortened once")
        // The reconnection resumes from the cursor of the long-poll that was given up.
        _ = machine.handle(.reconnectTimerFired(id: id))
        let resumed = machine.handle(
            .responseReceived(
                id: machine.generation,
                response: SubscribeResponse(cursor: SubscribeCursor(timetoken: 300, region: 9), envelopes: [])))
        #expect(
            resumed.contains(
                .receive(
                    id: machine.generation, channels: ["a"], groups: [],
                    cursor: SubscribeCursor(timetoken: 100, region: 9))))
        #expect(categories(resumed) == [.reconnected])
    }

    @Test("a switch of interfaces restarts a held long-poll from its cursor, even with restore off")
    func interfaceSwitch() {
        var machine = receivingFrom100(Machine.Settings(policy: .exponential(maximumJitter: .zero), restore: false))
        _ = machine.handle(.networkPath(wifi))
        let switched = machine.handle(.networkPath(cellular))
        #expect(switched.first == .cancelPending)
        #expect(categories(switched) == [.unexpectedDisconnect])
        #expect(machine.pendingTimetoken == 100)
    }

    @Test("a first update without a path gives up a handshake in flight")
    func firstUpdateOffline() {
        var machine = Machine(settings: Machine.Settings(policy: .exponential(maximumJitter: .zero)))
        _ = machine.handle(.subscriptionChanged(channels: ["a"], groups: [], timetoken: nil))
        let effects = machine.handle(.networkPath(offline))
        #expect(effects.first == .cancelPending)
        #expect(categories(effects) == [.networkIssues])
        guard case .reconnecting = machine.state else {
            Issue.record("expected a reconnection wait, got \(machine.state)")
            return
        }
    }

    @Test("a stopped loop, one whose retries are off, and a wait after an error answer ignore path changes")
    func ignored() {
        var stopped = Machine(settings: Machine.Settings(policy: .exponential(maximumJitter: .zero)))
        #expect(stopped.handle(.networkPath(offline)).isEmpty)
        #expect(stopped.handle(.networkPath(wifi)).isEmpty)
        var manual = receivingFrom100(Machine.Settings(policy: .none))
        _ = manual.handle(.networkPath(wifi))
        #expect(manual.handle(.networkPath(offline)).isEmpty)
        #expect(manual.state == .receiving)
        var erroring = receivingFrom100()
        _ = erroring.handle(.networkPath(wifi))
        let unavailable = Machine.Failure(category: .networkIssues, statusCode: 503, isRetryable: true)
        _ = erroring.handle(.requestFailed(id: erroring.generation, failure: unavailable))
        #expect(erroring.handle(.networkPath(cellular)).isEmpty, "a 5xx keeps the service's wait")
    }

    // MARK: The loop, over a scripted service

    @Test("through the client: a lost path cancels the long-poll, its return reconnects without waiting out 30 s")
    func throughTheClient() async {
        let service = FakeService()
        let clock = ManualClock()
        let monitor = FakePathMonitor()
        let pubnub = makeClient(service, clock: clock) { configuration in
            configuration.subscribeReconnectionPolicy = .linear(delay: .seconds(30), maximumJitter: .zero)
            configuration.networkPathMonitor = monitor
        }
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { status in if status.operation == .subscribe { statuses.append(status) } }
        service.push(Answer.subscribe("100", region: 4))
        pubnub.subscribe(to: ["a"])
        #expect(await service.waitForHeld())
        #expect(monitor.observerCount == 1)
        monitor.report(wifi)
        monitor.report(offline)
        #expect(await statuses.waitFor(2))
        #expect(statuses.all.map(\.category) == [.connected, .unexpectedDisconnect])
        #expect(await eventually { service.cancelledCount == 1 }, "the held long-poll is cancelled at once")
        #expect(await eventually { clock.sleeperCount == 1 })
        service.push(Answer.subscribe("300", region: 9))
        monitor.report(wifi)
        // The 30 s wait is replaced by the short jitter (zero here): no clock advance needed beyond it.
        #expect(await service.waitForSubscribes(4))
        #expect(service.subscribeRequests[3].queryValue("tt") == "100", "resumed from the cursor: nothing lost")
        #expect(await statuses.waitFor(3))
        #expect(statuses.all.last?.category == .reconnected)
        #expect(clock.now.offset < .seconds(30))
    }

    @Test("the client stops observing the monitor when it is released")
    func releasedClientStopsObserving() async {
        let service = FakeService()
        let monitor = FakePathMonitor()
        var pubnub: PubNub? = makeClient(service, clock: ManualClock()) { configuration in
            configuration.networkPathMonitor = monitor
        }
        service.push(Answer.subscribe("100"))
        pubnub?.subscribe(to: ["a"])
        #expect(monitor.observerCount == 1)
        pubnub = nil
        #expect(await eventually { monitor.observerCount == 0 })
    }

    // MARK: Monotonic time

    @Test("timers run on a monotonic clock by default, so a wall clock set back or forward moves none")
    func defaultClockIsMonotonic() {
        let configuration = PubNubConfiguration(publishKey: nil, subscribeKey: "demo", userId: "me")
        // ContinuousClock (like SuspendingClock) never follows the wall clock; `Date` does.
        #expect(configuration.clock is ContinuousClock)
        #if !canImport(Network)
            #expect(configuration.networkPathMonitor == nil, "no path monitor where the Network framework is missing")
        #endif
    }
}
