import JSONCore
import PubNubCore
import Realtime
import Testing

private typealias Machine = SubscribeStateMachine
private typealias Effect = SubscribeStateMachine.Effect

private func cursor(_ timetoken: Timetoken, _ region: Int) -> SubscribeCursor {
    SubscribeCursor(timetoken: timetoken, region: region)
}

private func answer(_ timetoken: Timetoken, _ region: Int, _ envelopes: [SubscribeEnvelope] = []) -> SubscribeResponse {
    SubscribeResponse(cursor: cursor(timetoken, region), envelopes: envelopes)
}

private func envelope(_ channel: String, _ timetoken: Timetoken = 5) -> SubscribeEnvelope {
    SubscribeEnvelope(published: cursor(timetoken, 1), channel: channel, payload: "hi")
}

private let network = Machine.Failure(category: .networkIssues, isRetryable: true)

private func statuses(_ effects: [Effect]) -> [PubNubStatus] {
    effects.compactMap { effect in
        if case .emitStatus(let status, _) = effect { return status }
        return nil
    }
}

private func retryID(_ effects: [Effect]) -> UInt64? {
    for case .emitStatus(_, let id?) in effects { return id }
    return nil
}

/// A machine subscribed to `channels` and receiving from 100@7.
private func receivingMachine(
    _ settings: Machine.Settings = Machine.Settings(policy: .exponential(maximumJitter: .zero)),
    channels: [String] = ["a"]
) -> Machine {
    var machine = Machine(settings: settings)
    _ = machine.handle(.subscriptionChanged(channels: channels, groups: [], timetoken: nil))
    _ = machine.handle(.responseReceived(id: machine.generation, response: answer(100, 7)))
    return machine
}

