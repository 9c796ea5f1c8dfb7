import PubNubBase

/// What the event loops of one server share, behind one lock: the limits that hold for the
/// server as a whole (open connections, refusals in flight, buffered request bytes), where each
/// loop's longest-idle connection stands, and the counters ``HTTPServer/statistics`` reports.
///
/// Each loop owns its connections; this is the only state another loop's thread reads or writes.
struct LoopGroupState {
    var statistics = HTTPServer.Statistics()
    /// Connections open across all loops, those only being refused not counted: what
    /// `maximumConnections` limits.
    var open = 0
    /// Connections accepted over the limit and still being answered `503`, across all loops.
    var refusals = 0
    /// Request bytes buffered across all loops: what `maximumBufferedRequestBytes` limits.
    var bufferedBytes = 0
    /// Per loop: when its longest-idle connection became idle, as that loop last saw it (a
    /// connection that got busy since may still be named), or nil when it had none. The loop that
    /// must make room for a connection at the limit asks the one with the oldest.
    var oldestIdle: [UInt64?]
    /// Loops started and not yet finished.
    var running = 0

    init(loopCount: Int) {
        oldestIdle = Array(repeating: nil, count: loopCount)
        statistics.connectionsPerLoop = Array(repeating: 0, count: loopCount)
    }

    /// The loop whose idle connection is oldest, preferring `preferred` on a tie; nil when no loop
    /// has one.
    func loopWithOldestIdle(preferring preferred: Int) -> Int? {
        var best: (index: Int, since: UInt64)?
        for (index, since) in oldestIdle.enumerated() {
            guard let since else { continue }
            if let current = best, since > current.since || (since == current.since && index != preferred) {
                continue
            }
            best = (index, since)
        }
        return best?.index
    }

    /// Counts a newly accepted connection toward `maximum` open connections; false at the limit.
    mutating func admitConnection(maximum: Int) -> Bool {
        guard Self.claim(&open, below: maximum) else { return false }
        countOpened()
        return true
    }

    /// Counts a connection accepted over the limit, and takes one of `maximum` places for
    /// answering it `503`; false when all are taken (it is then closed unanswered).
    mutating func admitRefusal(maximum: Int) -> Bool {
        statistics.connectionsRefused += 1
        guard Self.claim(&refusals, below: maximum) else { return false }
        countOpened()
        return true
    }

    /// Counts a connection taken on in the place of one just evicted or newly claimed.
    mutating func countOpened() {
        statistics.connectionsAccepted += 1
        statistics.openConnections += 1
    }

    /// Gives back the place of a connection counted open that no loop took on.
    mutating func countUnadopted() {
        open -= 1
        statistics.openConnections -= 1
    }

    /// Adds `change` to the request bytes buffered across the loops; returns the new total.
    mutating func addBuffered(_ change: Int) -> Int {
        bufferedBytes += change
        statistics.bufferedRequestBytes = bufferedBytes
        return bufferedBytes
    }

    /// Counts a connection's close: gives back its place among the refusals or (unless
    /// `keepingSlot`, when the caller passes it on) among the open connections, and its
    /// `buffered` bytes; counts the cancellation of its handler task or parked answer. Returns
    /// the request bytes still buffered across the loops.
    mutating func countClosed(
        refusal: Bool, keepingSlot: Bool, buffered: Int, cancelling: Bool, cancellingParked: Bool
    ) -> Int {
        if refusal {
            refusals -= 1
        } else if !keepingSlot {
            open -= 1
        }
        statistics.openConnections -= 1
        if cancelling { statistics.handlersCancelled += 1 }
        if cancellingParked { statistics.parkedResponsesCancelled += 1 }
        return addBuffered(-buffered)
    }

    private static func claim(_ count: inout Int, below maximum: Int) -> Bool {
        guard count < maximum else { return false }
        count += 1
        return true
    }
}

/// The event loops of one server and what they share: the ``LoopGroupState`` lock, the turn in
/// which accepted connections are dealt out, hand-overs between loops, and the hints that tell a
/// loop at the connection limit which loop holds the connection idle longest.
///
/// `@unchecked Sendable` is safe: `loops` is set once before any loop thread starts and emptied
/// by the last loop to finish, after every loop has last read it (each loop counts itself
/// finished under `state`'s lock after its last use); `nextTurn` is touched only by the listening
/// loop's thread; everything else is `state`, a `Locked` value, or a constant.
final class LoopGroup: @unchecked Sendable {
    let state: Locked<LoopGroupState>
    /// How many loops the server runs.
    let count: Int
    /// Every loop of the server, in order (the loops refer to the group, and it to them, until
    /// the last one finishes).
    private(set) var loops: [EventLoop] = []
    /// The loop the next accepted connection goes to.
    private var nextTurn = 0

    init(loopCount: Int) {
        count = loopCount
        state = Locked(LoopGroupState(loopCount: loopCount))
    }

    func withLock<Result>(_ body: (inout LoopGroupState) throws -> Result) rethrows -> Result {
        try state.withLock(body)
    }

    /// Makes `loops` the group's members; called once, before their threads start.
    func attach(_ loops: [EventLoop]) {
        self.loops = loops
        state.withLock { $0.running = loops.count }
    }

    /// Called by each loop as the last thing it does; the last one lets go of the loops.
    func loopFinished() {
        let last = state.withLock { state -> Bool in
            state.running -= 1
            return state.running == 0
        }
        if last { loops = [] }
    }

    /// The loop the next accepted connection goes to, in turn; asked by the listening loop only.
    func takeTurn() -> Int {
        let target = nextTurn
        nextTurn = nextTurn + 1 < loops.count ? nextTurn + 1 : 0
        return target
    }

    /// Hands `delivery` to loop `index`; false when that loop has finished (the caller then still
    /// owns whatever the delivery carries).
    func post(_ delivery: EventLoop.Delivery, to index: Int) -> Bool {
        loops[index].post(delivery)
    }

    /// Passes `fd`, accepted at the connection limit by loop `index`, on to the loop whose idle
    /// connection is oldest, when that is another loop and fewer than `count` hand-overs happened
    /// so far (a loop's view of another's idle connections can be stale). Returns whether it did.
    func passOnRoomMaking(for fd: Int32, hops: Int, from index: Int) -> Bool {
        let oldest = state.withLock { $0.loopWithOldestIdle(preferring: index) }
        guard let oldest, oldest != index, hops < loops.count else { return false }
        return post(EventLoop.Delivery(connectionID: 0, content: .makeRoom(fd, hops: hops + 1)), to: oldest)
    }

    /// Asks the loop other than `index` whose idle connection is oldest to close it. Returns
    /// whether one was asked.
    func requestEviction(awayFrom index: Int) -> Bool {
        let oldest = state.withLock { state -> Int? in
            var others = state
            others.oldestIdle[index] = nil
            return others.loopWithOldestIdle(preferring: index)
        }
        guard let oldest else { return false }
        return post(EventLoop.Delivery(connectionID: 0, content: .evictIdle), to: oldest)
    }

    /// Records when loop `index`'s longest-idle connection became idle (nil: it has none).
    func publishOldestIdle(_ since: UInt64?, of index: Int) {
        state.withLock { $0.oldestIdle[index] = since }
    }
}
