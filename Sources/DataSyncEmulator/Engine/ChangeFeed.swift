/// The ordered feed of committed changes: live subscribers plus a bounded replay window.
struct ChangeFeed {
    private var subscribers: [Int: AsyncStream<ChangeEvent>.Continuation] = [:]
    private var nextSubscriber = 0
    /// The most recent events, oldest first, for `events(after:)`.
    private(set) var recent: [ChangeEvent] = []
    let replayCapacity = 10_000

    /// A stream of every event published after this call, in order. Unbounded buffering: the
    /// feed must not drop committed changes; a consumer that stops reading should cancel.
    mutating func subscribe() -> AsyncStream<ChangeEvent> {
        let (stream, continuation) = AsyncStream<ChangeEvent>.makeStream(bufferingPolicy: .unbounded)
        subscribers[nextSubscriber] = continuation
        nextSubscriber += 1
        return stream
    }

    mutating func publish(_ event: ChangeEvent) {
        recent.append(event)
        if recent.count > replayCapacity + replayCapacity / 4 { recent.removeFirst(recent.count - replayCapacity) }
        for (key, continuation) in subscribers {
            if case .terminated = continuation.yield(event) { subscribers[key] = nil }
        }
    }

    /// Events with a sequence number above `sequence` still in the replay window.
    func events(after sequence: UInt64) -> [ChangeEvent] {
        recent.filter { $0.sequence > sequence }
    }

    mutating func finish() {
        for continuation in subscribers.values { continuation.finish() }
        subscribers = [:]
    }
}
