import PubNubBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// A loop's side of the server's `LoopGroup`: the first loop owns the listening socket and deals
// accepted connections out in turn; a connection then lives on its loop until it closes. At the
// connection limit, room is made on the loop holding the connection idle longest, which each
// loop tells the others through the group.
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
        let connection = register(fd, isRefusal: false, now: now)
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
        if group.count > 1 {
            refreshIdleHint()
            if group.passOnRoomMaking(for: fd, hops: hops, from: index) { return }
        }
        guard evictIdleConnection(keepingSlot: true) else {
            refuse(fd, now: now)
            return
        }
        // The evicted connection's place in the limit passes to this one, so no other loop can
        // take it in between.
        group.withLock { $0.countOpened() }
        adoptCounted(fd, now: now)
    }

    /// Asks the loop with the oldest idle connection to close it, for the listening loop out of
    /// descriptors with none idle of its own. Returns whether one was asked.
    func requestRemoteEviction() -> Bool {
        guard group.count > 1 else { return false }
        refreshIdleHint()
        return group.requestEviction(awayFrom: index)
    }

    /// Tells the other loops when this loop's longest-idle connection became idle (or that it has
    /// none). Only with several loops.
    func refreshIdleHint() {
        publish(idle.refreshHint(isStillIdle: isStillIdle))
    }

    /// Tells the other loops of a change to this loop's idle hint, if any.
    func publish(_ update: IdleQueue.HintUpdate?) {
        if let update { group.publishOldestIdle(update.since, of: index) }
    }

    /// Whether the queue entry's connection is still open and idle since the entry's time.
    func isStillIdle(_ entry: IdleQueue.Entry) -> Bool {
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
        group.withLock { $0.countUnadopted() }
        close(fd)
    }
}