@Suite("Subscribe state machine: every transition, on a manual clock's terms (no I/O)")
struct SubscribeStateMachineTests {
    @Test("subscribing handshakes, then receives with the handshake's cursor and reports connected")
    func handshakeThenReceive() {
        var machine = Machine(settings: Machine.Settings())
        let start = machine.handle(.subscriptionChanged(channels: ["a"], groups: ["g"], timetoken: nil))
        #expect(
            start == [
                .cancelPending, .handshake(id: 1, channels: ["a"], groups: ["g"]),
                .presenceChanged(channels: ["a"], groups: ["g"]),
            ])
        #expect(machine.state == .handshaking(attempt: 0))
        let connected = machine.handle(.responseReceived(id: 1, response: answer(100, 7, [envelope("a")])))
        #expect(connected.first == .receive(id: 2, channels: ["a"], groups: ["g"], cursor: cursor(100, 7)))
        #expect(!connected.contains(.deliver([envelope("a")])), "handshake messages are ignored")
        #expect(statuses(connected).map(\.category) == [.connected])
        #expect(statuses(connected).first?.currentTimetoken == 100)
        #expect(statuses(connected).first?.subscribedChannelGroups == ["g"])
        #expect(machine.state == .receiving)
    }

    @Test("a receive answer delivers its envelopes and polls again from its cursor, keeping the region")
    func receiveAdvancesCursor() {
        var machine = receivingMachine()
        let effects = machine.handle(
            .responseReceived(id: machine.generation, response: answer(200, 7, [envelope("a")])))
        #expect(
            effects == [
                .deliver([envelope("a")]), .receive(id: 3, channels: ["a"], groups: [], cursor: cursor(200, 7)),
            ])
        #expect(machine.cursor == cursor(200, 7))
        #expect(machine.lastTimetoken == 100)
    }

    @Test("a user timetoken restores with the stored timetoken and the region of the new handshake")
    func userTimetokenRestores() {
        var machine = Machine(settings: Machine.Settings())
        _ = machine.handle(.subscriptionChanged(channels: ["a"], groups: [], timetoken: 50))
        let effects = machine.handle(.responseReceived(id: 1, response: answer(100, 9)))
        #expect(effects.first == .receive(id: 2, channels: ["a"], groups: [], cursor: cursor(50, 9)))
    }

    @Test("a timetoken given while receiving starts a new handshake that restores from it")
    func timetokenWhileReceiving() {
        var machine = receivingMachine()
        let effects = machine.handle(.subscriptionChanged(channels: ["a"], groups: [], timetoken: 42))
        #expect(effects.contains(.handshake(id: 3, channels: ["a"], groups: [])))
        let resumed = machine.handle(.responseReceived(id: 3, response: answer(900, 3)))
        #expect(resumed.first == .receive(id: 4, channels: ["a"], groups: [], cursor: cursor(42, 3)))
    }

    @Test("adding a channel while receiving keeps the cursor and reports connected")
    func channelChangeKeepsCursor() {
        var machine = receivingMachine()
        let effects = machine.handle(.subscriptionChanged(channels: ["a", "b"], groups: [], timetoken: nil))
        #expect(
            effects == [
                .receive(id: 3, channels: ["a", "b"], groups: [], cursor: cursor(100, 7)),
                .emitStatus(
                    PubNubStatus(
                        category: .connected, operation: .subscribe, isError: false, currentTimetoken: 100,
                        subscribedChannels: ["a", "b"]), retryID: nil),
                .presenceChanged(channels: ["a", "b"], groups: []),
            ])
    }

    @Test("removing a channel leaves it, reports disconnected for unsubscribe, and keeps the cursor")
    func removalLeaves() {
        var machine = receivingMachine(channels: ["a", "a-pnpres", "b"])
        let effects = machine.handle(.subscriptionChanged(channels: ["b"], groups: [], timetoken: nil))
        #expect(effects.first == .leave(channels: ["a"], groups: []), "presence names are never left")
        #expect(statuses(effects).map(\.category) == [.disconnected])
        #expect(statuses(effects).map(\.operation) == [.unsubscribe])
        #expect(effects.contains(.receive(id: 3, channels: ["b"], groups: [], cursor: cursor(100, 7))))
    }

    @Test("suppressLeaveEvents sends no leave")
    func suppressedLeave() {
        var machine = receivingMachine(Machine.Settings(suppressLeaveEvents: true), channels: ["a", "b"])
        let effects = machine.handle(.subscriptionChanged(channels: ["b"], groups: [], timetoken: nil))
        #expect(!effects.contains { if case .leave = $0 { return true } else { return false } })
    }

    @Test("unsubscribing from everything stops, leaves, stops heartbeats and forgets the cursor")
    func unsubscribeAll() {
        var machine = receivingMachine()
        let effects = machine.handle(.subscriptionChanged(channels: [], groups: [], timetoken: nil))
        #expect(
            effects.prefix(3) == [
                .leave(channels: ["a"], groups: []), .cancelPending, .presenceChanged(channels: [], groups: []),
            ])
        #expect(statuses(effects).map(\.category) == [.disconnected])
        #expect(machine.state == .stopped)
        #expect(machine.cursor == nil)
    }

    @Test(
        "a receive failure reconnects after the policy's delay, then restores the stored timetoken with the new region")
    func reconnectRestores() {
        var machine = receivingMachine()
        let failure = machine.handle(.requestFailed(id: 2, failure: network))
        #expect(failure.first == .scheduleReconnect(id: 3, attempt: 0, retryAfter: nil))
        #expect(statuses(failure).map(\.category) == [.unexpectedDisconnect])
        #expect(statuses(failure).first?.willAutomaticallyRetry == true)
        #expect(retryID(failure) == 3)
        #expect(machine.state == .reconnecting(attempt: 0, failure: network))
        #expect(machine.handle(.reconnectTimerFired(id: 3)) == [.handshake(id: 4, channels: ["a"], groups: [])])
        let back = machine.handle(.responseReceived(id: 4, response: answer(500, 2)))
        #expect(back.first == .receive(id: 5, channels: ["a"], groups: [], cursor: cursor(100, 2)))
        #expect(statuses(back).map(\.category) == [.reconnected])
    }

    @Test("with restore off a reconnect continues from the new handshake's cursor")
    func reconnectWithoutRestore() {
        var machine = receivingMachine(Machine.Settings(restore: false))
        _ = machine.handle(.requestFailed(id: 2, failure: network))
        _ = machine.handle(.reconnectTimerFired(id: 3))
        let back = machine.handle(.responseReceived(id: 4, response: answer(500, 2)))
        #expect(back.first == .receive(id: 5, channels: ["a"], groups: [], cursor: cursor(500, 2)))
    }

    @Test("a Retry-After reaches the reconnection timer")
    func retryAfterPassesThrough() {
        var machine = receivingMachine()
        let busy = Machine.Failure(
            category: .networkIssues, statusCode: 429, isRetryable: true, retryAfter: .seconds(7))
        #expect(
            machine.handle(.requestFailed(id: 2, failure: busy)).first
                == .scheduleReconnect(id: 3, attempt: 0, retryAfter: .seconds(7)))
    }

    @Test("failed handshakes count attempts; the policy gives up after its maximum")
    func giveUp() {
        var machine = Machine(settings: Machine.Settings(policy: .linear(delay: .seconds(1), maximumAttempts: 2)))
        _ = machine.handle(.subscriptionChanged(channels: ["a"], groups: [], timetoken: nil))
        #expect(
            machine.handle(.requestFailed(id: 1, failure: network)).first
                == .scheduleReconnect(id: 2, attempt: 0, retryAfter: nil))
        _ = machine.handle(.reconnectTimerFired(id: 2))
        #expect(machine.state == .handshaking(attempt: 1))
        #expect(
            machine.handle(.requestFailed(id: 3, failure: network)).first
                == .scheduleReconnect(id: 4, attempt: 1, retryAfter: nil))
        _ = machine.handle(.reconnectTimerFired(id: 4))
        let gaveUp = machine.handle(.requestFailed(id: 5, failure: network))
        #expect(statuses(gaveUp).map(\.category) == [.networkIssues])
        #expect(statuses(gaveUp).first?.willAutomaticallyRetry == false)
        #expect(gaveUp.contains(.presenceChanged(channels: [], groups: [])))
        #expect(machine.state == .failed(network))
    }

    @Test("the none policy stops at the first failure")
    func noneStops() {
        var machine = receivingMachine(Machine.Settings(policy: .none))
        let effects = machine.handle(.requestFailed(id: 2, failure: network))
        #expect(statuses(effects).map(\.category) == [.unexpectedDisconnect])
        #expect(machine.state == .failed(network))
    }

    @Test("a 403 stops with accessDenied until the token changes, then resumes from the stored cursor")
    func accessDeniedThenToken() {
        var machine = receivingMachine()
        let denied = Machine.Failure(
            category: .accessDenied, statusCode: 403, isRetryable: false,
            errorData: PubNubStatus.ErrorData(channels: ["a"], information: "Forbidden"))
        let stop = machine.handle(.requestFailed(id: 2, failure: denied))
        #expect(statuses(stop).map(\.category) == [.accessDenied])
        #expect(statuses(stop).first?.errorData?.channels == ["a"])
        #expect(machine.state == .failed(denied))
        #expect(machine.handle(.reconnectTimerFired(id: 3)).isEmpty)
        let resume = machine.handle(.tokenChanged)
        #expect(resume.first == .handshake(id: 4, channels: ["a"], groups: []))
        let back = machine.handle(.responseReceived(id: 4, response: answer(300, 8)))
        #expect(back.first == .receive(id: 5, channels: ["a"], groups: [], cursor: cursor(100, 8)))
    }

    @Test(
        "a new token does not restart a loop stopped for another reason",
        arguments: [
            PubNubStatus.Category.requestURITooLong, .badRequest, .malformedFilterExpression,
        ])
    func tokenIgnoredOtherwise(category: PubNubStatus.Category) {
        var machine = receivingMachine()
        _ = machine.handle(
            .requestFailed(id: 2, failure: .init(category: category, statusCode: 400, isRetryable: false)))
        #expect(machine.handle(.tokenChanged).isEmpty)
        #expect(machine.handle(.tokenChanged) == [])
    }

    @Test("changing channels during the reconnection delay keeps waiting; the next handshake uses the new set")
    func channelChangeDuringReconnect() {
        var machine = receivingMachine()
        _ = machine.handle(.requestFailed(id: 2, failure: network))
        let change = machine.handle(.subscriptionChanged(channels: ["a", "b"], groups: [], timetoken: nil))
        #expect(change == [.presenceChanged(channels: ["a", "b"], groups: [])])
        #expect(machine.handle(.reconnectTimerFired(id: 3)) == [.handshake(id: 4, channels: ["a", "b"], groups: [])])
    }

    @Test("unsubscribing during the reconnection delay cancels it; the old timer is ignored")
    func unsubscribeDuringBackoff() {
        var machine = receivingMachine()
        _ = machine.handle(.requestFailed(id: 2, failure: network))
        let effects = machine.handle(.subscriptionChanged(channels: [], groups: [], timetoken: nil))
        #expect(effects.contains(.cancelPending))
        #expect(machine.state == .stopped)
        #expect(machine.handle(.reconnectTimerFired(id: 3)).isEmpty)
    }

    @Test("cancelAutomaticRetry stops the loop with disconnected, keeping the cursor for reconnect")
    func cancelRetry() {
        var machine = receivingMachine()
        let failure = machine.handle(.requestFailed(id: 2, failure: network))
        let id = retryID(failure) ?? 0
        #expect(machine.handle(.cancelAutomaticRetry(id: id + 1)).isEmpty, "a stale handle does nothing")
        let stop = machine.handle(.cancelAutomaticRetry(id: id))
        #expect(stop.first == .cancelPending)
        #expect(statuses(stop).map(\.category) == [.disconnected])
        #expect(machine.state == .stopped)
        let again = machine.handle(.reconnect(timetoken: nil))
        #expect(again.contains(.handshake(id: machine.generation, channels: ["a"], groups: [])))
        let back = machine.handle(.responseReceived(id: machine.generation, response: answer(300, 4)))
        #expect(back.first == .receive(id: machine.generation, channels: ["a"], groups: [], cursor: cursor(100, 4)))
    }

    @Test("disconnect stops and reports disconnected; a second disconnect does nothing")
    func disconnect() {
        var machine = receivingMachine()
        let effects = machine.handle(.disconnect)
        #expect(effects.prefix(2) == [.cancelPending, .presenceChanged(channels: [], groups: [])])
        #expect(statuses(effects).map(\.category) == [.disconnected])
        #expect(machine.handle(.disconnect).isEmpty)
        #expect(machine.handle(.reconnect(timetoken: nil)).first == .cancelPending)
    }

    @Test("answers to a superseded request are ignored")
    func staleAnswerIgnored() {
        var machine = receivingMachine()
        _ = machine.handle(.subscriptionChanged(channels: ["a", "b"], groups: [], timetoken: nil))
        #expect(machine.handle(.responseReceived(id: 2, response: answer(999, 1))).isEmpty)
        #expect(machine.handle(.requestFailed(id: 2, failure: network)).isEmpty)
        #expect(machine.cursor == cursor(100, 7))
    }

    @Test("an answer with at least the threshold of messages reports requestMessageCountExceeded")
    func messageCountExceeded() {
        var machine = receivingMachine(Machine.Settings(requestMessageCountThreshold: 2))
        let two = machine.handle(.responseReceived(id: 2, response: answer(200, 7, [envelope("a"), envelope("a")])))
        #expect(statuses(two).map(\.category) == [.requestMessageCountExceeded])
        let one = machine.handle(.responseReceived(id: 3, response: answer(300, 7, [envelope("a")])))
        #expect(statuses(one).isEmpty)
    }

    @Test("skipped envelopes report malformedResponse and the loop goes on from the cursor")
    func malformedReported() {
        var machine = receivingMachine()
        let response = SubscribeResponse(cursor: cursor(200, 7), envelopes: [], problems: ["m[0]: no \"c\" channel"])
        let effects = machine.handle(.responseReceived(id: 2, response: response))
        #expect(statuses(effects).map(\.category) == [.malformedResponse])
        #expect(effects.last == .receive(id: 3, channels: ["a"], groups: [], cursor: cursor(200, 7)))
    }

    @Test("a channel change after a failure starts over with a handshake")
    func changeAfterFailure() {
        var machine = receivingMachine()
        _ = machine.handle(
            .requestFailed(id: 2, failure: .init(category: .accessDenied, statusCode: 403, isRetryable: false)))
        let effects = machine.handle(.subscriptionChanged(channels: ["b"], groups: [], timetoken: nil))
        #expect(effects.contains(.handshake(id: machine.generation, channels: ["b"], groups: [])))
    }
}
