import DataSyncTestSupport
import JSONCore
import PubNubCore
import Realtime
import Testing
import Transport

private typealias Machine = SubscribeStateMachine

private func signal(_ outcome: OriginHealth.Outcome) -> Machine.Event {
    .origin(OriginHealth.Signal(outcome: outcome, sequence: 1))
}

private let noJitter = Machine.Settings(policy: .exponential(maximumJitter: .zero))

@Suite("Recovering after an outage: what ends a reconnection wait, probes, the short schedule, dead long-polls")
struct RecoveryTests {
    // MARK: The state machine

    @Test("an answer from the origin ends a wait after a connection failure, once; after an error answer it does not")
    func answerEndsConnectionWaitOnly() {
        var machine = receivingFrom100(noJitter)
        let refused = Machine.Failure(category: .networkIssues, isRetryable: true, connection: .failedFast)
        _ = machine.handle(.requestFailed(id: machine.generation, failure: refused))
        let id = machine.generation
        #expect(machine.handle(signal(.answered)) == [.reconnectSoon(id: id)])
        #expect(machine.handle(signal(.answered)).isEmpty, "a wait is shortened once")
        #expect(machine.handle(.reconnectTimerFired(id: id)) == [.handshake(id: id + 1, channels: ["a"], groups: [])])

        var erroring = receivingFrom100(noJitter)
        let unavailable = Machine.Failure(category: .networkIssues, statusCode: 503, isRetryable: true)
        _ = erroring.handle(.requestFailed(id: erroring.generation, failure: unavailable))
        #expect(erroring.handle(signal(.answered)).isEmpty, "a 5xx keeps the policy's wait")
    }

    @Test("the origin outcomes the machine acts on: failures while receiving, an answer during a connection wait, once")
    func originOutcomesActedOn() {
        #expect(SubscribeStateMachine(settings: noJitter).originOutcomesActedOn.isEmpty, "stopped")
        var machine = receivingFrom100(noJitter)
        #expect(machine.originOutcomesActedOn == [.cannotConnect, .timedOut])
        let refused = Machine.Failure(category: .networkIssues, isRetryable: true, connection: .failedFast)
        _ = machine.handle(.requestFailed(id: machine.generation, failure: refused))
        #expect(machine.originOutcomesActedOn == [.answered])
        _ = machine.handle(signal(.answered))
        #expect(machine.originOutcomesActedOn.isEmpty, "a wait is shortened once")

        var erroring = receivingFrom100(noJitter)
        let unavailable = Machine.Failure(category: .networkIssues, statusCode: 503, isRetryable: true)
        _ = erroring.handle(.requestFailed(id: erroring.generation, failure: unavailable))
        #expect(erroring.originOutcomesActedOn.isEmpty, "a 5xx keeps the policy's wait")
    }

    @Test("REST calls answered while a long-poll is held put nothing in the loop's inbox")
    func answeredCallsWhileReceivingDoNotWakeTheLoop() async throws {
        let (service, _, pubnub) = scriptedClient()
        service.push(Answer.subscribe("100", region: 4))
        pubnub.subscribe(to: ["a"])
        #expect(await service.waitForHeld())
        #expect(await eventually { pubnub.realtime.isSettled })
        let before = pubnub.realtime.hub.sentEventCount
        for _ in 0..<20 {
            _ = try await pubnub.pipeline.send(
                ServicePipeline.Call(method: .get, path: "/time/0"), custom: PubNub.RequestConfiguration())
        }
        // Each answer used to be queued for the loop, which then woke only to drop it.
        #expect(pubnub.realtime.hub.sentEventCount == before)
        guard case .receiving = await pubnub.realtime.loop.state else {
            Issue.record("the long-poll was disturbed: \(await pubnub.realtime.loop.state)")
            return
        }
        #expect(service.subscribeRequests.count == 2, "the handshake and the held long-poll, nothing restarted")
    }

