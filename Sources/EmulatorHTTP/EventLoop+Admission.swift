import Foundation
import PubNubBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Which connections the loop takes on: accepting up to the connection limit, refusing past it
// with a `503`, giving up the connection idle longest when out of room, and the budget of request
// bytes buffered across all connections.
extension EventLoop {
    func acceptConnections(now: UInt64) {
        var accepted = 0
        while accepted < 128 {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                let code = Socket.lastError
                if code == EINTR || code == ECONNABORTED { continue }
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    // Out of descriptors: an idle connection's is the cheapest to give up.
                    if evictIdleConnection() { continue }
                    // None idle: stop polling the listener for a moment instead of spinning.
                    acceptPausedUntil = now + 100_000_000
                }
                return
            }
            guard Socket.configureAccepted(fd) else {
                close(fd)
                continue
            }
            accepted += 1
            if connections.count - refusals >= configuration.maximumConnections && !evictIdleConnection() {
                refuse(fd, now: now)
                continue
            }
            let connection = Connection(id: nextID, fd: fd, limits: limits, now: now)
            nextID += 1
            connections[connection.id] = connection
            connection.registeredEvents = interest(of: connection)
            poller.add(fd, token: connection.id, events: connection.registeredEvents)
            refresh(connection)
            noteIdle(connection)
            shared.withLock {
                $0.statistics.connectionsAccepted += 1
                $0.statistics.openConnections += 1
            }
        }
    }

    /// Answers a connection accepted over the limit with `503` and `Retry-After: 1`, then closes
    /// it (lingering briefly so the answer is not lost to a reset). When too many are being
    /// refused already, closes it at once.
    func refuse(_ fd: Int32, now: UInt64) {
        guard refusals < maximumRefusals else {
            shared.withLock { $0.statistics.connectionsRefused += 1 }
            close(fd)
            return
        }
        let connection = Connection(id: nextID, fd: fd, limits: limits, now: now)
        nextID += 1
        connection.isRefusal = true
        refusals += 1
        connections[connection.id] = connection
        connection.registeredEvents = interest(of: connection)
        poller.add(fd, token: connection.id, events: connection.registeredEvents)
        shared.withLock {
            $0.statistics.connectionsAccepted += 1
            $0.statistics.openConnections += 1
            $0.statistics.connectionsRefused += 1
        }
        let failure = RequestFailure(
            status: 503,
            message: "too many connections (the server's limit is \(configuration.maximumConnections)); retry later",
            retryAfterSeconds: 1)
        beginWriting(connection, bytes: ResponseSerializer.failure(failure), closeAfter: true, now: now)
        refresh(connection)
    }

    /// Remembers that `connection` is idle from now, when it is.
    func noteIdle(_ connection: Connection) {
        guard connection.isIdle else { return }
        idleQueue.append((connection.id, connection.phaseClock))
        // Stale entries pile up as connections get busy; rebuild once they dominate.
        if idleQueue.count - idleHead > 2 * connections.count + 64 {
            idleQueue = idleQueue[idleHead...].filter { entry in
                guard let candidate = connections[entry.id] else { return false }
                return candidate.isIdle && candidate.phaseClock == entry.since
            }
            idleHead = 0
        }
    }

    /// Closes the connection idle for longest, if any is idle. Returns whether one was closed.
    func evictIdleConnection() -> Bool {
        defer {
            if idleHead > 0 && (idleHead == idleQueue.count || idleHead > 1024 && idleHead * 2 > idleQueue.count) {
                idleQueue.removeFirst(idleHead)
                idleHead = 0
            }
        }
        while idleHead < idleQueue.count {
            let entry = idleQueue[idleHead]
            idleHead += 1
            guard let candidate = connections[entry.id], candidate.isIdle, candidate.phaseClock == entry.since
            else { continue }
            // Counted before the close, as `closeConnection` counts: a client that sees its
            // connection end must also see why in the statistics.
            shared.withLock { $0.statistics.idleConnectionsEvicted += 1 }
            closeConnection(candidate)
            return true
        }
        return false
    }

    /// Brings the total of buffered request bytes up to date with `connection`'s buffers.
    func account(_ connection: Connection) {
        let current = connection.bufferedRequestBytes
        guard current != connection.accountedBytes else { return }
        bufferedBytes += current - connection.accountedBytes
        connection.accountedBytes = current
        let total = bufferedBytes
        shared.withLock { $0.statistics.bufferedRequestBytes = total }
    }

    /// Refuses the request `connection` is receiving because the buffer budget is spent.
    func refuseForBufferBudget(_ connection: Connection, now: UInt64) {
        shared.withLock { $0.statistics.requestsRefusedForBufferLimit += 1 }
        connection.declaredBodyBytes = 0
        reject(
            connection,
            failure: RequestFailure(
                status: 503,
                message: "the server is buffering too many request bytes (its limit is \(bufferBudget)); retry later",
                retryAfterSeconds: 1),
            now: now)
    }
}
