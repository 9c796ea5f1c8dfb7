import Foundation
import PubNubBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One of the server's I/O engines: a thread waiting for readiness (epoll on Linux, `poll(2)`
/// elsewhere, see ``Poller``) on a wake-up pipe and the connections it owns, all non-blocking; the
/// first loop of a server also owns the listening socket and deals accepted connections out to
/// the loops in turn (through the server's ``LoopGroup``, see `EventLoop+Group.swift`). A request
/// the handler answers at once (``ServerHandler/respondImmediately(to:)``) is answered on the
/// thread of the loop owning its connection; every other request runs as a task, whose response
/// comes back to that loop through a locked inbox and a byte on the wake-up pipe.
///
/// `@unchecked Sendable` is safe: every stored property except `shared`, `group`, `handler` and
/// the constants is touched only by the loop thread (inside `run()` and what it calls).
/// `handler` and `group` are `Sendable`, the constants are immutable, and `shared` is a `Locked`
/// value; the methods other threads call (`deliver`, `park`, `post`, `shutdown`) touch nothing
/// else, apart from writing to the wake-up pipe, which they do only while holding `shared`'s lock
/// and only while the loop has not finished (the loop marks itself finished under that lock
/// before closing the pipe).
final class EventLoop: @unchecked Sendable {
    struct Delivery {
        enum Content {
            /// The handler's answer, to write.
            case response(ServerResponse)
            /// The handler's task ended with a pending answer: the connection waits with no task.
            case parked(PendingResponse)
            /// A connection the listening loop accepted and counted toward the limit, now this loop's.
            case adopt(Int32)
            /// A connection accepted at the limit: close an idle one to take it, or refuse it.
            case makeRoom(Int32, hops: Int)
            /// The listening loop is out of descriptors: close the connection idle longest.
            case evictIdle
        }

        var connectionID: UInt64
        var content: Content
    }

    struct Shared {
        var inbox: [Delivery] = []
        var stopRequested = false
        var finished = false
        var stopWaiters: [CheckedContinuation<[Task<Void, Never>], Never>] = []
        /// The handler tasks still running when the loop finished, for a `shutdown` that comes later.
        var leftoverTasks: [Task<Void, Never>] = []
    }

    /// Bytes buffered from a connection whose request is with the handler before reading pauses.
    let handlingInputCap: Int
    /// The most request bytes buffered across all connections (`maximumBufferedRequestBytes`).
    let bufferBudget: Int
    /// How many connections accepted over the limit may be answering `503` at once; beyond that
    /// a connection over the limit is closed without an answer.
    let maximumRefusals: Int
    static let wakeToken: UInt64 = 0
    static let listenerToken: UInt64 = 1

    let shared = Locked(Shared())
    /// The server's loops and the state they share (limits, idle hints, counters).
    let group: LoopGroup
    /// This loop's place among the group's loops.
    let index: Int
    let handler: any ServerHandler
    let configuration: HTTPServer.Configuration
    let limits: RequestParser.Limits
    /// Connection timeouts, and the earliest deadline among this loop's connections.
    var deadlines: ConnectionDeadlines
    let wakePipe: WakePipe

    // Loop-thread state.
    var listener: Int32
    var connections: [UInt64: Connection] = [:]
    /// The handler tasks started and not yet delivered, by connection (a slot lets go of its task
    /// when the task ends).
    var liveTasks: [UInt64: HandlerTaskSlot] = [:]
    /// Serializes delivered answers, once for the equal answers of a fan-out.
    var memo = ResponseMemo()
    /// Parked answers and changes of registered events, added to the statistics in batches.
    var counters = LoopCounters()
    var nextID: UInt64 = 16
    /// Request bytes buffered across all loops, as of this loop's last change to the total.
    var bufferedBytes = 0
    /// Connections that became idle, oldest first, with the `phaseClock` they had then.
    var idle: IdleQueue
    var acceptPausedUntil: UInt64 = 0
    var listenerRegistered = false
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    let poller: Poller
    var ready: [Poller.Ready] = []

