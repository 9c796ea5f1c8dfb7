import DataSyncTestSupport
import JSONCore
import PubNubCore
import Realtime
import Testing

/// A hub with no loop behind it: subscription changes go to an inbox nobody reads, deliveries run
/// their closures at once.
private func makeHub() -> (RealtimeHub, AsyncStream<SubscribeStateMachine.Event>.Continuation) {
    let (_, inbox) = AsyncStream.makeStream(of: SubscribeStateMachine.Event.self)
    return (RealtimeHub(inbox: inbox, completionContext: .immediate), inbox)
}

private func envelope(channel: String, match: String? = nil, _ value: Int) -> SubscribeEnvelope {
    SubscribeEnvelope(
        published: SubscribeCursor(timetoken: 100 + UInt64(value), region: 1), channel: channel,
        subscriptionMatch: match, payload: .int(Int64(value)))
}

@Suite("Delivery looks subscriptions up by name")
struct DispatchIndexTests {
    @Test("a message for one channel visits only the subscriptions of that channel, among 10,000")
    func visitsMatchingOnly() {
        let (hub, inbox) = makeHub()
        defer { inbox.finish() }
        var subscriptions: [Subscription] = []
        let got = Recorder<String>()
        for index in 0..<10_000 {
            let subscription = Subscription(
                channels: ["room-\(index)"], groups: [], options: SubscriptionOptions(), hub: hub)
            subscription.onMessage = { got.append("\(index):\($0.channel)") }
            subscription.subscribe()
            subscriptions.append(subscription)
        }
        let before = hub.routeEntriesVisited
        hub.deliver([envelope(channel: "room-4242", 1)])
        let visited = hub.routeEntriesVisited - before
        #expect(got.all == ["4242:room-4242"])
        // One route for the channel; a walk over every subscription would count 10,000.
        #expect(visited == 1)

        hub.deliver([envelope(channel: "nobody", 2)])
        #expect(hub.routeEntriesVisited - before == 1)
        #expect(got.all.count == 1)
        withExtendedLifetime(subscriptions) {}
    }

    @Test("unsubscribing and re-subscribing keeps the index in step: no delivery after unsubscribe")
    func unsubscribeLeavesIndex() {
        let (hub, inbox) = makeHub()
        defer { inbox.finish() }
        let got = Recorder<Int>()
        let first = Subscription(channels: ["a"], groups: [], options: SubscriptionOptions(), hub: hub)
        let second = Subscription(channels: ["a", "b.*"], groups: ["g"], options: SubscriptionOptions(), hub: hub)
        first.onMessage = { _ in got.append(1) }
        second.onMessage = { _ in got.append(2) }
        first.subscribe()
        second.subscribe()
        hub.deliver([envelope(channel: "a", 1)])
        #expect(got.all.sorted() == [1, 2])
        second.unsubscribe()
        hub.deliver([envelope(channel: "a", 2), envelope(channel: "b.c", 3), envelope(channel: "x", match: "g", 4)])
        #expect(got.all.sorted() == [1, 1, 2])
        first.unsubscribe()
        second.subscribe()
        hub.deliver([envelope(channel: "a", 5), envelope(channel: "b.c", 6), envelope(channel: "x", match: "g", 7)])
        #expect(got.all.sorted() == [1, 1, 2, 2, 2, 2])
    }

    @Test("a set's member added while it is subscribed is routed, a removed one is not")
    func setMembership() {
        let (hub, inbox) = makeHub()
        defer { inbox.finish() }
        let setGot = Recorder<String>()
        let a = Subscription(channels: ["a"], groups: [], options: SubscriptionOptions(), hub: hub)
        let b = Subscription(channels: ["b"], groups: [], options: SubscriptionOptions(), hub: hub)
        let set = SubscriptionSet(subscriptions: [a], hub: hub)
        set.onMessage = { setGot.append($0.channel) }
        set.subscribe()
        set.add(b)
        hub.deliver([envelope(channel: "b", 1)])
        set.remove(a)
        hub.deliver([envelope(channel: "a", 2), envelope(channel: "b", 3)])
        #expect(setGot.all == ["b", "b"])
    }

    /// Names a subscription can hold and names an event can come for: plain, dotted, wildcard
    /// patterns at each depth, presence forms of each, odd edges (a bare `*`, `.*`, a trailing dot,
    /// a pattern with two stars, the presence suffix alone).
    static let names: [String] = {
        let plain = [
            "a", "b", "a.b", "a.b.c", "a.bc", "ab", "a.", "a..b", "*", ".*", "a.*", "a.b.*", "a.*.*", "b.*", "a.b.c.*",
            "-pnpres", "x*", "a*.*", "ä.b", "ä.*",
        ]
        return plain + plain.map { $0 + ChannelName.presenceSuffix }
    }()

    @Test("the index answers what SubscriptionNames.matches answers, for every name and pattern pair")
    func sameAnswerAsMatches() {
        for held in Self.names {
            for asGroup in [false, true] {
                let names =
                    asGroup
                    ? SubscriptionNames(channels: [], groups: [held]) : SubscriptionNames(channels: [held], groups: [])
                let store = ListenerStore()
                var index = RouteIndex()
                index.set([SubscriberRoute(names: names, stores: [store])], for: ObjectIdentifier(store))
                for channel in Self.names {
                    for match in [channel, "g", held] {
                        let expected = names.matches(match: match, channel: channel)
                        let found = !index.stores(forMatch: match, channel: channel).isEmpty
                        #expect(
                            found == expected,
                            "held \(asGroup ? "group" : "channel") \(held), event on \(channel) for \(match)")
                    }
                }
            }
        }
    }
}
