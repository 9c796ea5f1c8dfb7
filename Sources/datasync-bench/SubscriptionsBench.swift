import Foundation
import JSONCore
import PubNubCore
import Realtime
import Transport

#if canImport(Glibc)
    import Glibc
#endif

/// Many subscriptions in one client (issue 34, point 2): the heap each subscription with a
/// listener costs, split into the handle and listener alone and what subscribing adds, and the
/// cost of delivering one message when 10,000 subscriptions are held, against 10.
enum SubscriptionsBench {
    static func run() async throws -> [BenchRow] {
        var rows: [BenchRow] = []
        for count in Bench.scale([1_000, 10_000], smoke: [20]) {
            guard let cost = await memory(count: count) else { break }
            rows.append(
                BenchRow(
                    scenario: "subscriptions: memory per subscription with a listener, \(count) subscribed",
                    unit: "bytes", ours: cost.subscribed, baselineName: "goal (issue 34)", baseline: 2048,
                    higherIsBetter: false))
            rows.append(
                BenchRow(
                    scenario: "subscriptions: of which the handle and its listener, \(count) not subscribed",
                    unit: "bytes", ours: cost.handles, higherIsBetter: false))
        }
        let held = Bench.scale(10_000, smoke: 50)
        let few = dispatchRate(subscriptions: 10)
        let many = dispatchRate(subscriptions: held)
        rows.append(
            BenchRow(
                scenario: "subscriptions: deliver one message, \(held.formatted()) subscriptions held",
                unit: "messages/s",
                ours: many, baselineName: "the same with 10 subscriptions held", baseline: few))
        return rows
    }

    /// Resident bytes after handing freed heap pages back to the system (glibc's `malloc_trim`,
    /// looked up at run time because the `Glibc` module does not declare it), so that the delta
    /// between two readings is what is still allocated rather than what malloc kept; nil off Linux.
    static func heapBytes() -> Int? {
        #if canImport(Glibc)
            typealias Trim = @convention(c) (Int) -> Int32
            if let symbol = dlsym(nil, "malloc_trim") {
                _ = unsafeBitCast(symbol, to: Trim.self)(0)
            }
        #endif
        return Bench.residentBytes()
    }

    struct Cost {
        var handles: Double
        var subscribed: Double
    }

    /// Creates `count` subscriptions to distinct channels, each with an `onMessage`, then subscribes
    /// them one by one; the loop's long-poll is held by a transport that never answers.
    static func memory(count: Int) async -> Cost? {
        let pubnub = PubNub(
            configuration: PubNubConfiguration(
                publishKey: nil, subscribeKey: "sub-c-bench", userId: "bench", origin: "127.0.0.1",
                useSecureConnections: false, transport: HeldTransport()))
        // Let the client's components come up before the first reading.
        for _ in 0..<100 { await Task.yield() }
        guard let heapBefore = heapBytes() else { return nil }
        var subscriptions: [Subscription] = []
        subscriptions.reserveCapacity(count)
        for index in 0..<count {
            let subscription = pubnub.channel("bench-channel-\(index)").subscription()
            subscription.onMessage = { _ in }
            subscriptions.append(subscription)
        }
        guard let heapHandles = heapBytes() else { return nil }
        for subscription in subscriptions { subscription.subscribe() }
        // Let the loop take in every change before measuring.
        for _ in 0..<1_000 { await Task.yield() }
        guard let heapAfter = heapBytes() else { return nil }
        withExtendedLifetime(subscriptions) {}
        pubnub.unsubscribeAll()
        return Cost(
            handles: Double(heapHandles - heapBefore) / Double(count),
            subscribed: Double(heapAfter - heapBefore) / Double(count))
    }

    /// Messages per second through the hub's delivery, each for one channel held by one of
    /// `subscriptions` subscriptions (so the listener work is the same whatever the count).
    static func dispatchRate(subscriptions count: Int) -> Double {
        let (_, inbox) = AsyncStream.makeStream(of: SubscribeStateMachine.Event.self)
        defer { inbox.finish() }
        let hub = RealtimeHub(inbox: inbox, completionContext: .immediate)
        var subscriptions: [Subscription] = []
        var received = 0
        let counter = Counter()
        for index in 0..<count {
            let subscription = Subscription(
                channels: ["room-\(index)"], groups: [], options: SubscriptionOptions(), hub: hub)
            subscription.onMessage = { _ in counter.increment() }
            subscription.subscribe()
            subscriptions.append(subscription)
        }
        let batch = (0..<100).map { index in
            [
                SubscribeEnvelope(
                    published: SubscribeCursor(timetoken: 17_000_000_000_000_000 + UInt64(index), region: 1),
                    channel: "room-\(index % count)", payload: .int(Int64(index)))
            ]
        }
        let rate = Bench.throughput(operations: batch.count) {
            for envelopes in batch { hub.deliver(envelopes) }
        }
        received = counter.value
        withExtendedLifetime(subscriptions) {}
        return received > 0 ? rate : 0
    }
}

/// Counts listener calls from any thread.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// A transport whose requests never finish until cancelled: a subscribe long-poll that is held.
private struct HeldTransport: HTTPClient {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(3600))
        }
        throw CancellationError()
    }
}
