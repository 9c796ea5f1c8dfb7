import DataSyncTestSupport
import JSONCore
import PubNubCore
import Realtime
import Testing
import Transport

private final class Listener: PubNubEventsListener {
    let messages = Recorder<PubNubMessage>()
    let statuses = Recorder<PubNubStatus>()
    let raw = Recorder<PubNubRawEvent>()
    func didReceive(message: PubNubMessage) { messages.append(message) }
    func didReceive(status: PubNubStatus) { statuses.append(status) }
    func didReceive(unknownEvent: PubNubRawEvent) { raw.append(unknownEvent) }
}

@Suite("Subscriptions, sets, entities, listeners and streams")
struct SubscriptionTests {
    @Test("events reach only the subscriptions whose entity matched b ?? c: channel, group, wildcard, presence")
    func fanOut() async {
        let (service, _, pubnub) = scriptedClient()
        let channel = pubnub.channel("a").subscription()
        let group = pubnub.channelGroup("g").subscription()
        let wildcard = pubnub.channel("news.*").subscription()
        let presence = pubnub.channel("a").subscription(options: ReceivePresenceEvents())
        let got = Recorder<String>()
        channel.onMessage = { got.append("channel:\($0.channel)") }
        group.onMessage = { got.append("group:\($0.channel)") }
        wildcard.onMessage = { got.append("wildcard:\($0.channel)") }
        presence.onPresence = { got.append("presence:\($0.channel)") }
        presence.onMessage = { got.append("presence-sub:\($0.channel)") }
        let all = Recorder<PubNubMessage>()
        pubnub.onMessage = { all.append($0) }
        service.push(Answer.subscribe("100"))
        service.push(
            Answer.subscribe(
                "200",
                [
                    Answer.message("a", 1), Answer.message("m", 2, match: "g"),
                    Answer.message("news.x", 3, match: "news.*"),
                    Answer.message("news.y", 4), Answer.message("z", 5),
                    [
                        "a": "1", "f": 0, "p": ["t": "9", "r": 1], "k": "demo", "c": "a-pnpres", "b": "a-pnpres",
                        "d": ["action": "join", "uuid": "u2", "timestamp": 1, "occupancy": 2],
                    ],
                ]))
        for subscription in [channel, group, wildcard, presence] { subscription.subscribe() }
        #expect(await all.waitFor(5))
        #expect(await got.waitFor(6))
        #expect(
            Set(got.all) == [
                "channel:a", "presence-sub:a", "group:m", "wildcard:news.x", "wildcard:news.y", "presence:a",
            ])
        #expect(got.all.count == 6)
        #expect(!got.all.contains { $0.hasSuffix(":z") })
        #expect(service.subscribeRequests.last?.path == "/v2/subscribe/demo/a,a-pnpres,news.%2A/0")
    }

    @Test("a subscription set delivers once per event to its listeners, and to the matching members")
    func setDelivery() async {
        let (service, _, pubnub) = scriptedClient()
        let set = pubnub.subscription(entities: [
            pubnub.channel("a"), pubnub.channelGroup("g"), pubnub.userMetadata("u1"),
        ])
        let batches = Recorder<[PubNubEvent]>()
        set.onEvents = { batches.append($0) }
        let member = Recorder<PubNubMessage>()
        set.subscriptions[0].onMessage = { member.append($0) }
        service.push(Answer.subscribe("100"))
        service.push(Answer.subscribe("200", [Answer.message("a", 1), Answer.message("x", 2, match: "g")]))
        set.subscribe()
        #expect(await batches.waitFor(1))
        #expect(batches.all.first?.map(\.channel) == ["a", "x"])
        #expect(member.all.map(\.channel) == ["a"])
        #expect(service.subscribeRequests[0].path == "/v2/subscribe/demo/a,u1/0")
        #expect(set.isSubscribed)
        set.remove(set.subscriptions[2])
        #expect(pubnub.subscribedChannels == ["a"])
        set.add(pubnub.channelMetadata("c9").subscription())
        #expect(pubnub.subscribedChannels == ["a", "c9"])
        set.unsubscribe()
        #expect(pubnub.subscribedChannels.isEmpty)
        #expect(!set.isSubscribed)
    }

    @Test("unsubscribing a subscription leaves only what no one else holds")
    func sharedNames() async {
        let (service, _, pubnub) = scriptedClient()
        let first = pubnub.channel("a").subscription()
        let second = pubnub.channel("a").subscription()
        service.push(Answer.subscribe("100"))
        first.subscribe()
        second.subscribe()
        #expect(await service.waitForHeld())
        first.unsubscribe()
        #expect(pubnub.subscribedChannels == ["a"])
        second.unsubscribe()
        #expect(pubnub.subscribedChannels.isEmpty)
        #expect(await service.waitForPresence(1))
        #expect(service.presenceRequests[0].path == "/v2/presence/sub-key/demo/channel/a/leave")
        #expect(service.presenceRequests[0].queryList == ["pnsdk=\(PubNub.pnsdk)", "uuid=me"])
    }

    @Test("a subscription's stream keeps it subscribed; cancelling the stream unsubscribes it")
    func streamHold() async {
        let (service, _, pubnub) = scriptedClient()
        let subscription = pubnub.channel("a").subscription()
        service.push(Answer.subscribe("100"))
        service.push(Answer.subscribe("200", [Answer.message("a", "one"), Answer.message("a", "two")]))
        let stream = subscription.messages()
        #expect(subscription.isSubscribed)
        let payloads = Recorder<JSONValue>()
        let reader = Task {
            for await message in stream { payloads.append(message.payload) }
        }
        #expect(await payloads.waitFor(2))
        #expect(payloads.all == ["one", "two"])
        reader.cancel()
        await reader.value
        #expect(await eventually { !subscription.isSubscribed })
        #expect(pubnub.subscribedChannels.isEmpty)
    }

    @Test("unsubscribe ends a subscription's streams")
    func unsubscribeEndsStreams() async {
        let (_, _, pubnub) = scriptedClient()
        let subscription = pubnub.channel("a").subscription()
        let stream = subscription.events()
        let reader = Task { () -> Int in
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        subscription.unsubscribe()
        #expect(await reader.value == 0)
    }

    @Test("client streams: statuses and events, until the client is released")
    func clientStreams() async {
        let service = FakeService()
        var pubnub: PubNub? = makeClient(service, clock: ManualClock())
        let statuses = pubnub?.statuses()
        let events = pubnub?.events()
        service.push(Answer.subscribe("100"))
        service.push(Answer.subscribe("200", [Answer.message("a", 1, type: 42)]))
        pubnub?.subscribe(to: ["a"])
        guard let statuses, let events else { return }
        var statusIterator = statuses.makeAsyncIterator()
        #expect(await statusIterator.next()?.category == .connected)
        var eventIterator = events.makeAsyncIterator()
        guard case .unknown(let raw)? = await eventIterator.next() else {
            Issue.record("an unknown type must arrive raw")
            return
        }
        #expect(raw.type == 42)
        pubnub = nil
        #expect(await eventIterator.next() == nil, "releasing the client finishes its streams")
    }

    @Test("a listener object is held until removed and gets events and statuses")
    func listenerObject() async {
        let (service, _, pubnub) = scriptedClient()
        pubnub.addListener(Listener())
        let listener = Listener()
        pubnub.addListener(listener)
        pubnub.addListener(listener)
        service.push(Answer.subscribe("100"))
        service.push(Answer.subscribe("200", [Answer.message("a", 1), Answer.message("a", 2, type: 77)]))
        pubnub.subscribe(to: ["a"])
        #expect(await listener.messages.waitFor(1))
        #expect(await listener.raw.waitFor(1))
        #expect(listener.messages.all.count == 1, "added twice, called once")
        #expect(listener.statuses.all.first?.category == .connected)
        pubnub.removeListener(listener)
        pubnub.unsubscribeAll()
        #expect(await eventually { pubnub.subscribedChannels.isEmpty })
        #expect(listener.statuses.all.count == 1)
    }

    @Test("closures run in the configured completion context")
    func completionContext() async {
        let service = FakeService()
        let scheduled = Recorder<Int>()
        let pubnub = makeClient(service, clock: ManualClock()) { configuration in
            configuration.completionContext = PubNub.CompletionContext { work in
                scheduled.append(1)
                work()
            }
        }
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        service.push(Answer.subscribe("100"))
        pubnub.subscribe(to: ["a"])
        #expect(await statuses.waitFor(1))
        #expect(scheduled.all.count == 1)
    }

    @Test("subscribe(with:) on a subscription restores from the timetoken")
    func subscriptionTimetoken() async {
        let (service, _, pubnub) = scriptedClient()
        service.push(Answer.subscribe("900", region: 6))
        pubnub.channel("a").subscription().subscribe(with: 123)
        #expect(await service.waitForSubscribes(2))
        #expect(service.subscribeRequests[1].queryValue("tt") == "123")
        #expect(service.subscribeRequests[1].queryValue("tr") == "6")
    }

    @Test("unsubscribeAll ends every subscription and forgets the cursor")
    func unsubscribeAllForgets() async {
        let (service, _, pubnub) = scriptedClient()
        let subscription = pubnub.channel("s").subscription()
        subscription.subscribe()
        pubnub.subscribe(to: ["a"])
        service.push(Answer.subscribe("100"))
        #expect(await service.waitForHeld())
        pubnub.unsubscribeAll()
        #expect(!subscription.isSubscribed)
        #expect(pubnub.subscribedChannels.isEmpty)
        service.push(Answer.subscribe("500"))
        pubnub.subscribe(to: ["b"])
        #expect(await eventually { service.subscribeRequests.contains { $0.path.contains("/b/") } })
        #expect(service.subscribeRequests.last?.queryValue("tt") == "0")
    }
}

