import Foundation
import PubNubBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's I/O engine: one thread waiting for readiness (epoll on Linux, `poll(2)` elsewhere,
/// see ``Poller``) on the listening socket, a wake-up pipe and every connection, all non-blocking.
/// A request the handler answers at once (``ServerHandler/respondImmediately(to:)``) is answered
/// on this thread; every other request runs as a task, whose response comes back through a locked
/// inbox and a byte on the wake-up pipe.
///
/// `@unchecked Sendable` is safe: every stored property except `shared`, `handler` and the
/// constants is touched only by the loop thread (inside `run()` and what it calls). `handler` is
/// `Sendable`, the constants are immutable, and `shared` is a `Locked` value; the methods other
/// threads call (`deliver`, `shutdown`, `statistics`) touch nothing else, apart from writing to the
/// wake-up pipe, which they do only while holding `shared`'s lock and only while the loop has not
/// finished (the loop marks itself finished under that lock before closing the pipe).
final class EventLoop: @unchecked Sendable {
    private struct Delivery {
        var connectionID: UInt64
        var response: ServerResponse
    }

    private struct Shared {
        var inbox: [Delivery] = []
        var stopRequested = false
        var finished = false
        var stopWaiters: [CheckedContinuation<[Task<Void, Never>], Never>] = []
        var statistics = HTTPServer.Statistics()
    }

    /// How long a closing connection may keep sending before it is closed anyway.
    private static let lingerNanoseconds: UInt64 = 2_000_000_000
    /// Bytes buffered from a connection whose request is with the handler before reading pauses.
    private let handlingInputCap: Int
    /// The most request bytes buffered across all connections (`maximumBufferedRequestBytes`).
    private let bufferBudget: Int
    /// How many connections accepted over the limit may be answering `503` at once; beyond that
    /// a connection over the limit is closed without an answer.
    private let maximumRefusals: Int
    private static let readHangUp = Poller.readHangUp
    private static let wakeToken: UInt64 = 0
    private static let listenerToken: UInt64 = 1

    private let shared = Locked(Shared())
    private let handler: any ServerHandler
    private let configuration: HTTPServer.Configuration
    private let limits: RequestParser.Limits
    private let idleNanoseconds: UInt64
    private let requestNanoseconds: UInt64
    private let sendNanoseconds: UInt64
    private let wakeRead: Int32
    private let wakeWrite: Int32

    // Loop-thread state.
    private var listener: Int32
    private var connections: [UInt64: Connection] = [:]
    private var liveTasks: [UInt64: Task<Void, Never>] = [:]
    private var nextID: UInt64 = 16
    /// Request bytes buffered across all connections (each connection's `accountedBytes`).
    private var bufferedBytes = 0
    /// Connections in `connections` that are only being refused (they do not count toward the limit).
    private var refusals = 0
    /// Connections that became idle, oldest first, with the `phaseClock` they had then; an entry
    /// is stale once its connection is gone, busy, or idle again since a later time.
    private var idleQueue: [(id: UInt64, since: UInt64)] = []
    private var idleHead = 0
    private var acceptPausedUntil: UInt64 = 0
    private var listenerRegistered = false
    /// No connection deadline falls before this (it may be earlier than the true earliest, never later).
    private var earliestDeadline: UInt64?
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    private let poller: Poller
    private var ready: [Poller.Ready] = []