    @Test("a request that timed out or could not connect while a long-poll is held restarts it from its cursor")
    func suspectLongPoll() throws {
        // Even with restore off: the restart is the SDK's suspicion, not a reconnection the app asked for.
        var machine = receivingFrom100(Machine.Settings(policy: .exponential(maximumJitter: .zero), restore: false))
        let effects = machine.handle(signal(.timedOut))
        let id = machine.generation
        #expect(effects.first == .cancelPending)
        #expect(effects.contains(.scheduleReconnect(id: id, attempt: 0, retryAfter: nil)))
        let reports = effects.compactMap { effect -> PubNubStatus? in
            if case .emitStatus(let status, _) = effect { return status }
            return nil
        }
        #expect(reports.map(\.category) == [.unexpectedDisconnect])
        #expect(reports.first?.willAutomaticallyRetry == true)
        _ = machine.handle(.reconnectTimerFired(id: id))
        let resumed = machine.handle(
            .responseReceived(
                id: machine.generation,
                response: SubscribeResponse(cursor: SubscribeCursor(timetoken: 300, region: 9), envelopes: [])))
        let expected = Machine.Effect.receive(
            id: machine.generation, channels: ["a"], groups: [], cursor: SubscribeCursor(timetoken: 100, region: 9))
        #expect(resumed.contains(expected))
        let statuses = resumed.compactMap { effect -> PubNubStatus.Category? in
            if case .emitStatus(let status, _) = effect { return status.category }
            return nil
        }
        #expect(statuses == [.reconnected])
    }

    @Test("a lost pooled connection, or any signal with reconnection off, leaves a held long-poll alone")
    func notSuspect() {
        var machine = receivingFrom100(noJitter)
        #expect(machine.handle(signal(.connectionLost)).isEmpty)
        #expect(machine.handle(signal(.answered)).isEmpty)
        var manual = receivingFrom100(Machine.Settings(policy: .none))
        #expect(manual.handle(signal(.timedOut)).isEmpty)
        #expect(manual.handle(signal(.cannotConnect)).isEmpty)
        #expect(manual.state == .receiving)
    }

