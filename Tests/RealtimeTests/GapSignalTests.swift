import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Realtime
import Testing
import Transport

private typealias Machine = SubscribeStateMachine
private typealias Effect = SubscribeStateMachine.Effect

private func cursor(_ timetoken: Timetoken, _ region: Int = 7) -> SubscribeCursor {
    SubscribeCursor(timetoken: timetoken, region: region)
}

private func envelopes(_ count: Int, from first: Timetoken = 1_000) -> [SubscribeEnvelope] {
    (0..<count).map { SubscribeEnvelope(published: cursor(first + Timetoken($0), 1), channel: "a", payload: "m") }
}

private func answer(_ timetoken: Timetoken, _ count: Int = 0) -> SubscribeResponse {
    SubscribeResponse(cursor: cursor(timetoken), envelopes: envelopes(count, from: timetoken - Timetoken(count)))
}

private func statuses(_ effects: [Effect]) -> [PubNubStatus] {
    effects.compactMap { effect in
        if case .emitStatus(let status, _) = effect { return status }
        return nil
    }
}

private func losses(_ effects: [Effect]) -> [PubNubStatus] {
    effects.compactMap { effect in
        if case .possibleLoss(let status) = effect { return status }
        return nil
    }
}

/// A machine receiving from 100 after its first handshake.
private func receiving(threshold: Int = 0) -> Machine {
    var machine = Machine(
        settings: Machine.Settings(policy: .exponential(maximumJitter: .zero), requestMessageCountThreshold: threshold))
    _ = machine.handle(.subscriptionChanged(channels: ["a"], groups: [], timetoken: nil))
    _ = machine.handle(.responseReceived(id: machine.generation, response: answer(100)))
    return machine
}

/// Loses the long-poll of `machine` and reconnects: the handshake restores the cursor it had.
private func reconnect(_ machine: inout Machine) {
    _ = machine.handle(
        .requestFailed(id: machine.generation, failure: Machine.Failure(category: .networkIssues, isRetryable: true)))
    _ = machine.handle(.reconnectTimerFired(id: machine.generation))
    _ = machine.handle(.responseReceived(id: machine.generation, response: answer(900)))
}

@Suite("Gap signals and statuses that mean what they say")
struct GapSignalTests {
    @Test("a cut answer fetched again from its cursor says it is retried, and raises no DataSync gap")
    func refetchIsRetried() throws {
        var machine = receiving()
        var detector = DataSyncGapDetector()
        _ = detector.observe(PubNubStatus(category: .connected, operation: .subscribe, isError: false))
        let salvaged = SubscribeResponse(cursor: cursor(200), envelopes: [], problems: ["cut"], isSalvaged: true)
        let effects = machine.handle(.responseReceived(id: machine.generation, response: salvaged))
        #expect(effects.last == .receive(id: machine.generation, channels: ["a"], groups: [], cursor: cursor(100)))
        let malformed = try #require(statuses(effects).first)
        #expect(malformed.category == .malformedResponse)
        #expect(malformed.willAutomaticallyRetry, "the answer is asked for again")
        #expect(statuses(effects).compactMap { detector.observe($0) }.isEmpty, "nothing was skipped")
        // The second unreadable answer from that cursor moves on past it: that one skips, and says so.
        let again = machine.handle(.responseReceived(id: machine.generation, response: salvaged))
        let skipped = try #require(statuses(again).first)
        #expect(!skipped.willAutomaticallyRetry)
        #expect(statuses(again).compactMap { detector.observe($0) }.map(\.reason) == [.unreadableEvents])
    }

    @Test("without a threshold no answer reports requestMessageCountExceeded, however full")
    func thresholdOffByDefault() {
        #expect(PubNubConfiguration(publishKey: nil, subscribeKey: "s", userId: "u").requestMessageCountThreshold == 0)
        var machine = receiving()
        let burst = machine.handle(.responseReceived(id: machine.generation, response: answer(400, 150)))
        #expect(statuses(burst).isEmpty)
        #expect(losses(burst).isEmpty, "a live answer starts where the last ended: nothing can be missing")
    }

    @Test("only the first answer of a catch-up, when full, may follow dropped messages")
    func catchUpOverflow() throws {
        var machine = receiving()
        reconnect(&machine)
        // Resumed from 100: the first catch-up answer holds the service's whole queue.
        let first = machine.handle(.responseReceived(id: machine.generation, response: answer(300, 100)))
        let loss = try #require(losses(first).first)
        #expect(loss.category == .requestMessageCountExceeded)
        #expect(loss.lastTimetoken == 100, "events after the resumed cursor may be missing")
        #expect(statuses(first).isEmpty, "apps see a gap, not a status they did not ask for")
        // The next page continues from the first: nothing lost between them.
        let second = machine.handle(.responseReceived(id: machine.generation, response: answer(500, 100)))
        #expect(losses(second).isEmpty)
        // A catch-up smaller than the queue is complete.
        reconnect(&machine)
        let small = machine.handle(.responseReceived(id: machine.generation, response: answer(700, 99)))
        #expect(losses(small).isEmpty)
    }