@Suite("Presence: heartbeats and leave")
struct PresenceTests {
    @Test("heartbeats go out on subscribe and then every interval, with state; presence channels excluded")
    func heartbeats() async {
        let (service, clock, pubnub) = scriptedClient { $0.heartbeatInterval = .seconds(10) }
        service.push(Answer.subscribe("100"))
        pubnub.subscribe(to: ["a"], and: ["g"], withPresence: true, clientState: ["a": ["k": 1]])
        #expect(await service.waitForPresence(1))
        let first = service.presenceRequests[0]
        #expect(first.path == "/v2/presence/sub-key/demo/channel/a/heartbeat")
        #expect(
            first.queryList == [
                "channel-group=g", "heartbeat=300", "pnsdk=\(PubNub.pnsdk)", #"state={"a":{"k":1}}"#, "uuid=me",
            ])
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(10))
        #expect(await service.waitForPresence(2))
        #expect(service.presenceRequests[1].path == first.path)
    }

    @Test("the default interval derives from the presence timeout")
    func defaultInterval() {
        var configuration = PubNubConfiguration(publishKey: nil, subscribeKey: "s", userId: "u")
        #expect(configuration.effectiveHeartbeatInterval == .seconds(149))
        configuration.presenceTimeout = .seconds(60)
        #expect(configuration.effectiveHeartbeatInterval == .seconds(29))
        configuration.presenceTimeout = .seconds(5)
        #expect(configuration.effectivePresenceTimeout == .seconds(20))
    }

    @Test("a failed heartbeat reports a heartbeat status")
    func heartbeatFailure() async {
        let service = FakeService()
        service.setPresenceAnswer(Answer.status(403, ["message": "Forbidden"]))
        let pubnub = makeClient(service, clock: ManualClock()) { $0.heartbeatInterval = .seconds(10) }
        let statuses = Recorder<PubNubStatus>()
        pubnub.onStatus = { statuses.append($0) }
        pubnub.subscribe(to: ["a"])
        #expect(await eventually { statuses.all.contains { $0.operation == .heartbeat } })
        let status = statuses.all.first { $0.operation == .heartbeat }
        #expect(status?.category == .accessDenied)
        #expect(status?.isError == true)
    }

    @Test("unsubscribe sends leave for channels and groups, never for presence names; suppressLeaveEvents sends none")
    func leave() async {
        let (service, _, pubnub) = scriptedClient()
        service.push(Answer.subscribe("100"))
        pubnub.subscribe(to: ["a", "b"], and: ["g"], withPresence: true)
        #expect(await service.waitForHeld())
        pubnub.unsubscribe(from: ["a"], and: ["g"], withPresence: true)
        #expect(await service.waitForPresence(1))
        #expect(service.presenceRequests[0].path == "/v2/presence/sub-key/demo/channel/a/leave")
        #expect(service.presenceRequests[0].queryValue("channel-group") == "g")
        #expect(pubnub.subscribedChannels == ["b", "b-pnpres"])
        pubnub.unsubscribeFromPresence(channels: ["b"])
        #expect(pubnub.subscribedChannels == ["b"])

        let quiet = FakeService()
        let silent = makeClient(quiet, clock: ManualClock()) { $0.suppressLeaveEvents = true }
        quiet.push(Answer.subscribe("100"))
        silent.subscribe(to: ["a"])
        #expect(await quiet.waitForHeld())
        silent.unsubscribe(from: ["a"])
        #expect(await eventually { quiet.cancelledCount == 1 })
        #expect(quiet.presenceRequests.isEmpty)
    }

    @Test("subscribeToPresence subscribes to -pnpres channels only")
    func presenceOnly() async {
        let (service, _, pubnub) = scriptedClient()
        pubnub.subscribeToPresence(channels: ["room"])
        #expect(await service.waitForSubscribes(1))
        #expect(service.subscribeRequests[0].path == "/v2/subscribe/demo/room-pnpres/0")
    }
}