    @Test("the short schedule after a refused or reset connection: 0.5 s, 1 s, 2 s, capped; never above the policy")
    func reconnectionDelays() {
        let policy = SubscribeReconnectionPolicy.default
        func delay(_ attempt: Int, _ connection: Machine.ConnectionFailure?, random: Double = 0) -> Duration {
            SubscribeLoop.reconnectionDelay(
                policy: policy, attempt: attempt, retryAfter: nil, connection: connection, unitRandom: random)
        }
        #expect((0..<6).map { delay($0, .failedFast) } == [0.5, 1, 2, 2, 2, 2].map { Duration.seconds($0) })
        #expect(delay(9, .failedFast, random: 1) == .milliseconds(2250), "jitter: the policy's, at most 250 ms")
        #expect(delay(3, .timedOut) == .seconds(16), "a timeout keeps the policy's schedule")
        #expect(delay(3, nil) == .seconds(16), "so does an error answer")
        let quick = SubscribeReconnectionPolicy.linear(delay: .milliseconds(200), maximumJitter: .zero)
        #expect(
            SubscribeLoop.reconnectionDelay(
                policy: quick, attempt: 0, retryAfter: nil, connection: .failedFast, unitRandom: 0)
                == .milliseconds(200))
        #expect(
            SubscribeLoop.reconnectionDelay(
                policy: policy, attempt: 0, retryAfter: .seconds(7), connection: .failedFast, unitRandom: 0)
                == .seconds(7))
    }

    // MARK: The loop, over a scripted service

    @Test("refused and reset connections are retried after 0.5 s, 1 s, 2 s, 2 s instead of 2 s, 4 s, 8 s, 16 s")
    func shortScheduleThroughTheLoop() async {
        let (service, clock, pubnub) = scriptedClient()
        service.push(.failure(TransportError(code: .cannotConnect, message: "refused")))
        service.push(.failure(TransportError(code: .connectionLost, message: "reset")))
        service.push(.failure(TransportError(code: .cannotConnect, message: "refused")))
        service.push(.failure(TransportError(code: .cannotConnect, message: "refused")))
        service.push(Answer.subscribe("5"))
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        pubnub.subscribe(to: ["a"])
        for step in 1...4 {
            #expect(await eventually { clock.sleeperCount == 1 && clock.requestedSleeps.count == step })
            clock.advance(by: clock.requestedSleeps[step - 1])
        }
        #expect(clock.requestedSleeps == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(2)])
        #expect(await statuses.waitFor(5))
        #expect(
            statuses.all.map(\.category) == [
                .networkIssues, .networkIssues, .networkIssues, .networkIssues, .reconnected,
            ])
    }

    @Test("while waiting after a timeout, a /time/0 probe every 2 s ends the wait as soon as the origin answers")
    func probeEndsWait() async throws {
        let (service, clock, pubnub) = scriptedClient { configuration in
            configuration.subscribeReconnectionPolicy = .linear(delay: .seconds(30), maximumJitter: .zero)
            configuration.reconnectionProbeInterval = .seconds(2)
        }
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        service.setTimeAnswer(.failure(TransportError(code: .timedOut, message: "still down")))
        service.push(.failure(TransportError(code: .timedOut, message: "down")))
        service.push(Answer.subscribe("100"))
        pubnub.subscribe(to: ["a"])
        // The 30 s wait and the probe's 2 s sleep.
        #expect(await eventually { clock.sleeperCount == 2 })
        clock.advance(by: .seconds(2))
        #expect(await eventually { service.timeRequests.count == 1 && clock.sleeperCount == 2 })
        #expect(service.subscribeRequests.count == 1, "a probe that fails changes nothing")
        service.setTimeAnswer(.success(Answer.status(200)))
        clock.advance(by: .seconds(2))
        #expect(await service.waitForSubscribes(3))
        #expect(clock.now.offset == .seconds(4), "back after two probe intervals, not the policy's 30 s")
        #expect(await statuses.waitFor(2))
        #expect(statuses.all.map(\.category) == [.timeout, .reconnected])
        let probe = try #require(service.timeRequests.first)
        #expect(probe.timeout == .seconds(2))
        #expect(await eventually { clock.sleeperCount == 0 }, "the wait and its probes are over")
        #expect(clock.requestedSleeps.filter { $0 == .seconds(30) }.count == 1)
    }

    @Test("any REST call the origin answers ends a wait after a connection failure")
    func restCallEndsWait() async throws {
        let (service, clock, pubnub) = scriptedClient { configuration in
            configuration.subscribeReconnectionPolicy = .linear(delay: .seconds(30), maximumJitter: .zero)
        }
        service.push(.failure(TransportError(code: .timedOut, message: "down")))
        service.push(Answer.subscribe("100"))
        pubnub.subscribe(to: ["a"])
        #expect(await eventually { clock.sleeperCount == 1 })
        _ = try await pubnub.pipeline.send(
            ServicePipeline.Call(method: .get, path: "/time/0"), custom: PubNub.RequestConfiguration())
        #expect(await service.waitForSubscribes(3))
        #expect(clock.now.offset == .zero)
        #expect(await eventually { clock.sleeperCount == 0 })
    }

    @Test("after a 5xx the wait is the service's: answered heartbeats and REST calls, no probes, do not shorten it")
    func serverErrorKeepsWait() async throws {
        let (service, clock, pubnub) = scriptedClient { configuration in
            configuration.subscribeReconnectionPolicy = .linear(delay: .seconds(30), maximumJitter: .zero)
            configuration.reconnectionProbeInterval = .seconds(2)
            configuration.heartbeatInterval = .seconds(5)
        }
        service.push(Answer.status(503, ["message": "Service Unavailable"]))
        pubnub.subscribe(to: ["a"])
        // The 30 s wait and the heartbeat's.
        #expect(await eventually { clock.sleeperCount == 2 && service.presenceRequests.count == 1 })
        for second in 1...29 {
            clock.advance(by: .seconds(1))
            if second % 5 == 0 {
                #expect(await service.waitForPresence(1 + second / 5))
                #expect(await eventually { clock.sleeperCount == 2 })
            }
        }
        _ = try await pubnub.pipeline.send(
            ServicePipeline.Call(method: .get, path: "/time/0"), custom: PubNub.RequestConfiguration())
        // Whatever the call's answer put in the loop's inbox was handled (after a 5xx, nothing: the
        // hub queues only what the machine would act on).
        #expect(await eventually { pubnub.realtime.isSettled })
        guard case .reconnecting = await pubnub.realtime.loop.state else {
            Issue.record("the wait was cut short: \(await pubnub.realtime.loop.state)")
            return
        }
        #expect(clock.sleeperCount == 2, "the wait and the heartbeat; no probe")
        #expect(service.subscribeRequests.count == 1)
        #expect(service.timeRequests.count == 1, "only the test's own call: no probe after an error answer")
        service.push(Answer.subscribe("100"))
        clock.advance(by: .seconds(1))
        #expect(await service.waitForSubscribes(2))
    }

    @Test("a heartbeat that times out while a long-poll is held restarts the long-poll from its cursor")
    func heartbeatTimeoutRestartsLongPoll() async throws {
        let (service, clock, pubnub) = scriptedClient { configuration in
            configuration.heartbeatInterval = .seconds(5)
        }
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { status in if status.operation == .subscribe { statuses.append(status) } }
        service.push(Answer.subscribe("100", region: 4))
        pubnub.subscribe(to: ["a"])
        #expect(await service.waitForHeld())
        #expect(await eventually { clock.sleeperCount == 1 && service.presenceRequests.count == 1 })
        service.setPresenceAnswer(.failure(TransportError(code: .timedOut, message: "blackhole")))
        clock.advance(by: .seconds(5))
        #expect(await statuses.waitFor(2))
        #expect(statuses.all.map(\.category) == [.connected, .unexpectedDisconnect])
        #expect(statuses.all.last?.willAutomaticallyRetry == true)
        #expect(await eventually { service.cancelledCount == 1 }, "the suspect long-poll is cancelled")
        service.setPresenceAnswer(Answer.status(200))
        service.push(Answer.subscribe("300", region: 9))
        // The policy's 2 s (no probe: the wait is not longer than the probe interval), and the heartbeat.
        #expect(await eventually { clock.sleeperCount == 2 })
        clock.advance(by: .seconds(2))
        #expect(await service.waitForSubscribes(4))
        let resumed = service.subscribeRequests[3]
        #expect(resumed.queryValue("tt") == "100", "from the cursor of the suspect long-poll: nothing lost")
        #expect(resumed.queryValue("tr") == "9")
        #expect(await statuses.waitFor(3))
        #expect(statuses.all.map(\.category) == [.connected, .unexpectedDisconnect, .reconnected])
    }

    @Test("probes stop when the loop is stopped and when the client is released")
    func probesStop() async {
        let service = FakeService()
        let clock = ManualClock()
        var pubnub: PubNub? = makeClient(service, clock: clock) { configuration in
            configuration.subscribeReconnectionPolicy = .linear(delay: .seconds(30), maximumJitter: .zero)
            configuration.reconnectionProbeInterval = .seconds(2)
        }
        service.setTimeAnswer(.failure(TransportError(code: .cannotConnect, message: "down")))
        service.push(.failure(TransportError(code: .timedOut, message: "down")))
        pubnub?.subscribe(to: ["a"])
        #expect(await eventually { clock.sleeperCount == 2 })
        pubnub?.disconnect()
        #expect(await eventually { clock.sleeperCount == 0 })
        clock.advance(by: .seconds(10))
        #expect(clock.sleeperCount == 0, "no probe is left to fire")
        #expect(service.timeRequests.isEmpty)

        service.push(.failure(TransportError(code: .timedOut, message: "down")))
        pubnub?.reconnect()
        #expect(await eventually { clock.sleeperCount == 2 })
        weak let observed = pubnub
        pubnub = nil
        #expect(observed == nil)
        #expect(await eventually { clock.sleeperCount == 0 })
        clock.advance(by: .seconds(10))
        #expect(clock.sleeperCount == 0, "no probe is left to fire")
        #expect(service.timeRequests.isEmpty)
    }
}
