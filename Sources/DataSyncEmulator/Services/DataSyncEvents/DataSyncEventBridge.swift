import EmulatorHTTP
public import JSONCore
import PubNubBase

/// A DataSync real-time event as the emulator put it on the pub/sub bus.
public struct PublishedDataSyncEvent: Sendable, Hashable {
    /// The change-feed sequence number of the change it reports.
    public var changeSequence: UInt64
    /// The keyset it was published in.
    public var subscribeKey: String
    /// The channel it was published on (`<id>` or `__<projection>__<id>`).
    public var channel: String
    /// Its timetoken on the bus.
    public var timetoken: UInt64
    /// `d`: `{"version","metadata","data"}`.
    public var payload: JSONValue
}

/// Feeds DataSync changes to the pub/sub bus: a change-feed write subscriber that turns each
/// write's changes into `e: 5` envelopes and publishes them, one write at a time, in commit order.
///
/// ``receive(_:)`` runs under the DataSync service's lock while the write commits, so it only builds
/// the envelopes and queues them (a lock and a stream, no waiting). One task drains the queue in
/// order and publishes each write's envelopes in a single step on the bus, which draws their
/// timetokens. ``waitUntilPublished()`` returns once everything queued before the call is on the
/// bus: the DataSync route awaits it before its answer leaves (``DataSyncEventGate``).
final class DataSyncEventBridge: Sendable {
    private struct Batch: Sendable {
        var number: UInt64
        var changes: [UInt64]
        var envelopes: [ServerEnvelope]
    }

    private let progress = Progress()
    private let queue: AsyncStream<Batch>.Continuation

    convenience init(bus: PubSubBus) {
        self.init { envelopes in await bus.publish(envelopes) }
    }

    /// A bridge that hands each write's envelopes to `publish`, which returns their timetokens
    /// (the bus, or in tests a publisher that can be held).
    init(publish: @escaping @Sendable ([ServerEnvelope]) async -> [UInt64]) {
        let (stream, continuation) = AsyncStream<Batch>.makeStream(bufferingPolicy: .unbounded)
        queue = continuation
        let progress = progress
        // A write's answer waits for this task (DataSyncEventGate): it runs on the server's
        // threads, not on the cooperative pool the caller may keep busy.
        _ = detachedHandlerTask {
            for await batch in stream {
                let timetokens = await publish(batch.envelopes)
                var records: [PublishedDataSyncEvent] = []
                for (index, envelope) in batch.envelopes.enumerated() where index < timetokens.count {
                    records.append(
                        PublishedDataSyncEvent(
                            changeSequence: batch.changes[index], subscribeKey: envelope.subscribeKey,
                            channel: envelope.channel, timetoken: timetokens[index], payload: envelope.payload))
                }
                progress.published(batch.number, records)
            }
        }
    }

    deinit { queue.finish() }

    /// The change-feed write subscriber: queues the write's envelopes (nothing when it has none).
    func receive(_ changes: [ChangeEvent]) {
        var sequences: [UInt64] = []
        var envelopes: [ServerEnvelope] = []
        for change in changes {
            let made = DataSyncEventEnvelopes.envelopes(for: change)
            envelopes += made
            sequences += Array(repeating: change.sequence, count: made.count)
        }
        guard !envelopes.isEmpty else { return }
        // Numbered and queued under one lock, so batches are drained in the order they are numbered.
        progress.post { number in
            queue.yield(Batch(number: number, changes: sequences, envelopes: envelopes))
        }
    }

    /// Whether every write queued so far is on the bus (nothing to wait for).
    var isCaughtUp: Bool { progress.isCaughtUp }

    /// Returns once every write queued before this call is on the bus.
    func waitUntilPublished() async {
        await progress.waitForPublished()
    }

    /// The last published events (at most ``Progress/recordCapacity``) whose change sequence is
    /// above `sequence`, in publish order.
    func records(afterChange sequence: UInt64) -> [PublishedDataSyncEvent] {
        progress.records.filter { $0.changeSequence > sequence }
    }

