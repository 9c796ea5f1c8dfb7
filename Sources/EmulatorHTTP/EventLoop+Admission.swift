#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Which connections the server takes on: accepting up to the connection limit (on the listening
// loop), refusing past it with a `503`, giving up the connection idle longest when out of room,
// and the budget of request bytes buffered across all connections. The limits are the server's,
// counted in `group` across its loops.
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
                    if evictIdleConnection(keepingSlot: false) { continue }
                    // None idle here: another loop may close one of its own (shortly, so look
                    // again soon); with none anywhere, stop polling the listener for a moment
                    // instead of spinning.
                    acceptPausedUntil = now + (requestRemoteEviction() ? 10_000_000 : 100_000_000)
                }
                return
            }
            guard Socket.configureAccepted(fd) else {
                close(fd)
                continue
            }
            accepted += 1
            admit(fd, now: now)
        }
    }

    /// Counts a newly accepted connection toward the limit and gives it to the next loop in turn;
    /// at the limit, makes room for it or refuses it.
    func admit(_ fd: Int32, now: UInt64) {
        let maximum = configuration.maximumConnections
        guard group.withLock({ $0.admitConnection(maximum: maximum) }) else {
            makeRoom(for: fd, hops: 0, now: now)
            return
        }
        let target = group.takeTurn()
        if target == index || target >= group.loops.count {
            adoptCounted(fd, now: now)
        } else if !group.post(Delivery(connectionID: 0, content: .adopt(fd)), to: target) {
            // That loop is stopping, and so is the server.
            uncount(fd)
        }
    }

    /// Answers a connection accepted over the limit with `503` and `Retry-After: 1`, then closes
    /// it (lingering briefly so the answer is not lost to a reset). When too many are being
    /// refused already, closes it at once.
    func refuse(_ fd: Int32, now: UInt64) {
        let maximumRefusals = self.maximumRefusals
        guard group.withLock({ $0.admitRefusal(maximum: maximumRefusals) }) else {
            close(fd)
            return
        }
        let connection = register(fd, isRefusal: true, now: now)
        let failure = RequestFailure(
            status: 503,
            message: "too many connections (the server's limit is \(configuration.maximumConnections)); retry later",
            retryAfterSeconds: 1)
        beginWriting(connection, bytes: ResponseSerializer.failure(failure), closeAfter: true, now: now)
        refresh(connection)
    }

    /// Makes `fd` one of this loop's connections, watched for the events its first phase calls for.
    func register(_ fd: Int32, isRefusal: Bool, now: UInt64) -> Connection {
        let connection = Connection(id: nextID, fd: fd, limits: limits, now: now)
        nextID += 1
        connection.isRefusal = isRefusal
        connections[connection.id] = connection
        connection.registeredEvents = interest(of: connection)
        poller.add(fd, token: connection.id, events: connection.registeredEvents)
        return connection
    }

    /// Remembers that `connection` is idle from now, when it is.
    func noteIdle(_ connection: Connection) {
        guard connection.isIdle else { return }
        let entry = IdleQueue.Entry(id: connection.id, since: connection.phaseClock)
        publish(idle.noteIdle(entry, liveConnections: connections.count, isStillIdle: isStillIdle))
    }

    /// Closes this loop's connection idle for longest, if any is idle. Returns whether one was
    /// closed. With `keepingSlot` its place in the connection limit is not given back: the caller
    /// takes it for a new connection.
    func evictIdleConnection(keepingSlot: Bool) -> Bool {
        defer { publish(idle.settle(isStillIdle: isStillIdle)) }
        guard let entry = idle.popOldest(isStillIdle: isStillIdle), let candidate = connections[entry.id] else {
            return false
        }
        // Counted before the close, as `closeConnection` counts: a client that sees its
        // connection end must also see why in the statistics.
        group.withLock { $0.statistics.idleConnectionsEvicted += 1 }
        closeConnection(candidate, keepingSlot: keepingSlot)
        return true
    }

    /// Brings the total of buffered request bytes up to date with `connection`'s buffers.
    func account(_ connection: Connection) {
        let current = connection.bufferedRequestBytes
        guard current != connection.accountedBytes else { return }
        let change = current - connection.accountedBytes
        connection.accountedBytes = current
        bufferedBytes = group.withLock { $0.addBuffered(change) }
    }

    /// Refuses the request `connection` is receiving because the buffer budget is spent.
    func refuseForBufferBudget(_ connection: Connection, now: UInt64) {
        group.withLock { $0.statistics.requestsRefusedForBufferLimit += 1 }
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
