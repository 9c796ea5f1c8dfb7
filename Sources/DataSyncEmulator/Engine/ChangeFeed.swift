/// The ordered feed of committed changes: live subscribers plus a bounded replay window.
///
/// Two kinds of subscriber, both served in commit order:
/// - streams (``subscribe()``), for consumers that read at their own pace (`Emulator.changes()`);
/// - callbacks (``addSubscriber(_:)``), called synchronously while the change commits, for other
///   services (the coming pub/sub bus) that must hold the event before the REST answer leaves.
///   The DataSync engine calls whatever is registered and never knows who listens.
struct ChangeFeed {
    /// Called once per committed change, in order, on the DataSync service's actor while the change
    /// commits. It must be quick and must not wait for (or call back into) the DataSync service:
    /// hand the event to your own state (a locked queue, a stream) and return.
    typealias Subscriber = @Sendable (ChangeEvent) -> Void

    /// Identifies a registered subscriber, to remove it.
    struct SubscriberID: Hashable, Sendable {
        fileprivate let rawValue: Int
    }

    private enum Sink {
        case stream(AsyncStream<ChangeEvent>.Continuation)
        case callback(Subscriber)
    }

    /// In registration order, so every subscriber sees the same order of calls.
    private var sinks: [(id: Int, sink: Sink)] = []
    private var nextSubscriber = 0
    /// The most recent events, oldest first, for `events(after:)`.
    private(set) var recent: [ChangeEvent] = []
    let replayCapacity = 10_000

    /// A stream of every event published after this call, in order. Unbounded buffering: the
    /// feed must not drop committed changes; a consumer that stops reading should cancel.
    mutating func subscribe() -> AsyncStream<ChangeEvent> {
        let (stream, continuation) = AsyncStream<ChangeEvent>.makeStream(bufferingPolicy: .unbounded)
        sinks.append((id: takeID(), sink: .stream(continuation)))
        return stream
    }

    /// Registers `subscriber` for every event published after this call.
    @discardableResult
    mutating func addSubscriber(_ subscriber: @escaping Subscriber) -> SubscriberID {
        let id = takeID()
        sinks.append((id: id, sink: .callback(subscriber)))
        return SubscriberID(rawValue: id)
    }

    /// Stops calling the subscriber `id` (no effect when it is already gone).
    mutating func removeSubscriber(_ id: SubscriberID) {
        sinks.removeAll { $0.id == id.rawValue }
    }

    mutating func publish(_ event: ChangeEvent) {
        recent.append(event)
        if recent.count > replayCapacity + replayCapacity / 4 { recent.removeFirst(recent.count - replayCapacity) }
        var ended: Set<Int> = []
        for (id, sink) in sinks {
            switch sink {
            case .stream(let continuation):
                if case .terminated = continuation.yield(event) { ended.insert(id) }
            case .callback(let subscriber):
                subscriber(event)
            }
        }
        if !ended.isEmpty { sinks.removeAll { ended.contains($0.id) } }
    }

    /// Events with a sequence number above `sequence` still in the replay window.
    func events(after sequence: UInt64) -> [ChangeEvent] {
        recent.filter { $0.sequence > sequence }
    }

    /// Ends every stream and drops every subscriber.
    mutating func finish() {
        for (_, sink) in sinks {
            if case .stream(let continuation) = sink { continuation.finish() }
        }
        sinks = []
    }

    private mutating func takeID() -> Int {
        defer { nextSubscriber += 1 }
        return nextSubscriber
    }
}
