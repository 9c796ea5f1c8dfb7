/// The ordered feed of committed changes: live subscribers plus a bounded replay window.
///
/// A change reaches subscribers and the replay window only once its write commits (the outermost
/// ``endWrite()``): a write the DataSync service rolls back because it could not be saved ends
/// with ``discardWrite()`` and is never seen by anyone.
///
/// Three kinds of subscriber, all served in commit order:
/// - streams (``subscribe()``), for consumers that read at their own pace (`Emulator.changes()`);
/// - callbacks (``addSubscriber(_:)``), called synchronously, one change at a time, when the write
///   commits, for other services that must hold the event before the REST answer leaves. The
///   DataSync engine calls whatever is registered and never knows who listens;
/// - write subscribers (``addWriteSubscriber(_:)``), called once per write with all the changes it
///   committed (a remove and its cascades, a request and the expiries swept before it), in order,
///   when the write ends, still under the DataSync service's lock and before its answer leaves.
struct ChangeFeed {
    /// Called once per committed change, in order, under the DataSync service's lock while the change
    /// commits. It must be quick and must not wait for (or call back into) the DataSync service:
    /// hand the event to your own state (a locked queue, a stream) and return.
    typealias Subscriber = @Sendable (ChangeEvent) -> Void

    /// Called once per write with its changes in commit order (never with an empty list); the
    /// same rules as ``Subscriber``.
    typealias WriteSubscriber = @Sendable ([ChangeEvent]) -> Void

    /// Identifies a registered subscriber, to remove it.
    struct SubscriberID: Hashable, Sendable {
        fileprivate let rawValue: Int
    }

    private enum Sink {
        case stream(AsyncStream<ChangeEvent>.Continuation)
        case callback(Subscriber)
        case write(WriteSubscriber)
    }

    /// In registration order, so every subscriber sees the same order of calls.
    private var sinks: [(id: Int, sink: Sink)] = []
    private var nextSubscriber = 0
    /// The most recent events, oldest first, for `events(after:)`.
    private(set) var recent: [ChangeEvent] = []
    let replayCapacity = 10_000
    /// Writes begun and not yet ended (they nest: a request's write holds its cascades' writes).
    private var openWrites = 0
    /// The changes of the write in progress, for the write subscribers.
    private var pendingWrite: [ChangeEvent] = []

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

    /// Registers `subscriber` for every write that ends after this call.
    @discardableResult
    mutating func addWriteSubscriber(_ subscriber: @escaping WriteSubscriber) -> SubscriberID {
        let id = takeID()
        sinks.append((id: id, sink: .write(subscriber)))
        return SubscriberID(rawValue: id)
    }

    /// Starts a write: changes published until the matching ``endWrite()`` reach the write
    /// subscribers together. A change published outside any write is a write of its own.
    mutating func beginWrite() { openWrites += 1 }

    /// Ends a write; the outermost end commits its changes: into the replay window, to the
    /// streams and callbacks one by one, then to the write subscribers together.
    mutating func endWrite() {
        openWrites = max(0, openWrites - 1)
        guard openWrites == 0, !pendingWrite.isEmpty else { return }
        let changes = pendingWrite
        pendingWrite = []
        for event in changes { deliver(event) }
        for (_, sink) in sinks {
            if case .write(let subscriber) = sink { subscriber(changes) }
        }
    }

    /// Ends a write dropping its changes when it is the outermost one: nobody sees them, and
    /// the replay window does not hold them (the write was rolled back).
    mutating func discardWrite() {
        openWrites = max(0, openWrites - 1)
        if openWrites == 0 { pendingWrite = [] }
    }

    /// Stops calling the subscriber `id` (no effect when it is already gone).
    mutating func removeSubscriber(_ id: SubscriberID) {
        sinks.removeAll { $0.id == id.rawValue }
    }

    mutating func publish(_ event: ChangeEvent) {
        beginWrite()
        pendingWrite.append(event)
        endWrite()
    }

    private mutating func deliver(_ event: ChangeEvent) {
        recent.append(event)
        if recent.count > replayCapacity + replayCapacity / 4 { recent.removeFirst(recent.count - replayCapacity) }
        var ended: Set<Int> = []
        for (id, sink) in sinks {
            switch sink {
            case .stream(let continuation):
                if case .terminated = continuation.yield(event) { ended.insert(id) }
            case .callback(let subscriber):
                subscriber(event)
            case .write:
                break
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
