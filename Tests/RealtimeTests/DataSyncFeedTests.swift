import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubBase
import PubNubCore
import Realtime
import Testing
import Transport

/// A DataSync create or update of the user `id` as the service sends it (envelope type 5).
private func userChange(_ id: String, name: String, updatedAt: String, tt: String) -> JSONValue {
    let data: JSONValue = [
        "id": .string(id), "createdAt": "2026-09-28T05:55:55.583771Z", "updatedAt": .string(updatedAt),
        "eTag": .string("e-\(updatedAt)"), "payload": ["name": .string(name)],
    ]
    let metadata: JSONValue = [
        "source": "data-sync", "event": "update", "type": "user", "className": "User", "classLevel": "Global",
        "classVersion": 1,
    ]
    return Answer.message(id, ["version": "1.0", "metadata": metadata, "data": data], tt: tt, type: 5)
}

/// Reads `count` items of a feed, or fewer if it ends first.
private func take(
    _ count: Int, from iterator: inout AsyncStream<PubNubDataSyncFeedItem>.Iterator
) async -> [PubNubDataSyncFeedItem] {
    var items: [PubNubDataSyncFeedItem] = []
    while items.count < count, let item = await iterator.next() { items.append(item) }
    return items
}

/// The feed in words, so a failed expectation shows the whole order.
private func describe(_ items: [PubNubDataSyncFeedItem]) -> [String] {
    items.map { item in
        switch item {
        case .started(let receiving): return "started:\(receiving)"
        case .status(let status, let receiving): return "\(status.category):\(receiving)"
        case .gap(let gap): return "gap:\(gap.reason)"
        case .event(let event): return "event:\(event.objectId ?? "?")"
        }
    }
}

/// A user's own cache built on the public feed only (no package API): it reads once the loop
/// receives and again after a gap, and applies events newer than what it holds. It reports its
/// state after every change, so a test waits on that instead of polling an actor.
private actor UserCache {
    private var names: [String: String] = [:]
    private var versions: [String: Date] = [:]
    private var reads = 0
    private let report: @Sendable (_ reads: Int, _ names: [String: String]) -> Void

    init(report: @escaping @Sendable (_ reads: Int, _ names: [String: String]) -> Void) { self.report = report }

    func run(_ feed: AsyncStream<PubNubDataSyncFeedItem>, read: @Sendable () async -> [String: String]) async {
        var isReceiving = false
        var needsRead = true
        for await item in feed {
            switch item {
            case .started(let receiving), .status(_, let receiving): isReceiving = receiving
            case .gap: needsRead = true
            case .event(let event): apply(event)
            }
            if needsRead, isReceiving {
                needsRead = false
                reads += 1
                names = await read()
                versions = [:]
                report(reads, names)
            }
        }
    }

    private func apply(_ event: PubNubDataSyncEvent) {
        guard let state = event.entity, let name = state.payload?["name"]?.stringValue,
            let updatedAt = state.updatedAt
        else { return }
        if let held = versions[state.id], held >= updatedAt { return }
        versions[state.id] = updatedAt
        names[state.id] = name
        report(reads, names)
    }
}

@Suite("Subscription.dataSyncFeed: one ordered stream for caches of DataSync objects")
struct DataSyncFeedTests {
    @Test("it starts with whether the loop receives, then the loop's statuses and this channel's DataSync events")
    func startsThenFollowsTheLoop() async throws {
        let (service, _, pubnub) = scriptedClient()
        let subscription = pubnub.dataSyncEntity("alice").subscription()
        var feed = subscription.dataSyncFeed().makeAsyncIterator()
        #expect(describe(await take(1, from: &feed)) == ["started:false"])
        #expect(subscription.isSubscribed, "reading the feed subscribes")
        service.push(Answer.subscribe("100"))
        #expect(describe(await take(1, from: &feed)) == ["connected:true"])
        // A plain message and another channel's change are not the feed's business.
        service.push(
            Answer.subscribe(
                "200",
                [
                    Answer.message("alice", "hello", tt: "150"),
                    userChange("alice", name: "Alice", updatedAt: "2026-09-28T06:00:00Z", tt: "160"),
                ]))
        #expect(describe(await take(1, from: &feed)) == ["event:alice"])

        // A second feed on a channel the loop already receives can read at once.
        let twin = pubnub.dataSyncEntity("alice").subscription()
        var second = twin.dataSyncFeed().makeAsyncIterator()
        #expect(describe(await take(1, from: &second)) == ["started:true"])
        pubnub.unsubscribeAll()
    }

