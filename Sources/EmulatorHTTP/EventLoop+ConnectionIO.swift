#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// One connection's life on the loop: reading and parsing requests, handing them to the handler,
// writing responses, lingering after a close, and its deadlines.
extension EventLoop {
    func service(_ connection: Connection, revents: Int16, now: UInt64) {
        // An earlier event in this round may have closed it already.
        guard connections[connection.id] != nil else { return }
        let failed = revents & Int16(POLLERR | POLLNVAL) != 0
        if revents & Int16(POLLOUT) != 0 || (failed && connection.hasPendingOutput) {
            flush(connection, now: now)
            guard connections[connection.id] != nil else { return }
        }
        let readable = revents & (Int16(POLLIN) | Int16(POLLHUP) | Poller.readHangUp) != 0 || failed
        guard readable else { return }
        switch connection.phase {
        case .reading, .lingering:
            readAvailable(connection, now: now)
        case .handling:
            if revents & Int16(POLLIN) != 0 {
                readAvailable(connection, now: now)
            } else {
                // Hung up with reading paused (buffer full): the client is gone.
                closeConnection(connection)
            }
        case .writing:
            if failed || revents & Int16(POLLHUP) != 0 { closeConnection(connection) }
        }
    }

    func readAvailable(_ connection: Connection, now: UInt64) {
        guard connection.receive(using: &scratch) == .done else {
            // Failed, or the client shut down its side: it is gone either way (nothing more can
            // arrive, and HTTP clients do not half-close while waiting for a response). Its
            // handler task is cancelled.
            closeConnection(connection)
            return
        }
        if connection.phase == .reading { process(connection, now: now) }
        guard connections[connection.id] != nil else { return }
        account(connection)
        // A request still arriving when the budget is spent is refused; one that completed (and
        // left its bytes to its handler) is not.
        if connection.phase == .reading, connection.requestStarted != nil, bufferedBytes > bufferBudget {
            refuseForBufferBudget(connection, now: now)
        }
    }

    /// Parses buffered input and starts handlers; runs pipelined requests one after another
    /// (those answered at once in this call, the others as each answer is written).
    func process(_ connection: Connection, now: UInt64) {
        // A response written in full from inside this loop (an immediate answer) comes back to
        // `.reading` in `flush`, which then leaves the next pipelined request to this loop
        // instead of recursing into it.
        guard !connection.isProcessing else { return }
        connection.isProcessing = true
        defer { connection.isProcessing = false }
        while connection.phase == .reading {
            if connection.requestStarted == nil && connection.hasUnreadInput { connection.requestStarted = now }
            let progress: RequestParser.Progress
            do {
                progress = try connection.parser.parse(connection.input, readIndex: &connection.readIndex)
            } catch {
                connection.compactInput()
                reject(connection, failure: error, now: now)
                return
            }
            switch progress {
            case .needMore:
                connection.compactInput()
                return
            case .headReceived(let head):
                if case .length(let length) = head.body {
                    // The declared body counts from now on: refuse it before reserving anything
                    // (and before any `100 Continue`) when it does not fit the budget.
                    // The total as it is now: other loops change it too.
                    let others = group.withLock { $0.bufferedBytes } - connection.accountedBytes
                    if others + connection.input.count + length > bufferBudget {
                        refuseForBufferBudget(connection, now: now)
                        return
                    }
                    connection.declaredBodyBytes = length
                    account(connection)
                }
                if head.expectsContinue && !connection.hasUnreadInput {
                    connection.output += ResponseSerializer.continueResponse
                    flush(connection, now: now)
                    guard connections[connection.id] != nil else { return }
                }
            case .complete(let head, let body):
                connection.compactInput()
                connection.declaredBodyBytes = 0
                startHandler(connection, head: head, body: body, now: now)
                guard connections[connection.id] != nil else { return }
                account(connection)
                // Answered at once and written: go on with the next pipelined request, if any.
                if connection.phase == .reading { continue }
                return
            }
        }
    }