    @Test("a threshold set by the app reports every full answer, and is the queue size assumed for catch-ups")
    func thresholdSet() {
        var machine = receiving(threshold: 5)
        let live = machine.handle(.responseReceived(id: machine.generation, response: answer(300, 5)))
        #expect(statuses(live).map(\.category) == [.requestMessageCountExceeded])
        #expect(losses(live).isEmpty)
        reconnect(&machine)
        let catchUp = machine.handle(.responseReceived(id: machine.generation, response: answer(600, 5)))
        #expect(statuses(catchUp).map(\.category) == [.requestMessageCountExceeded])
        #expect(losses(catchUp).count == 1)
    }

    @Test("the gap detector: a possible loss is a gap, a status for a burst is not")
    func detector() {
        var detector = DataSyncGapDetector()
        _ = detector.observe(PubNubStatus(category: .connected, operation: .subscribe, isError: false))
        let burst = PubNubStatus(
            category: .requestMessageCountExceeded, operation: .subscribe, isError: true, currentTimetoken: 30,
            lastTimetoken: 20)
        #expect(detector.observe(burst) == nil)
        let gap = detector.observePossibleLoss(burst)
        #expect(gap?.reason == .tooManyEvents)
        #expect(gap?.lastKnownTimetoken == 20)
        #expect(gap?.resumedAt == 30)
    }

    @Test("a lossless catch-up of 200 messages through a client: every message, no gap, no status")
    func losslessCatchUpThroughClient() async {
        let (service, _, pubnub) = scriptedClient()
        let subscription = pubnub.dataSyncEntity("a").subscription()
        let gaps = Recorder<PubNubDataSyncGap>()
        let messages = Recorder<PubNubMessage>()
        let statuses = Recorder<PubNubStatus>()
        subscription.onDataSyncGap = { gaps.append($0) }
        subscription.onMessage = { messages.append($0) }
        pubnub.onStatus = { statuses.append($0) }
        service.push(Answer.subscribe("100"))
        subscription.subscribe()
        #expect(await statuses.waitFor(1))
        // A live burst of two pages of 100: more than the old default threshold, nothing missing.
        let pages = [(1...100), (101...200)].map { range in
            Answer.subscribe(
                String(100 + range.upperBound), range.map { Answer.message("a", .int(Int64($0)), tt: String(100 + $0)) }
            )
        }
        for page in pages { service.push(page) }
        #expect(await messages.waitFor(200))
        #expect(messages.all.map { $0.payload.intValue ?? 0 } == Array(1...200))
        #expect(gaps.all.isEmpty)
        #expect(statuses.all.map(\.category) == [.connected])
        subscription.unsubscribe()
    }
}

@Suite("Timeouts: a handshake and REST calls fail in seconds, the long-poll keeps its own")
struct TimeoutDefaultTests {
    @Test("the handshake carries handshakeTimeout, the long-poll subscribeTimeout, a heartbeat requestTimeout")
    func requestTimeouts() async {
        let (service, _, pubnub) = scriptedClient { $0.heartbeatInterval = .seconds(60) }
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        service.push(Answer.subscribe("100"))
        pubnub.subscribe(to: ["a"])
        #expect(await statuses.waitFor(1))
        #expect(await eventually { service.subscribeRequests.count == 2 && !service.presenceRequests.isEmpty })
        let subscribes = service.subscribeRequests
        #expect(subscribes[0].queryList.contains("tt=0"))
        #expect(subscribes[0].timeout == .seconds(10), "a handshake is answered at once")
        #expect(subscribes[1].timeout == .seconds(310), "a long-poll is held by the service")
        #expect(service.presenceRequests.first?.timeout == PubNubConfiguration.defaultRequestTimeout)
        #expect(PubNubConfiguration.defaultRequestTimeout == .seconds(10))
        pubnub.unsubscribeAll()
    }

    @Test("a handshake timeout set on the configuration is the one sent")
    func configuredHandshakeTimeout() async {
        let (service, _, pubnub) = scriptedClient { $0.handshakeTimeout = .seconds(3) }
        pubnub.subscribe(to: ["a"])
        #expect(await eventually { !service.subscribeRequests.isEmpty })
        #expect(service.subscribeRequests.first?.timeout == .seconds(3))
        pubnub.unsubscribeAll()
    }
}
