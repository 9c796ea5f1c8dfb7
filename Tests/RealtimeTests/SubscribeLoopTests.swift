import DataSyncTestSupport
import JSONCore
import PubNubCore
import Realtime
import Testing
import Transport

@Suite("Subscribe loop over a scripted service, on a manual clock")
struct SubscribeLoopTests {
    @Test("handshake and receive requests carry the exact path and sorted query, then auth")
    func exactRequests() async {
        let (service, _, pubnub) = scriptedClient(token: "tok") { configuration in
            configuration.filterExpression = "uuid != 'me'"
        }
        service.push(Answer.subscribe("16873352451141050", region: 42))
        pubnub.subscribe(to: ["b", "a.*"], and: ["g"], withPresence: true, clientState: ["b": ["mood": "ok"]])
        #expect(await service.waitForSubscribes(2))
        let handshake = service.subscribeRequests[0]
        #expect(handshake.method == .get)
        #expect(handshake.path == "/v2/subscribe/demo/a.%2A,a.%2A-pnpres,b,b-pnpres/0")
        #expect(
            handshake.queryList == [
                "channel-group=g,g-pnpres", "filter-expr=uuid != 'me'", "heartbeat=300", "pnsdk=\(PubNub.pnsdk)",
                #"state={"b":{"mood":"ok"}}"#, "tt=0", "uuid=me", "auth=tok",
            ])
        #expect(handshake.timeout == .seconds(10), "a handshake is answered at once: handshakeTimeout")
        let receive = service.subscribeRequests[1]
        #expect(
            receive.queryList == [
                "channel-group=g,g-pnpres", "filter-expr=uuid != 'me'", "heartbeat=300", "pnsdk=\(PubNub.pnsdk)",
                "tr=42", "tt=16873352451141050", "uuid=me", "auth=tok",
            ])
        #expect(pubnub.subscribedChannels == ["a.*", "a.*-pnpres", "b", "b-pnpres"])
        #expect(pubnub.subscribedChannelGroups == ["g", "g-pnpres"])
    }

    @Test("a channel group alone subscribes on the , path")
    func groupsOnly() async {
        let (service, _, pubnub) = scriptedClient()
        pubnub.subscribe(to: [], and: ["cg1", "cg2"])
        #expect(await service.waitForSubscribes(1))
        #expect(service.subscribeRequests[0].path == "/v2/subscribe/demo/,/0")
        #expect(service.subscribeRequests[0].queryValue("channel-group") == "cg1,cg2")
    }

    @Test("messages reach the client's listeners; the cursor moves on; adding a channel keeps the cursor")
    func receiveAndChange() async {
        let (service, _, pubnub) = scriptedClient()
        let messages = Recorder<PubNubMessage>()
        pubnub.onMessage = { messages.append($0) }
        service.push(Answer.subscribe("100", region: 7))
        service.push(Answer.subscribe("200", region: 7, [Answer.message("a", "hello")]))
        pubnub.subscribe(to: ["a"])
        #expect(await messages.waitFor(1))
        #expect(messages.all.first?.payload == "hello")
        #expect(await service.waitForHeld())
        pubnub.subscribe(to: ["b"])
        #expect(await service.waitForSubscribes(4))
        let changed = service.subscribeRequests[3]
        #expect(changed.path == "/v2/subscribe/demo/a,b/0")
        #expect(changed.queryValue("tt") == "200")
        #expect(changed.queryValue("tr") == "7")
        #expect(await eventually { service.cancelledCount == 1 }, "the superseded long-poll is cancelled")
    }

    @Test("a 503 with Retry-After waits that long on the clock, then re-handshakes and restores the cursor")
    func retryAfterReconnect() async {
        let (service, clock, pubnub) = scriptedClient()
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        service.push(Answer.subscribe("100", region: 7))
        service.push(Answer.status(503, ["message": "Service Unavailable"], headers: ["Retry-After": "7"]))
        service.push(Answer.subscribe("900", region: 3))
        pubnub.subscribe(to: ["a"])
        #expect(await statuses.waitFor(2))
        #expect(statuses.all.map(\.category) == [.connected, .unexpectedDisconnect])
        #expect(statuses.all[1].willAutomaticallyRetry)
        #expect(statuses.all[1].statusCode == 503)
        await clock.waitForSleepers(1)
        #expect(clock.requestedSleeps == [.seconds(7)])
        clock.advance(by: .seconds(7))
        #expect(await service.waitForSubscribes(4))
        let requests = service.subscribeRequests
        #expect(requests[2].queryValue("tt") == "0")
        #expect(requests[3].queryValue("tt") == "100", "restore: the stored timetoken")
        #expect(requests[3].queryValue("tr") == "3", "with the region of the new handshake")
        #expect(await statuses.waitFor(3))
        #expect(statuses.all[2].category == .reconnected)
    }

    @Test("timeouts back off exponentially on the clock: 2 s, 4 s, 8 s")
    func exponentialBackoff() async {
        let (service, clock, pubnub) = scriptedClient()
        // A refused connection takes the short schedule (RecoveryTests); a timeout keeps the policy's.
        for _ in 0..<3 { service.push(.failure(TransportError(code: .timedOut, message: "slow"))) }
        service.push(Answer.subscribe("5"))
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        pubnub.subscribe(to: ["a"])
        for step in 1...3 {
            await clock.waitForSleepers(1)
            #expect(clock.requestedSleeps.count == step)
            clock.advance(by: clock.requestedSleeps[step - 1])
        }
        #expect(clock.requestedSleeps == [.seconds(2), .seconds(4), .seconds(8)])
        #expect(await statuses.waitFor(4))
        #expect(statuses.all.map(\.category) == [.timeout, .timeout, .timeout, .reconnected])
    }

    @Test("cancelAutomaticRetry from a status stops the loop with disconnected")
    func cancelFromStatus() async {
        let (service, clock, pubnub) = scriptedClient()
        service.push(.failure(TransportError(code: .timedOut, message: "slow")))
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { status in
            statuses.append(status)
            if status.willAutomaticallyRetry { status.cancelAutomaticRetry() }
        }
        pubnub.subscribe(to: ["a"])
        #expect(await statuses.waitFor(2))
        #expect(statuses.all.map(\.category) == [.timeout, .disconnected])
        #expect(await eventually { clock.sleeperCount == 0 })
        #expect(service.subscribeRequests.count == 1)
    }

    @Test("a 403 stops with accessDenied naming the channels; set(token:) resumes with the new token")
    func accessDeniedThenNewToken() async {
        let (service, _, pubnub) = scriptedClient(token: "old")
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        service.push(
            Answer.status(
                403,
                [
                    "message": "Forbidden", "payload": ["channels": ["a"], "channel-groups": [":g"]], "error": true,
                    "service": "Access Manager", "status": 403,
                ]))
        pubnub.subscribe(to: ["a"], and: ["g"])
        #expect(await statuses.waitFor(1))
        let denied = statuses.all[0]
        #expect(denied.category == .accessDenied)
        #expect(denied.isError)
        #expect(!denied.willAutomaticallyRetry)
        #expect(
            denied.errorData == PubNubStatus.ErrorData(channels: ["a"], channelGroups: ["g"], information: "Forbidden"))
        #expect(!denied.description.contains("old"))
        service.push(Answer.subscribe("10"))
        pubnub.set(token: "new")
        #expect(await service.waitForSubscribes(3))
        #expect(service.subscribeRequests[1].queryValue("auth") == "new")
        #expect(await statuses.waitFor(2))
        #expect(statuses.all[1].category == .connected)
    }

    @Test(
        "answers that stop the loop, by category",
        arguments: [
            (414, nil, PubNubStatus.Category.requestURITooLong), (400, nil, .badRequest),
            (481, "a == 1", .malformedFilterExpression), (400, "((", .malformedFilterExpression),
        ] as [(Int, String?, PubNubStatus.Category)])
    func fatalAnswers(status: Int, filter: String?, category: PubNubStatus.Category) async {
        let (service, clock, pubnub) = scriptedClient { $0.filterExpression = filter }
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        service.push(Answer.status(status, ["message": "nope"]))
        pubnub.subscribe(to: ["a"])
        #expect(await statuses.waitFor(1))
        #expect(statuses.all.first?.category == category)
        #expect(statuses.all.first?.statusCode == status)
        #expect(clock.sleeperCount == 0)
        #expect(service.subscribeRequests.count == 1)
    }

    @Test("an invalid subscribe key (400 about the key) is badRequest even with a filter")
    func keyError() {
        let failure = SubscribeLoop.failure(
            for: Answer.status(400, ["message": "Invalid Subscribe Key"]), filterExpression: "a == 1")
        #expect(failure.category == .badRequest)
    }

    @Test("transport errors map to timeout, networkIssues and tlsConnectionFailed, all retried")
    func transportCategories() {
        #expect(SubscribeLoop.failure(for: TransportError(code: .timedOut, message: "")).category == .timeout)
        #expect(
            SubscribeLoop.failure(for: TransportError(code: .connectionLost, message: "")).category == .networkIssues)
        #expect(SubscribeLoop.failure(for: TransportError(code: .tls, message: "")).category == .tlsConnectionFailed)
        #expect(SubscribeLoop.failure(for: TransportError(code: .tls, message: "")).isRetryable)
    }

    @Test("a malformed 200 body with a readable cursor is asked for again once, then skipped from its cursor")
    func malformedSalvaged() async {
        let (service, _, pubnub) = scriptedClient()
        let statuses = Recorder<PubNubStatus>()
        let messages = Recorder<PubNubMessage>()
        pubnub.onStatus = { statuses.append($0) }
        pubnub.onMessage = { messages.append($0) }
        let truncated = HTTPResponse(status: 200, body: Array(#"{"t":{"t":"150","r":1},"m":[{"a":"#.utf8))
        service.push(Answer.subscribe("100"))
        service.push(truncated)
        service.push(Answer.subscribe("150", [Answer.message("a", 1, tt: "150")]))
        pubnub.subscribe(to: ["a"])
        // The messages of the unreadable answer are asked for again from the cursor it was sent with.
        #expect(await service.waitForSubscribes(4))
        #expect(service.subscribeRequests[2].queryValue("tt") == "100")
        #expect(service.subscribeRequests[3].queryValue("tt") == "150")
        #expect(await messages.waitFor(1))
        #expect(messages.all.map(\.payload) == [1])
        #expect(statuses.all.map(\.category) == [.connected, .malformedResponse])
        // Two unreadable answers in a row from one cursor: the loop moves on to the salvaged cursor.
        service.push(truncated)
        service.push(HTTPResponse(status: 200, body: Array(#"{"t":{"t":"190","r":1},"m":[{"a":"#.utf8)))
        #expect(await service.waitForSubscribes(6))
        #expect(service.subscribeRequests[4].queryValue("tt") == "150")
        #expect(service.subscribeRequests[5].queryValue("tt") == "190")
        #expect(await statuses.waitFor(4))
        #expect(
            statuses.all.map(\.category) == [.connected, .malformedResponse, .malformedResponse, .malformedResponse])
    }

    @Test("requestMessageCountExceeded fires when one answer holds the threshold")
    func messageCount() async {
        let (service, _, pubnub) = scriptedClient { $0.requestMessageCountThreshold = 2 }
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        service.push(Answer.subscribe("100"))
        service.push(Answer.subscribe("200", [Answer.message("a", 1), Answer.message("a", 2)]))
        pubnub.subscribe(to: ["a"])
        #expect(await statuses.waitFor(2))
        #expect(statuses.all[1].category == .requestMessageCountExceeded)
    }

    @Test("releasing the client cancels the held long-poll and the loop does not keep the client alive")
    func releaseCancelsLongPoll() async {
        let service = FakeService()
        var pubnub: PubNub? = makeClient(service, clock: ManualClock())
        weak let observed = pubnub
        service.push(Answer.subscribe("100"))
        pubnub?.subscribe(to: ["a"])
        #expect(await service.waitForHeld())
        pubnub = nil
        #expect(observed == nil)
        #expect(await eventually { service.cancelledCount == 1 })
        #expect(service.heldCount == 0)
    }

    @Test("disconnect stops the long-poll; reconnect catches up from the last timetoken")
    func disconnectReconnect() async {
        let (service, _, pubnub) = scriptedClient()
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        service.push(Answer.subscribe("100", region: 4))
        pubnub.subscribe(to: ["a"])
        #expect(await service.waitForHeld())
        pubnub.disconnect()
        #expect(await statuses.waitFor(2))
        #expect(statuses.all[1].category == .disconnected)
        #expect(await eventually { service.cancelledCount == 1 })
        service.push(Answer.subscribe("300", region: 5))
        pubnub.reconnect()
        #expect(await service.waitForSubscribes(4))
        #expect(service.subscribeRequests[3].queryValue("tt") == "100")
        #expect(service.subscribeRequests[3].queryValue("tr") == "5")
    }

    @Test("unsubscribing during the reconnection delay cancels the timer; nothing more is sent")
    func unsubscribeDuringBackoff() async {
        let (service, clock, pubnub) = scriptedClient { $0.suppressLeaveEvents = true }
        service.push(.failure(TransportError(code: .cannotConnect, message: "down")))
        pubnub.subscribe(to: ["a"])
        await clock.waitForSleepers(1)
        pubnub.unsubscribeAll()
        #expect(await eventually { clock.sleeperCount == 0 && pubnub.realtime.isSettled })
        #expect(await pubnub.realtime.loop.state == .stopped)
        clock.advance(by: .seconds(60))
        #expect(clock.sleeperCount == 0, "no timer is left to fire")
        #expect(service.subscribeRequests.count == 1)
    }

    @Test("a channel change during the reconnection delay is used by the next handshake")
    func channelChangeDuringReconnect() async {
        let (service, clock, pubnub) = scriptedClient()
        service.push(.failure(TransportError(code: .cannotConnect, message: "down")))
        pubnub.subscribe(to: ["a"])
        await clock.waitForSleepers(1)
        pubnub.subscribe(to: ["b"])
        #expect(await eventually { pubnub.realtime.isSettled })
        guard case .reconnecting = await pubnub.realtime.loop.state else {
            Issue.record("the delay is skipped: \(await pubnub.realtime.loop.state)")
            return
        }
        #expect(service.subscribeRequests.count == 1, "the delay is not skipped")
        clock.advance(by: .seconds(2))
        #expect(await service.waitForSubscribes(2))
        #expect(service.subscribeRequests[1].path == "/v2/subscribe/demo/a,b/0")
    }
}