    func startHandler(_ connection: Connection, head: RequestHead, body: [UInt8], now: UInt64) {
        connection.phase = .handling
        connection.head = head
        connection.requestStarted = nil
        let request = ServerRequest(method: head.method, target: head.target, headers: head.headers, body: body)
        let handler = self.handler
        let immediate = handler.respondImmediately(to: request)
        group.withLock {
            $0.statistics.requestsReceived += 1
            if immediate != nil { $0.statistics.requestsAnsweredImmediately += 1 }
        }
        if let response = immediate {
            // No task, no inbox, no wake-up: written from here, as a delivery would be.
            let output = ResponseMemo.serialize(response, for: head)
            beginWriting(connection, bytes: output.bytes, closeAfter: output.closeAfter, now: now)
            return
        }
        let id = connection.id
        // On the server's own threads, so a busy cooperative pool cannot hold the answer back.
        group.withLock { $0.statistics.handlerTasksRunning += 1 }
        let slot = HandlerTaskSlot()
        let task = detachedHandlerTask { [self] in
            let reply = await handler.reply(to: request)
            handlerTaskEnded()
            switch reply {
            case .response(let response): deliver(response, to: id)
            case .pending(let pending): park(pending, for: id)
            }
            slot.finished()
        }
        slot.started(task)
        connection.task = slot
        liveTasks[id] = slot
    }

    func reject(_ connection: Connection, failure: RequestFailure, now: UInt64) {
        group.withLock { $0.statistics.requestsReceived += 1 }
        beginWriting(connection, bytes: ResponseSerializer.failure(failure), closeAfter: true, now: now)
    }

    func beginWriting(_ connection: Connection, bytes: [UInt8], closeAfter: Bool, now: UInt64) {
        connection.phase = .writing
        connection.phaseClock = now
        connection.closeAfterOutput = closeAfter
        if connection.hasPendingOutput {
            connection.output += bytes
        } else {
            connection.output = bytes
            connection.outputIndex = 0
        }
        flush(connection, now: now)
    }

    func flush(_ connection: Connection, now: UInt64) {
        switch connection.sendPending(now: now) {
        case .done: break
        case .wouldBlock: return
        case .endOfInput, .failed:
            closeConnection(connection)
            return
        }
        guard connection.phase == .writing else { return }
        let serialized = memo.serializedCount
        group.withLock { counters.publishResponse(serializedTotal: serialized, to: &$0.statistics) }
        if connection.closeAfterOutput {
            beginLingering(connection, now: now)
            return
        }
        connection.phase = .reading
        connection.phaseClock = now
        connection.head = nil
        connection.parser.reset()
        process(connection, now: now)
        guard connections[connection.id] != nil else { return }
        account(connection)
        noteIdle(connection)
    }

    func beginLingering(_ connection: Connection, now: UInt64) {
        connection.phase = .lingering
        connection.phaseClock = now
        connection.input = []
        connection.readIndex = 0
        connection.declaredBodyBytes = 0
        connection.parser.reset()
        account(connection)
        Socket.shutdownWrite(connection.fd)
    }

    /// Scans every connection (only when the earliest deadline is due), acts on those due, and
    /// recomputes the earliest deadline.
    func expireDeadlines(now: UInt64) {
        let expired = deadlines.takeDue(from: connections.values, now: now)
        for connection in expired {
            if connection.phase == .reading, connection.requestStarted != nil {
                // A slow client: say why before closing.
                connection.requestStarted = nil
                reject(
                    connection, failure: RequestFailure(status: 408, message: "request not received in time"),
                    now: now)
            } else {
                closeConnection(connection)
            }
            refresh(connection)
        }
    }

    /// Closes `connection`. With `keepingSlot` its place in the connection limit is not given
    /// back (an eviction whose caller takes the place for a new connection).
    func closeConnection(_ connection: Connection, keepingSlot: Bool = false) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        let accounted = connection.accountedBytes
        connection.accountedBytes = 0
        let isRefusal = connection.isRefusal
        let task = connection.phase == .handling ? connection.task : nil
        let pending = connection.phase == .handling ? connection.pending : nil
        if pending != nil { unpark(connection) }
        // Counters first, then the close and the cancellation, so whoever sees the connection
        // end or the handler cancelled also sees the counts.
        bufferedBytes = group.withLock {
            $0.countClosed(
                refusal: isRefusal, keepingSlot: keepingSlot, buffered: accounted, cancelling: task != nil,
                cancellingParked: pending != nil)
        }
        poller.remove(connection.fd)
        close(connection.fd)
        task?.cancel()
        // No task waits for a parked answer: its producer is told to stop waiting instead.
        pending?.cancel()
        connection.task = nil
        connection.input = []
        connection.output = []
    }
}