    /// A loop; `listener` is the listening socket for the first loop of a server and -1 for the
    /// others. On failure the listener is closed.
    init(
        index: Int, listener: Int32, configuration: HTTPServer.Configuration, handler: any ServerHandler,
        group: LoopGroup
    ) throws(HTTPServerError) {
        let wakeEnds: WakePipe
        do {
            wakeEnds = try WakePipe()
        } catch {
            if listener >= 0 { close(listener) }
            throw error
        }
        do {
            self.poller = try Poller(backend: configuration.eventBackend)
        } catch {
            wakeEnds.closeBoth()
            if listener >= 0 { close(listener) }
            throw error
        }
        poller.add(wakeEnds.readEnd, token: Self.wakeToken, events: Int16(POLLIN))
        self.wakePipe = wakeEnds
        self.listener = listener
        self.index = index
        self.group = group
        self.idle = IdleQueue(publishesHints: group.count > 1)
        self.configuration = configuration
        self.handler = handler
        self.limits = RequestParser.Limits(
            requestLine: configuration.maximumRequestLineBytes, headers: configuration.maximumHeaderBytes,
            body: configuration.maximumBodyBytes)
        self.deadlines = ConnectionDeadlines(configuration)
        self.handlingInputCap = configuration.maximumRequestLineBytes + configuration.maximumHeaderBytes
        self.bufferBudget = configuration.maximumBufferedRequestBytes
        self.maximumRefusals = DescriptorBudget.refusalSlots(configuration.maximumConnections)
    }