    init(listener: Int32, configuration: HTTPServer.Configuration, handler: any ServerHandler) throws(HTTPServerError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let code = Socket.lastError
            close(listener)
            throw HTTPServerError(code: .systemCallFailed, message: "pipe(): \(Socket.describe(code))")
        }
        for end in pipeEnds {
            Socket.setCloseOnExec(end)
            _ = Socket.setNonBlocking(end)
        }
        do {
            self.poller = try Poller(backend: configuration.eventBackend)
        } catch {
            for fd in pipeEnds + [listener] { close(fd) }
            throw error
        }
        poller.add(pipeEnds[0], token: Self.wakeToken, events: Int16(POLLIN))
        self.wakeRead = pipeEnds[0]
        self.wakeWrite = pipeEnds[1]
        self.listener = listener
        self.configuration = configuration
        self.handler = handler
        self.limits = RequestParser.Limits(
            requestLine: configuration.maximumRequestLineBytes, headers: configuration.maximumHeaderBytes,
            body: configuration.maximumBodyBytes)
        self.idleNanoseconds = Self.nanoseconds(configuration.idleTimeout)
        self.requestNanoseconds = Self.nanoseconds(configuration.requestTimeout)
        self.sendNanoseconds = Self.nanoseconds(configuration.sendTimeout)
        self.handlingInputCap = configuration.maximumRequestLineBytes + configuration.maximumHeaderBytes
        self.bufferBudget = configuration.maximumBufferedRequestBytes
        self.maximumRefusals = max(16, configuration.maximumConnections / 16)
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let whole = UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if whole.overflow { return UInt64.max / 2 }
        return min(UInt64.max / 2, whole.partialValue + UInt64(attoseconds / 1_000_000_000))
    }

    // MARK: - Called from other threads

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "EmulatorHTTP.HTTPServer"
        thread.start()
    }

    var statistics: HTTPServer.Statistics {
        shared.withLock { $0.statistics }
    }

    /// Hands a handler's response to the loop. Dropped if the loop has finished.
    func deliver(_ response: ServerResponse, to connectionID: UInt64) {
        shared.withLock { shared in
            guard !shared.finished else { return }
            shared.inbox.append(Delivery(connectionID: connectionID, response: response))
            if shared.inbox.count == 1 { wake() }
        }
    }

    /// Asks the loop to stop and waits until it has closed everything; returns the handler tasks
    /// that were still running, for the caller to await.
    func shutdown() async -> [Task<Void, Never>] {
        await withCheckedContinuation { continuation in
            let finished = shared.withLock { shared -> Bool in
                guard !shared.finished else { return true }
                shared.stopWaiters.append(continuation)
                shared.stopRequested = true
                wake()
                return false
            }
            if finished { continuation.resume(returning: []) }
        }
    }

    /// Asks the loop to stop without waiting for it.
    func requestStop() {
        shared.withLock { shared in
            guard !shared.finished, !shared.stopRequested else { return }
            shared.stopRequested = true
            wake()
        }
    }

    /// Called with `shared`'s lock held, so the pipe is still open.
    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: - The loop

    private func run() {
        loop: while true {
            updateListenerRegistration(now: Socket.now())
            guard poller.wait(timeout: pollTimeout(now: Socket.now()), into: &ready) else { break loop }
            let now = Socket.now()
            for event in ready {
                switch event.token {
                case Self.wakeToken:
                    if drainWakePipeAndInbox(now: now) { break loop }
                case Self.listenerToken:
                    acceptConnections(now: now)
                default:
                    guard let connection = connections[event.token] else { continue }
                    service(connection, revents: event.events, now: now)
                    refresh(connection)
                }
            }
            if let earliestDeadline, earliestDeadline <= now { expireDeadlines(now: now) }
        }
        finish()
    }

    /// Watches the listener unless accepting is paused after running out of descriptors with no
    /// idle connection to give up. Connections over the limit are still accepted, to be answered
    /// at once (see `acceptConnections`), never left waiting in the backlog.
    private func updateListenerRegistration(now: UInt64) {
        guard listener >= 0 else { return }
        let wanted = now >= acceptPausedUntil
        guard wanted != listenerRegistered else { return }
        if wanted {
            poller.add(listener, token: Self.listenerToken, events: Int16(POLLIN))
        } else {
            poller.remove(listener)
        }
        listenerRegistered = wanted
    }

    /// The events a connection's phase calls for.
    private func interest(of connection: Connection) -> Int16 {
        switch connection.phase {
        case .reading:
            return connection.hasPendingOutput ? Int16(POLLIN | POLLOUT) : Int16(POLLIN)
        case .handling:
            // Keep watching for a hang-up; stop reading once enough pipelined bytes are buffered
            // (on this connection, or across all of them).
            let buffered = connection.input.count - connection.readIndex
            return buffered < handlingInputCap && bufferedBytes < bufferBudget
                ? Int16(POLLIN) | Self.readHangUp : Self.readHangUp
        case .writing:
            return Int16(POLLOUT)
        case .lingering:
            return Int16(POLLIN)
        }
    }

    /// Brings a connection's registration and the earliest deadline up to date after it changed.
    private func refresh(_ connection: Connection) {
        guard connections[connection.id] != nil else { return }
        account(connection)
        let wanted = interest(of: connection)
        if wanted != connection.registeredEvents {
            poller.modify(connection.fd, token: connection.id, events: wanted)
            connection.registeredEvents = wanted
        }
        if let deadline = deadline(of: connection) { earliestDeadline = min(earliestDeadline ?? deadline, deadline) }
    }

    private func deadline(of connection: Connection) -> UInt64? {
        switch connection.phase {
        case .reading:
            if let started = connection.requestStarted { return started &+ requestNanoseconds }
            return connection.phaseClock &+ idleNanoseconds
        case .handling:
            return nil
        case .writing:
            return connection.phaseClock &+ sendNanoseconds
        case .lingering:
            return connection.phaseClock &+ Self.lingerNanoseconds
        }
    }

    private func pollTimeout(now: UInt64) -> Int32 {
        var earliest = earliestDeadline
        if acceptPausedUntil > now { earliest = min(earliest ?? acceptPausedUntil, acceptPausedUntil) }
        guard let earliest else { return -1 }
        guard earliest > now else { return 0 }
        let milliseconds = (earliest - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, 60_000))
    }

    /// Returns true when the loop must stop.
    private func drainWakePipeAndInbox(now: UInt64) -> Bool {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(wakeRead, &sink, sink.count) > 0 {}
        let (deliveries, stop) = shared.withLock { shared -> ([Delivery], Bool) in
            let taken = shared.inbox
            shared.inbox.removeAll()
            return (taken, shared.stopRequested)
        }
        if stop { return true }
        for delivery in deliveries {
            liveTasks[delivery.connectionID] = nil
            guard let connection = connections[delivery.connectionID], connection.phase == .handling,
                let head = connection.head
            else { continue }
            connection.task = nil
            let output = ResponseSerializer.serialize(
                delivery.response, method: head.method, keepAlive: head.keepAlive,
                announcesKeepAlive: head.minorVersion == 0)
            beginWriting(connection, bytes: output.bytes, closeAfter: output.closeAfter, now: now)
            refresh(connection)
        }
        return false
    }

    private func finish() {
        if listener >= 0 {
            if listenerRegistered { poller.remove(listener) }
            close(listener)
            listener = -1
        }
        for connection in Array(connections.values) { closeConnection(connection) }
        poller.remove(wakeRead)
        let tasks = Array(liveTasks.values)
        liveTasks.removeAll()
        let waiters = shared.withLock { shared in
            shared.finished = true
            shared.inbox.removeAll()
            let waiters = shared.stopWaiters
            shared.stopWaiters.removeAll()
            return waiters
        }
        close(wakeRead)
        close(wakeWrite)
        for waiter in waiters { waiter.resume(returning: tasks) }
    }

    // MARK: - Accepting

    private func acceptConnections(now: UInt64) {
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
    private func refuse(_ fd: Int32, now: UInt64) {
        guard refusals < maximumRefusals else {
            close(fd)
            shared.withLock { $0.statistics.connectionsRefused += 1 }
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
    private func noteIdle(_ connection: Connection) {
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
    private func evictIdleConnection() -> Bool {
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
            closeConnection(candidate)
            shared.withLock { $0.statistics.idleConnectionsEvicted += 1 }
            return true
        }
        return false
    }

    /// Brings the total of buffered request bytes up to date with `connection`'s buffers.
    private func account(_ connection: Connection) {
        let current = connection.bufferedRequestBytes
        bufferedBytes += current - connection.accountedBytes
        connection.accountedBytes = current
    }

    /// Refuses the request `connection` is receiving because the buffer budget is spent.
    private func refuseForBufferBudget(_ connection: Connection, now: UInt64) {
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

    // MARK: - Connection I/O

    private func service(_ connection: Connection, revents: Int16, now: UInt64) {
        // An earlier event in this round may have closed it already.
        guard connections[connection.id] != nil else { return }
        let failed = revents & Int16(POLLERR | POLLNVAL) != 0
        if revents & Int16(POLLOUT) != 0 || (failed && connection.hasPendingOutput) {
            flush(connection, now: now)
            guard connections[connection.id] != nil else { return }
        }
        let readable = revents & (Int16(POLLIN) | Int16(POLLHUP) | Self.readHangUp) != 0 || failed
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

    private func readAvailable(_ connection: Connection, now: UInt64) {
        var endOfInput = false
        var rounds = 0
        while rounds < 4 {
            rounds += 1
            let count = scratch.withUnsafeMutableBytes { buffer in
                recv(connection.fd, buffer.baseAddress, buffer.count, 0)
            }
            if count > 0 {
                if connection.phase != .lingering {
                    connection.input.append(contentsOf: scratch[0..<count])
                }
                if count < scratch.count { break }
            } else if count == 0 {
                endOfInput = true
                break
            } else {
                let code = Socket.lastError
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { break }
                closeConnection(connection)
                return
            }
        }
        if endOfInput {
            // A client that shuts down its side is gone: nothing more can arrive, and HTTP clients
            // do not half-close while waiting for a response. Its handler task is cancelled.
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
    private func process(_ connection: Connection, now: UInt64) {
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
                    let others = bufferedBytes - connection.accountedBytes
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

    private func startHandler(_ connection: Connection, head: RequestHead, body: [UInt8], now: UInt64) {
        connection.phase = .handling
        connection.head = head
        connection.requestStarted = nil
        let request = ServerRequest(method: head.method, target: head.target, headers: head.headers, body: body)
        let handler = self.handler
        let immediate = handler.respondImmediately(to: request)
        shared.withLock {
            $0.statistics.requestsReceived += 1
            if immediate != nil { $0.statistics.requestsAnsweredImmediately += 1 }
        }
        if let response = immediate {
            // No task, no inbox, no wake-up: written from here, as a delivery would be.
            let output = ResponseSerializer.serialize(
                response, method: head.method, keepAlive: head.keepAlive, announcesKeepAlive: head.minorVersion == 0)
            beginWriting(connection, bytes: output.bytes, closeAfter: output.closeAfter, now: now)
            return
        }
        let id = connection.id
        // On the server's own threads, so a busy cooperative pool cannot hold the answer back.
        let task = detachedHandlerTask { [self] in
            let response = await handler.handle(request)
            deliver(response, to: id)
        }
        connection.task = task
        liveTasks[id] = task
    }

    private func reject(_ connection: Connection, failure: RequestFailure, now: UInt64) {
        shared.withLock { $0.statistics.requestsReceived += 1 }
        beginWriting(connection, bytes: ResponseSerializer.failure(failure), closeAfter: true, now: now)
    }

    private func beginWriting(_ connection: Connection, bytes: [UInt8], closeAfter: Bool, now: UInt64) {
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

    private func flush(_ connection: Connection, now: UInt64) {
        while connection.hasPendingOutput {
            let written = connection.output.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return send(
                    connection.fd, base + connection.outputIndex, buffer.count - connection.outputIndex,
                    Socket.sendFlags)
            }
            if written > 0 {
                connection.outputIndex += written
                if connection.phase == .writing { connection.phaseClock = now }
                continue
            }
            let code = Socket.lastError
            if written < 0 && code == EINTR { continue }
            if written < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return }
            closeConnection(connection)
            return
        }
        connection.output = []
        connection.outputIndex = 0
        guard connection.phase == .writing else { return }
        shared.withLock { $0.statistics.responsesSent += 1 }
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

    private func beginLingering(_ connection: Connection, now: UInt64) {
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
    private func expireDeadlines(now: UInt64) {
        var expired: [Connection] = []
        earliestDeadline = nil
        for connection in connections.values {
            guard let deadline = deadline(of: connection) else { continue }
            if deadline <= now {
                expired.append(connection)
            } else {
                earliestDeadline = min(earliestDeadline ?? deadline, deadline)
            }
        }
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

    private func closeConnection(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        bufferedBytes -= connection.accountedBytes
        connection.accountedBytes = 0
        if connection.isRefusal { refusals -= 1 }
        let task = connection.phase == .handling ? connection.task : nil
        // Counters first, then the close and the cancellation, so whoever sees the connection
        // end or the handler cancelled also sees the counts.
        shared.withLock {
            $0.statistics.openConnections -= 1
            if task != nil { $0.statistics.handlersCancelled += 1 }
        }
        poller.remove(connection.fd)
        close(connection.fd)
        task?.cancel()
        connection.task = nil
        connection.input = []
        connection.output = []
    }
}
