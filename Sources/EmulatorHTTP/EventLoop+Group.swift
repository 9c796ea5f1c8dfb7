import PubNubBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
}

// How the loops of one server divide the work: the first loop owns the listening socket and
// deals accepted connections out in turn; a connection then lives on its loop until it closes.
// At the connection limit, room is made on the loop holding the connection idle longest.
extension EventLoop {
    /// Hands `delivery` to this loop from another thread; false when the loop has finished (the
    /// caller then still owns whatever the delivery carries).
    func post(_ delivery: Delivery) -> Bool {
        shared.withLock { shared in
            guard !shared.finished else { return false }
            shared.inbox.append(delivery)
            if shared.inbox.count == 1 { wake() }
            return true
        }
    }

    /// Takes on a connection another loop accepted and already counted toward the limit.
    func adoptCounted(_ fd: Int32, now: UInt64) {
        let connection = Connection(id: nextID, fd: fd, limits: limits, now: now)
        nextID += 1
        connections[connection.id] = connection
        connection.registeredEvents = interest(of: connection)
        poller.add(fd, token: connection.id, events: connection.registeredEvents)
        refresh(connection)
        noteIdle(connection)
        let index = self.index
        group.withLock { $0.statistics.connectionsPerLoop[index] += 1 }
    }

    /// Finds room for `fd`, accepted at the connection limit: closes the connection idle longest
    /// across the loops and takes `fd` in its place (on the loop that closed one, which may mean
    /// handing it over), or refuses it when no connection is idle. `hops` counts the hand-overs
    /// so far; a loop's view of another's idle connections can be stale, so the chase is bounded.
    func makeRoom(for fd: Int32, hops: Int, now: UInt64) {
        if peers.count > 1 {
            refreshIdleHint()
            let index = self.index
            let oldest = group.withLock { $0.loopWithOldestIdle(preferring: index) }
            if let oldest, oldest != index, hops < peers.count,
                peers[oldest].post(Delivery(connectionID: 0, content: .makeRoom(fd, hops: hops + 1)))
            {
                return
            }
        }
        guard evictIdleConnection(keepingSlot: true) else {
            refuse(fd, now: now)
            return
        }
        // The evicted connection's place in the limit passes to this one, so no other loop can
        // take it in between.
        group.withLock {
            $0.statistics.connectionsAccepted += 1
            $0.statistics.openConnections += 1
        }
        adoptCounted(fd, now: now)
    }

    /// Asks the loop with the oldest idle connection to close it, for the listening loop out of
    /// descriptors with none idle of its own. Returns whether one was asked.
    func requestRemoteEviction() -> Bool {
        guard peers.count > 1 else { return false }
        refreshIdleHint()
        let index = self.index
        let oldest = group.withLock { state -> Int? in
            var others = state
            others.oldestIdle[index] = nil
            return others.loopWithOldestIdle(preferring: index)
        }
        guard let oldest else { return false }
        return peers[oldest].post(Delivery(connectionID: 0, content: .evictIdle))
    }

    /// Drops stale entries from the head of the idle queue and tells the other loops when this
    /// loop's longest-idle connection became idle (or that it has none). Only with several loops.
    func refreshIdleHint() {
        while idleHead < idleQueue.count, !isStillIdle(idleQueue[idleHead]) { idleHead += 1 }
        publishIdleHint(idleHead < idleQueue.count ? idleQueue[idleHead].since : nil)
    }

    func publishIdleHint(_ since: UInt64?) {
        guard since != publishedIdleHint else { return }
        publishedIdleHint = since
        let index = self.index
        group.withLock { $0.oldestIdle[index] = since }
    }

    func isStillIdle(_ entry: (id: UInt64, since: UInt64)) -> Bool {
        guard let candidate = connections[entry.id] else { return false }
        return candidate.isIdle && candidate.phaseClock == entry.since
    }

    /// Lets go of deliveries that can no longer be acted on (the loop is stopping): parked
    /// answers are cancelled, connections handed over are closed and their counts undone.
    func discard(_ deliveries: [Delivery]) {
        for delivery in deliveries {
            switch delivery.content {
            case .parked(let pending):
                pending.cancel()
            case .adopt(let fd):
                uncount(fd)
            case .makeRoom(let fd, _):
                close(fd)
            case .response, .evictIdle:
                break
            }
        }
    }

    /// Closes a connection counted toward the limit that no loop took on, undoing its count.
    func uncount(_ fd: Int32) {
        group.withLock {
            $0.open -= 1
            $0.statistics.openConnections -= 1
        }
        close(fd)
    }
}
