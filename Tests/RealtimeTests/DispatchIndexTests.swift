import DataSyncTestSupport
import JSONCore
import PubNubCore
import Realtime
import Testing

/// A hub with no loop behind it: subscription changes go to an inbox nobody reads, deliveries run
/// their closures at once.
/// Runs `body` with a hub that delivers at once, and finishes the hub's loop inbox afterwards.
private func withHub(_ body: (RealtimeHub) -> Void) {
    let (_, inbox) = AsyncStream.makeStream(of: SubscribeStateMachine.Event.self)
    defer { inbox.finish() }
    body(RealtimeHub(inbox: inbox, completionContext: .immediate))
}

/// A subscription with default options to `channels` and `groups` on `hub`.
private func subscription(_ channels: [String], groups: [String] = [], on hub: RealtimeHub) -> Subscription {
    Subscription(channels: channels, groups: groups, options: SubscriptionOptions(), hub: hub)
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
        withHub { hub in
            var subscriptions: [Subscription] = []
            let got = Recorder<String>()
            for index in 0..<10_000 {
                let room = subscription(["room-\(index)"], on: hub)
                room.onMessage = { got.append("\(index):\($0.channel)") }
                room.subscribe()
                subscriptions.append(room)
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
    }

    @Test("unsubscribing and re-subscribing keeps the index in step: no delivery after unsubscribe")
    func unsubscribeLeavesIndex() {
        withHub { hub in
            let got = Recorder<Int>()
            let first = subscription(["a"], on: hub)
            let second = subscription(["a", "b.*"], groups: ["g"], on: hub)
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
    }

    @Test("a set's member added while it is subscribed is routed, a removed one is not")
    func setMembership() {
        withHub { hub in
            let setGot = Recorder<String>()
            let a = subscription(["a"], on: hub)
            let b = subscription(["b"], on: hub)
            let set = SubscriptionSet(subscriptions: [a], hub: hub)
            set.onMessage = { setGot.append($0.channel) }
            set.subscribe()
            set.add(b)
            hub.deliver([envelope(channel: "b", 1)])
            set.remove(a)
            hub.deliver([envelope(channel: "a", 2), envelope(channel: "b", 3)])
            #expect(setGot.all == ["b", "b"])
        }
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