    // MARK: - Called from other threads

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = index == 0 ? "EmulatorHTTP.HTTPServer" : "EmulatorHTTP.HTTPServer.\(index)"
        thread.start()
    }

    /// Closes the descriptors of a loop that was created but never started.
    func abandon() {
        if listener >= 0 { close(listener) }
        listener = -1
        wakePipe.closeBoth()
    }

    /// Hands a handler's response to the loop. Dropped if the loop has finished.
    func deliver(_ response: ServerResponse, to connectionID: UInt64) {
        shared.withLock { shared in
            guard !shared.finished else { return }
            shared.inbox.append(Delivery(connectionID: connectionID, content: .response(response)))
            if shared.inbox.count == 1 { wake() }
        }
    }

    /// Hands the loop a handler's pending answer, then lets the answer through to `deliver` once
    /// completed. The loop learns of the parking before of the answer (same inbox, in order), so it
    /// can tell a closed connection's pending answer to stop waiting.
    func park(_ pending: PendingResponse, for connectionID: UInt64) {
        guard post(Delivery(connectionID: connectionID, content: .parked(pending))) else {
            pending.cancel()
            return
        }
        pending.bind { [weak self] response in
            guard let response else { return }
            self?.deliver(response, to: connectionID)
        }
    }

    /// Counts a handler task's end (its closure returned), for ``HTTPServer/Statistics``.
    func handlerTaskEnded() {
        group.withLock { $0.statistics.handlerTasksRunning -= 1 }
    }

    /// Asks the loop to stop and waits until it has closed everything; returns the handler tasks
    /// that were still running, for the caller to await.
    func shutdown() async -> [Task<Void, Never>] {
        await withCheckedContinuation { continuation in
            let leftover = shared.withLock { shared -> [Task<Void, Never>]? in
                guard !shared.finished else {
                    defer { shared.leftoverTasks = [] }
                    return shared.leftoverTasks
                }
                shared.stopWaiters.append(continuation)
                shared.stopRequested = true
                wake()
                return nil
            }
            if let leftover { continuation.resume(returning: leftover) }
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
    func wake() {
        wakePipe.signal()
    }

    // MARK: - The loop

    func run() {
        loop: while true {
            updateListenerRegistration(now: Socket.now())
            let timeout = deadlines.pollTimeout(now: Socket.now(), wakeAt: acceptPausedUntil)
            guard poller.wait(timeout: timeout, into: &ready) else { break loop }
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
            if let earliest = deadlines.earliest, earliest <= now { expireDeadlines(now: now) }
        }
        finish()
    }

    /// Watches the listener unless accepting is paused after running out of descriptors with no
    /// idle connection to give up. Connections over the limit are still accepted, to be answered
    /// at once (see `acceptConnections`), never left waiting in the backlog.
    func updateListenerRegistration(now: UInt64) {
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

    /// The events a connection's phase calls for, reading paused while it is handled once enough
    /// is buffered (on it, or across all connections).
    func interest(of connection: Connection) -> Int16 {
        connection.interest(handlingInputCap: handlingInputCap, overBudget: bufferedBytes >= bufferBudget)
    }

    /// Brings a connection's registration and the earliest deadline up to date after it changed.
    func refresh(_ connection: Connection) {
        guard connections[connection.id] != nil else { return }
        account(connection)
        let wanted = interest(of: connection)
        if wanted != connection.registeredEvents {
            counters.interestChanges += 1
            poller.modify(connection.fd, token: connection.id, events: wanted)
            connection.registeredEvents = wanted
        }
        deadlines.track(connection)
    }

    /// Returns true when the loop must stop.
    func drainWakePipeAndInbox(now: UInt64) -> Bool {
        wakePipe.drain()
        let (deliveries, stop) = shared.withLock { shared -> ([Delivery], Bool) in
            let taken = shared.inbox
            shared.inbox.removeAll()
            return (taken, shared.stopRequested)
        }
        if stop {
            discard(deliveries)
            return true
        }
        defer { publishParked() }
        for delivery in deliveries {
            let response: ServerResponse
            switch delivery.content {
            case .adopt(let fd):
                adoptCounted(fd, now: now)
                continue
            case .makeRoom(let fd, let hops):
                makeRoom(for: fd, hops: hops, now: now)
                continue
            case .evictIdle:
                _ = evictIdleConnection(keepingSlot: false)
                continue
            case .parked(let pending):
                liveTasks[delivery.connectionID] = nil
                guard let connection = connections[delivery.connectionID], connection.phase == .handling else {
                    // The client left while the handler was still deciding to park.
                    pending.cancel()
                    continue
                }
                connection.task = nil
                connection.pending = pending
                counters.parked += 1
                connection.releaseRequestState()
                let kept = connection.retainedRequestBytes
                group.withLock { $0.statistics.lastParkedRequestBytes = kept }
                continue
            case .response(let answer):
                liveTasks[delivery.connectionID] = nil
                response = answer
            }
            guard let connection = connections[delivery.connectionID], connection.phase == .handling,
                let head = connection.head
            else { continue }
            connection.task = nil
            if connection.pending != nil {
                connection.pending = nil
                counters.parked -= 1
            }
            // A fan-out hands over N equal answers (one body, shared): serialized once for all.
            let output = memo.output(for: response, head: head)
            beginWriting(connection, bytes: output.bytes, closeAfter: output.closeAfter, now: now)
            refresh(connection)
        }
        return false
    }

    /// Forgets `connection`'s pending answer (delivered, or the connection is closing).
    func unpark(_ connection: Connection) {
        connection.pending = nil
        counters.parked -= 1
        publishParked()
    }

    /// Brings the statistics' count of parked answers up to date with this loop's.
    func publishParked() {
        guard let change = counters.takeParkedChange() else { return }
        group.withLock { $0.statistics.parkedResponses += change }
    }

    func finish() {
        if listener >= 0 {
            if listenerRegistered { poller.remove(listener) }
            close(listener)
            listener = -1
        }
        for connection in Array(connections.values) { closeConnection(connection) }
        poller.remove(wakePipe.readEnd)
        let tasks = liveTasks.values.compactMap(\.running)
        liveTasks.removeAll()
        let (waiters, leftover) = shared.withLock { shared in
            shared.finished = true
            let leftover = shared.inbox
            shared.inbox.removeAll()
            let waiters = shared.stopWaiters
            shared.stopWaiters.removeAll()
            if waiters.isEmpty { shared.leftoverTasks = tasks }
            return (waiters, leftover)
        }
        discard(leftover)
        wakePipe.closeBoth()
        publish(idle.updateHint(nil))
        group.loopFinished()
        for waiter in waiters { waiter.resume(returning: tasks) }
    }
}