    @Test("a gap comes before the status that revealed it")
    func gapBeforeItsStatus() async throws {
        let (service, clock, pubnub) = scriptedClient { $0.restore = false }
        let subscription = pubnub.dataSyncEntity("alice").subscription()
        var feed = subscription.dataSyncFeed().makeAsyncIterator()
        service.push(Answer.subscribe("100"))
        service.push(Answer.subscribe("200"))
        service.push(.failure(TransportError(code: .connectionLost, message: "offline")))
        service.push(Answer.subscribe("900"))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        let items = await take(5, from: &feed)
        #expect(
            describe(items) == [
                "started:false", "connected:true", "unexpectedDisconnect:false", "gap:couldNotResume",
                "reconnected:true",
            ])
        if case .gap(let gap) = items[3] {
            #expect(gap.lastKnownTimetoken == 200)
            #expect(gap.resumedAt == 900)
        }
        pubnub.unsubscribeAll()
    }

    @Test("a full first answer of a catch-up is a tooManyEvents gap in the feed")
    func catchUpOverflow() async throws {
        let (service, clock, pubnub) = scriptedClient { $0.requestMessageCountThreshold = 2 }
        let subscription = pubnub.dataSyncEntity("alice").subscription()
        var feed = subscription.dataSyncFeed().makeAsyncIterator()
        service.push(Answer.subscribe("100"))
        #expect(describe(await take(2, from: &feed)) == ["started:false", "connected:true"])
        #expect(await service.waitForHeld())
        service.push(.failure(TransportError(code: .connectionLost, message: "offline")))
        service.push(Answer.subscribe("100"))
        service.push(
            Answer.subscribe(
                "300",
                [
                    userChange("alice", name: "A1", updatedAt: "2026-09-28T06:00:01Z", tt: "150"),
                    userChange("alice", name: "A2", updatedAt: "2026-09-28T06:00:02Z", tt: "160"),
                ]))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        let items = describe(await take(6, from: &feed))
        #expect(items.prefix(2) == ["unexpectedDisconnect:false", "reconnected:true"])
        #expect(items.filter { $0.hasPrefix("gap") } == ["gap:tooManyEvents"])
        #expect(items.filter { $0.hasPrefix("event") } == ["event:alice", "event:alice"])
        pubnub.unsubscribeAll()
    }

    @Test("unsubscribe ends the feed, and cancelling its reader unsubscribes")
    func endings() async throws {
        let service = FakeService()
        let client = makeClient(service, clock: ManualClock())
        let first = client.dataSyncEntity("alice").subscription()
        var feed = first.dataSyncFeed().makeAsyncIterator()
        #expect(describe(await take(1, from: &feed)) == ["started:false"])
        first.unsubscribe()
        #expect(await take(1, from: &feed).isEmpty, "unsubscribe ends it")

        let second = client.dataSyncEntity("bob").subscription()
        let reader = Task {
            for await _ in second.dataSyncFeed() {}
        }
        #expect(await eventually { second.isSubscribed })
        reader.cancel()
        await reader.value
        #expect(await eventually { !second.isSubscribed }, "nothing else held it")

        client.unsubscribeAll()
    }

    @Test("a feed made after the client was released ends at once")
    func releasedClient() async throws {
        var pubnub: PubNub? = makeClient(FakeService(), clock: ManualClock())
        let subscription = try #require(pubnub).dataSyncEntity("carol").subscription()
        pubnub = nil
        var feed = subscription.dataSyncFeed().makeAsyncIterator()
        #expect(await take(1, from: &feed).isEmpty)
    }

    @Test("a user's cache on the feed reads once receiving, applies newer events, and reads again after a gap")
    func userCache() async throws {
        let (service, clock, pubnub) = scriptedClient { $0.restore = false }
        let server = Locked(["alice": "from read 1"])
        let states = Recorder<String>()
        let cache = UserCache { reads, names in states.append("\(reads): \(names["alice"] ?? "-")") }
        let feed = pubnub.dataSyncEntity("alice").subscription().dataSyncFeed()
        let running = Task { await cache.run(feed) { server.withLock { $0 } } }
        service.push(Answer.subscribe("100"))
        #expect(await states.waitFor(1))
        #expect(await service.waitForHeld())

        // The older of two versions arrives last and changes nothing.
        service.push(
            Answer.subscribe(
                "200",
                [
                    userChange("alice", name: "Alice 2", updatedAt: "2026-09-28T06:00:02Z", tt: "150"),
                    userChange("alice", name: "Alice 1", updatedAt: "2026-09-28T06:00:01Z", tt: "160"),
                ]))
        #expect(await states.waitFor(2))
        #expect(await service.waitForHeld())

        // Restore off: the reconnection starts later than it stopped, so the cache reads again.
        server.withLock { $0 = ["alice": "from read 2"] }
        service.push(.failure(TransportError(code: .connectionLost, message: "offline")))
        service.push(Answer.subscribe("900"))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        #expect(await states.waitFor(3))
        #expect(states.all == ["1: from read 1", "1: Alice 2", "2: from read 2"])
        pubnub.unsubscribeAll()
        await running.value
    }
}
