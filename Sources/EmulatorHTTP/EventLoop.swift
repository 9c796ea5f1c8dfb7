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
/// the loops in turn (see `EventLoop+Group.swift`). A request the handler answers at once
/// (``ServerHandler/respondImmediately(to:)``) is answered on the thread of the loop owning its
/// connection; every other request runs as a task, whose response comes back to that loop through
/// a locked inbox and a byte on the wake-up pipe.
///
/// `@unchecked Sendable` is safe: every stored property except `shared`, `group`, `handler` and
/// the constants is touched only by the loop thread (inside `run()` and what it calls), apart from
/// `peers`, set once before the thread starts. `handler` is `Sendable`, the constants are
/// immutable, and `shared` and `group` are `Locked` values; the methods other threads call
/// (`deliver`, `park`, `post`, `shutdown`) touch nothing else, apart from writing to the wake-up
/// pipe, which they do only while holding `shared`'s lock and only while the loop has not finished
/// (the loop marks itself finished under that lock before closing the pipe).
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

    /// How long a closing connection may keep sending before it is closed anyway.
    static let lingerNanoseconds: UInt64 = 2_000_000_000
    /// Bytes buffered from a connection whose request is with the handler before reading pauses.
    let handlingInputCap: Int
    /// The most request bytes buffered across all connections (`maximumBufferedRequestBytes`).
    let bufferBudget: Int
    /// How many connections accepted over the limit may be answering `503` at once; beyond that
    /// a connection over the limit is closed without an answer.
    let maximumRefusals: Int
    static let readHangUp = Poller.readHangUp
    static let wakeToken: UInt64 = 0
    static let listenerToken: UInt64 = 1

    let shared = Locked(Shared())
    /// The state every loop of the server shares (limits, idle hints, counters).
    let group: Locked<LoopGroupState>
    /// This loop's place among `peers`.
    let index: Int
    let handler: any ServerHandler
    let configuration: HTTPServer.Configuration
    let limits: RequestParser.Limits
    let idleNanoseconds: UInt64
    let requestNanoseconds: UInt64
    let sendNanoseconds: UInt64
    let wakeRead: Int32
    let wakeWrite: Int32

    // Loop-thread state.
    /// Every loop of the server, this one included, in order; set before the threads start and
    /// emptied when the loop finishes (the loops refer to each other).
    var peers: [EventLoop] = []
    /// The loop the next accepted connection goes to (the listening loop only).
    var nextTarget = 0
    /// What this loop last told `group` about its longest-idle connection.
    var publishedIdleHint: UInt64?
    var listener: Int32
    var connections: [UInt64: Connection] = [:]
    var liveTasks: [UInt64: Task<Void, Never>] = [:]
    /// Connections whose answer is parked (a ``PendingResponse`` with no task behind it).
    var parkedCount = 0
    /// The last answer from a task or a parked request, as serialized: kept for the next
    /// delivery, which in a fan-out is the same answer for another connection.
    var lastSerialized: (response: ServerResponse, head: RequestHead, output: ResponseSerializer.Output)?
    /// Delivered answers serialized, and changes of a connection's registered events; added to the
    /// statistics with each response sent (tests count them), the `published` ones as of then.
    var serializedCount = 0
    var interestChangeCount = 0
    var publishedSerialized = 0
    var publishedInterestChanges = 0
    /// `parkedCount` as last added to the statistics.
    var publishedParked = 0
    var nextID: UInt64 = 16
    /// Request bytes buffered across all loops, as of this loop's last change to the total.
    var bufferedBytes = 0
    /// Connections that became idle, oldest first, with the `phaseClock` they had then; an entry
    /// is stale once its connection is gone, busy, or idle again since a later time.
    var idleQueue: [(id: UInt64, since: UInt64)] = []
    var idleHead = 0
    var acceptPausedUntil: UInt64 = 0
    var listenerRegistered = false
    /// No connection deadline falls before this (it may be earlier than the true earliest, never later).
    var earliestDeadline: UInt64?
    var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    let poller: Poller
    var ready: [Poller.Ready] = []

    /// A loop; `listener` is the listening socket for the first loop of a server and -1 for the
    /// others. On failure the listener is closed.
    init(
        index: Int, listener: Int32, configuration: HTTPServer.Configuration, handler: any ServerHandler,
        group: Locked<LoopGroupState>
    ) throws(HTTPServerError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let code = Socket.lastError
            if listener >= 0 { close(listener) }
            throw HTTPServerError(code: .systemCallFailed, message: "pipe(): \(Socket.describe(code))")
        }
        for end in pipeEnds {
            Socket.setCloseOnExec(end)
            _ = Socket.setNonBlocking(end)
        }
        do {
            self.poller = try Poller(backend: configuration.eventBackend)
        } catch {
            for fd in pipeEnds + [listener] where fd >= 0 { close(fd) }
            throw error
        }
        poller.add(pipeEnds[0], token: Self.wakeToken, events: Int16(POLLIN))
        self.wakeRead = pipeEnds[0]
        self.wakeWrite = pipeEnds[1]
        self.listener = listener
        self.index = index
        self.group = group
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
        self.maximumRefusals = DescriptorBudget.refusalSlots(configuration.maximumConnections)
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let whole = UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if whole.overflow { return UInt64.max / 2 }
        return min(UInt64.max / 2, whole.partialValue + UInt64(attoseconds / 1_000_000_000))
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
        close(wakeRead)
        close(wakeWrite)
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
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: - The loop

    func run() {
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

    /// The events a connection's phase calls for.
    func interest(of connection: Connection) -> Int16 {
        switch connection.phase {
        case .reading:
            // The hang-up bit as while handling: a connection going back and forth between the
            // two (every held long-poll, every answer) then needs no `epoll_ctl` for it.
            return connection.hasPendingOutput
                ? Int16(POLLIN | POLLOUT) | Self.readHangUp : Int16(POLLIN) | Self.readHangUp
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
    func refresh(_ connection: Connection) {
        guard connections[connection.id] != nil else { return }
        account(connection)
        let wanted = interest(of: connection)
        if wanted != connection.registeredEvents {
            interestChangeCount += 1
            poller.modify(connection.fd, token: connection.id, events: wanted)
            connection.registeredEvents = wanted
        }
        if let deadline = deadline(of: connection) { earliestDeadline = min(earliestDeadline ?? deadline, deadline) }
    }

    func deadline(of connection: Connection) -> UInt64? {
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

    func pollTimeout(now: UInt64) -> Int32 {
        var earliest = earliestDeadline
        if acceptPausedUntil > now { earliest = min(earliest ?? acceptPausedUntil, acceptPausedUntil) }
        guard let earliest else { return -1 }
        guard earliest > now else { return 0 }
        let milliseconds = (earliest - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, 60_000))
    }

    /// Returns true when the loop must stop.
    func drainWakePipeAndInbox(now: UInt64) -> Bool {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(wakeRead, &sink, sink.count) > 0 {}
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
                parkedCount += 1
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
                parkedCount -= 1
            }
            let output: ResponseSerializer.Output
            // A fan-out hands over N equal answers (one body, shared): serialized once for all.
            if let reused = lastSerialized, Self.serializeAlike(reused.response, response),
                Self.sameFraming(reused.head, head)
            {
                output = reused.output
            } else {
                output = ResponseSerializer.serialize(
                    response, method: head.method, keepAlive: head.keepAlive,
                    announcesKeepAlive: head.minorVersion == 0)
                serializedCount += 1
                lastSerialized = (response, head, output)
            }
            beginWriting(connection, bytes: output.bytes, closeAfter: output.closeAfter, now: now)
            refresh(connection)
        }
        return false
    }

    /// Whether `a` and `b` serialize to the same bytes: equal fields and the very same body
    /// storage (a fan-out's shared body), so the check costs no comparison of body bytes.
    static func serializeAlike(_ a: ServerResponse, _ b: ServerResponse) -> Bool {
        guard a.status == b.status, a.framing == b.framing, a.fault == b.fault, a.body.count == b.body.count,
            a.headers.count == b.headers.count
        else { return false }
        let sameBody = a.body.withUnsafeBufferPointer { x in
            b.body.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress }
        }
        guard sameBody else { return false }
        for (x, y) in zip(a.headers, b.headers) where x.name != y.name || x.value != y.value { return false }
        return true
    }

    /// Whether two requests' heads frame an answer alike (method, keep-alive, HTTP version).
    static func sameFraming(_ a: RequestHead, _ b: RequestHead) -> Bool {
        a.method == b.method && a.keepAlive == b.keepAlive && (a.minorVersion == 0) == (b.minorVersion == 0)
    }

    /// Forgets `connection`'s pending answer (delivered, or the connection is closing).
    func unpark(_ connection: Connection) {
        connection.pending = nil
        parkedCount -= 1
        publishParked()
    }

    /// Brings the statistics' count of parked answers up to date with this loop's.
    func publishParked() {
        guard parkedCount != publishedParked else { return }
        let change = parkedCount - publishedParked
        publishedParked = parkedCount
        group.withLock { $0.statistics.parkedResponses += change }
    }

    func finish() {
        if listener >= 0 {
            if listenerRegistered { poller.remove(listener) }
            close(listener)
            listener = -1
        }
        for connection in Array(connections.values) { closeConnection(connection) }
        poller.remove(wakeRead)
        let tasks = Array(liveTasks.values)
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
        close(wakeRead)
        close(wakeWrite)
        publishIdleHint(nil)
        peers = []
        for waiter in waiters { waiter.resume(returning: tasks) }
    }
}