    /// Every event published from now on.
    func stream() -> AsyncStream<PublishedDataSyncEvent> { progress.stream() }
}

extension DataSyncEventBridge {
    /// What has been queued and published, the recent records and the waiters, behind one lock.
    final class Progress: Sendable {
        static let recordCapacity = 10_000

        private struct State {
            var posted: UInt64 = 0
            var published: UInt64 = 0
            var waiters: [(target: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
            var records: [PublishedDataSyncEvent] = []
            var streams: [Int: AsyncStream<PublishedDataSyncEvent>.Continuation] = [:]
            var nextStream = 0
        }

        private let state = Locked(State())

        var records: [PublishedDataSyncEvent] { state.withLock { $0.records } }

        var isCaughtUp: Bool { state.withLock { $0.published >= $0.posted } }

        /// Numbers the next batch and runs `enqueue` with its number under the lock.
        func post(_ enqueue: (UInt64) -> Void) {
            state.withLock { state in
                state.posted += 1
                enqueue(state.posted)
            }
        }

        func published(_ number: UInt64, _ records: [PublishedDataSyncEvent]) {
            let (ready, streams):
                ([CheckedContinuation<Void, Never>], [AsyncStream<PublishedDataSyncEvent>.Continuation]) =
                    state.withLock { state in
                        state.published = max(state.published, number)
                        state.records += records
                        if state.records.count > Self.recordCapacity + Self.recordCapacity / 4 {
                            state.records.removeFirst(state.records.count - Self.recordCapacity)
                        }
                        let published = state.published
                        let ready = state.waiters.filter { $0.target <= published }.map(\.continuation)
                        state.waiters.removeAll { $0.target <= published }
                        return (ready, Array(state.streams.values))
                    }
            for stream in streams {
                for record in records { stream.yield(record) }
            }
            for continuation in ready { continuation.resume() }
        }

        func waitForPublished() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done: Bool = state.withLock { state in
                    if state.published >= state.posted { return true }
                    state.waiters.append((target: state.posted, continuation: continuation))
                    return false
                }
                if done { continuation.resume() }
            }
        }

        func stream() -> AsyncStream<PublishedDataSyncEvent> {
            let (stream, continuation) = AsyncStream<PublishedDataSyncEvent>.makeStream(bufferingPolicy: .unbounded)
            let id: Int = state.withLock { state in
                state.nextStream += 1
                state.streams[state.nextStream] = continuation
                return state.nextStream
            }
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
            }
            return stream
        }
    }
}

/// The DataSync routes with real-time events: answers through the ``DataSyncService`` and lets the
/// answer leave only once the write's events are on the bus, so a client that writes, then
/// subscribes from a timetoken drawn before its write, catches them up.
struct DataSyncEventGate: EmulatorService {
    let dataSync: DataSyncService
    let bridge: DataSyncEventBridge

    func claims(_ request: ServerRequest) -> Bool { dataSync.claims(request) }

    func respond(to request: ServerRequest) async -> ServerResponse {
        let response = await dataSync.respond(to: request)
        await bridge.waitUntilPublished()
        return response
    }

    func respond(to request: ServerRequest, scope: ListScope) async -> ServerResponse {
        let response = await dataSync.respond(to: request, scope: scope)
        await bridge.waitUntilPublished()
        return response
    }

    func respondImmediately(to request: ServerRequest, scope: ListScope) -> ServerResponse? {
        guard let response = dataSync.respondImmediately(to: request, scope: scope), bridge.isCaughtUp else {
            return nil
        }
        return response
    }

    /// A read ``DataSyncService/respondImmediately(to:)`` answers, when no write's events are
    /// still on their way to the bus (``respond(to:)`` would wait for them; such a read changed
    /// nothing, so it is simply answered again there).
    func respondImmediately(to request: ServerRequest) -> ServerResponse? {
        guard let response = dataSync.respondImmediately(to: request), bridge.isCaughtUp else { return nil }
        return response
    }
}
