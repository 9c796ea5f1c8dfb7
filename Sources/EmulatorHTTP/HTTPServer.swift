import Foundation
import PubNubBase

/// The emulator's HTTP/1.1 server: POSIX sockets, event-loop threads (two on a machine with two
/// cores or more), async handlers.
///
/// The server accepts connections on a loopback address by default, parses HTTP/1.1 requests
/// strictly (see `Documentation/EmulatorHTTPServer.md` for every rule and status code), and hands
/// each complete request to a ``ServerHandler`` in a task of its own. A handler may take as long as
/// it likes (long-polls hold requests for minutes); while it runs, the connection costs one file
/// descriptor and a few hundred bytes, and no thread. If the client disconnects, or the server
/// stops, the handler's task is cancelled. A handler can also park a request
/// (``ServerHandler/reply(to:)`` returning a ``PendingResponse``): its task ends, and the answer is
/// sent whenever the pending response is completed, or the pending response is cancelled when the
/// client goes away.
///
/// All socket I/O runs on dedicated threads (not on Swift's cooperative pool) that wait in epoll
/// or `poll(2)`, so no cooperative thread ever blocks on the network. With several event loops
/// (``Configuration/eventLoops``) each connection belongs to one of them from accept to close,
/// and its answers are written by that loop's thread; the limits (connections, buffered bytes)
/// and the ``statistics`` are the server's, across its loops.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(), handler: HTTPTestingHandler())
/// try await server.start()
/// let port = try #require(server.port)      // an ephemeral port chosen by the system
/// // ... talk to http://127.0.0.1:\(port)/echo ...
/// await server.stop()
/// ```
///
/// A server is single-use: ``start()`` once, ``stop()`` once (later calls return at once).
/// `HTTPServer` is safe to use from any thread or task.
public final class HTTPServer: Sendable {
    /// Settings of a server: address, limits and timeouts.
    public struct Configuration: Sendable, Hashable {
        /// The address to listen on: an IPv4 or IPv6 literal (`127.0.0.1`, `::1`) or `localhost`
        /// (which means `127.0.0.1`). Default `127.0.0.1`: loopback only.
        public var host: String
        /// The port to listen on; 0 (the default) lets the system choose a free one, reported by
        /// ``HTTPServer/port`` after ``HTTPServer/start()``.
        public var port: UInt16
        /// The longest request line accepted, in bytes; longer gets `414 URI Too Long`. Default 32 KiB.
        public var maximumRequestLineBytes: Int
        /// The largest header section (or chunked trailer section) accepted, in bytes; larger gets
        /// `431 Request Header Fields Too Large`. Default 64 KiB.
        public var maximumHeaderBytes: Int
        /// The largest request body accepted, in bytes; larger gets `413 Content Too Large`.
        /// Default 32 MiB.
        public var maximumBodyBytes: Int
        /// How long a connection may sit between requests (or before its first) without sending a
        /// byte before the server closes it. Default 60 seconds.
        public var idleTimeout: Duration
        /// How long a client may take to send a whole request (head and body) once it has sent its
        /// first byte; a slower client gets `408 Request Timeout`. Default 30 seconds.
        public var requestTimeout: Duration
        /// How long the server waits for a client to accept more response bytes before giving up
        /// on the connection. Default 30 seconds.
        public var sendTimeout: Duration
        /// The most connections open at once. A connection arriving at the limit closes the
        /// connection that has been idle (between requests, nothing buffered) the longest; when
        /// none is idle it is answered at once with `503 Service Unavailable` and `Retry-After: 1`
        /// and closed, so no client waits unanswered in the listen backlog. Default 16,384
        /// (room for 10,000 held long-polls).
        ///
        /// Each connection is a file descriptor. ``HTTPServer/start()`` raises the process's soft
        /// `RLIMIT_NOFILE` up to its hard limit when the limit is too low for this many (plus a
        /// sixteenth for refusals in flight and 64 spare); when even the hard limit is too low it
        /// serves fewer, says so once on standard error, and ``HTTPServer/connectionLimit`` tells
        /// how many.
        public var maximumConnections: Int
        /// The most request bytes buffered across all connections at once: request heads and
        /// bodies being received, a body counting at its declared `Content-Length` from its head
        /// on. A request that would go over it is answered `503 Service Unavailable` with
        /// `Retry-After: 1` (a declared body before any byte of it is read, and before
        /// `100 Continue`) and its connection closed. Default 256 MiB, so many connections each
        /// sending a body near ``maximumBodyBytes`` cannot exhaust memory.
        public var maximumBufferedRequestBytes: Int
        /// The listen backlog passed to `listen(2)`. Default 1,024.
        public var listenBacklog: Int
        /// How many event-loop threads serve the connections, from 1 to 8. Default: 2, or 1 on a
        /// machine with one active core.
        ///
        /// Connections are dealt out to the loops in turn as they are accepted, and each stays on
        /// its loop. More than one loop lets a fan-out (one publish answering thousands of held
        /// long-polls) write its answers from several cores at once; with one loop every
        /// connection shares one thread, as a server for a few clients needs. Each loop costs a
        /// thread, a wake-up pipe and a poller (three file descriptors).
        public var eventLoops: Int
        /// The readiness mechanism (epoll on Linux unless told to use `poll(2)`), for measurements.
        package var eventBackend: EventBackend = .automatic

        /// Creates a configuration; every limit and timeout starts at its documented default.
        ///
        /// - Parameters:
        ///   - host: The address to listen on: an IPv4 or IPv6 literal, or `localhost`; loopback
        ///     `127.0.0.1` by default.
        ///   - port: The port to listen on; 0 (the default) lets the system choose, read it from
        ///     ``HTTPServer/port`` after starting.
        public init(host: String = "127.0.0.1", port: UInt16 = 0) {
            self.host = host
            self.port = port
            self.maximumRequestLineBytes = 32 * 1024
            self.maximumHeaderBytes = 64 * 1024
            self.maximumBodyBytes = 32 * 1024 * 1024
            self.idleTimeout = .seconds(60)
            self.requestTimeout = .seconds(30)
            self.sendTimeout = .seconds(30)
            self.maximumConnections = 16_384
            self.maximumBufferedRequestBytes = 256 * 1024 * 1024
            self.listenBacklog = 1024
            self.eventLoops = Self.defaultEventLoops
        }

        /// Two loops where two cores are active, one on a single core.
        static let defaultEventLoops = min(2, max(1, ProcessInfo.processInfo.activeProcessorCount))
        /// The most event loops a server runs: each takes three of the 64 descriptors the
        /// connection limit's check keeps spare (see `DescriptorBudget`), so more would crowd out
        /// the files the process opens, for no gain on the machines the emulator serves.
        static let maximumEventLoops = 8
    }

    /// Counters a test can read to check connection handling, for example keep-alive reuse
    /// (many requests, few ``connectionsAccepted``).
    public struct Statistics: Sendable, Hashable {
        /// Connections accepted since ``HTTPServer/start()``.
        public var connectionsAccepted: Int = 0
        /// Connections open right now.
        public var openConnections: Int = 0
        /// Complete requests handed to the handler (or answered by the server itself with an error).
        public var requestsReceived: Int = 0
        /// Responses whose last byte was written.
        public var responsesSent: Int = 0
        /// Requests the handler answered at once on the server's thread
        /// (``ServerHandler/respondImmediately(to:)``), counted in ``requestsReceived`` too.
        public var requestsAnsweredImmediately: Int = 0
        /// Handler tasks cancelled because their client went away or the server stopped.
        public var handlersCancelled: Int = 0
        /// Handler tasks started whose code has not returned yet: a parked request has none.
        package var handlerTasksRunning: Int = 0
        /// Requests whose answer is parked now (``ServerReply/pending(_:)``), waiting with no task.
        package var parkedResponses: Int = 0
        /// Parked answers cancelled because their client went away or the server stopped.
        package var parkedResponsesCancelled: Int = 0
        /// Request bytes (input buffer, parsed head and body) the connection parked last kept once
        /// parked: only what frames its answer, and pipelined bytes not parsed yet.
        package var lastParkedRequestBytes: Int = 0
        /// Answers from tasks or parked requests serialized: N equal answers in a row (a fan-out)
        /// are serialized once. As of the last response sent.
        package var deliveriesSerialized: Int = 0
        /// Changes of the events a connection is registered for (`epoll_ctl` calls on Linux). As of
        /// the last response sent.
        package var interestChanges: Int = 0
        /// Connections answered `503` (or closed) because the connection limit was reached and
        /// none was idle.
        public var connectionsRefused: Int = 0
        /// Idle connections closed to make room for a new one at the connection limit (or when
        /// the process ran out of file descriptors).
        public var idleConnectionsEvicted: Int = 0
        /// Connections each event loop has taken on since ``HTTPServer/start()``, by loop (refusals
        /// not counted): how the connections were spread.
        package var connectionsPerLoop: [Int] = []
        /// Requests answered `503` because the buffered-request-bytes limit was reached.
        public var requestsRefusedForBufferLimit: Int = 0
        /// Request bytes buffered across all connections now, declared bodies included: what
        /// `maximumBufferedRequestBytes` limits. Tests wait on it instead of on the clock.
        package var bufferedRequestBytes: Int = 0

        /// Creates zeroed statistics.
        public init() {}
    }

    private enum State {
        case idle
        case running([EventLoop], port: UInt16)
        case stopped([EventLoop], port: UInt16?)
    }

    /// The configuration the server was created with.
    public let configuration: Configuration
    private let handler: any ServerHandler
    private let state = Locked(State.idle)
    private let descriptors: DescriptorEnvironment

    /// Creates a server that answers requests with `handler`. Nothing is bound until ``start()``.
    ///
    /// - Parameters:
    ///   - configuration: Address, port, limits and timeouts; by default an ephemeral port on
    ///     `127.0.0.1`.
    ///   - handler: Answers every request that parses: at once on the server's thread when its
    ///     ``ServerHandler/respondImmediately(to:)`` does, otherwise in a task of its own, cancelled
    ///     when the client leaves.
    public convenience init(configuration: Configuration = Configuration(), handler: any ServerHandler) {
        self.init(configuration: configuration, handler: handler, descriptors: .system)
    }

    /// A server whose file-descriptor limit check reads and raises `descriptors` instead of the
    /// process's `RLIMIT_NOFILE`, for tests.
    package init(configuration: Configuration, handler: any ServerHandler, descriptors: DescriptorEnvironment) {
        self.configuration = configuration
        self.handler = handler
        self.descriptors = descriptors
    }

    deinit {
        // A server dropped without stop(): ask its loops to close everything (without waiting),
        // so the threads and sockets do not outlive it.
        state.withLock { state in
            if case .running(let loops, _) = state {
                for loop in loops { loop.requestStop() }
            }
        }
    }

    /// The port the server is bound to, once ``start()`` has returned; `nil` before.
    public var port: UInt16? {
        state.withLock { state in
            switch state {
            case .idle: return nil
            case .running(_, let port): return port
            case .stopped(_, let port): return port
            }
        }
    }

    /// The connection limit in force once ``start()`` has returned: the configuration's
    /// ``Configuration/maximumConnections``, or fewer when the process's file-descriptor limit
    /// cannot hold that many even after raising its soft limit to the hard one. `nil` before.
    public var connectionLimit: Int? {
        loops.first?.configuration.maximumConnections
    }

    /// The server's counters, across its event loops; zero before ``start()``.
    public var statistics: Statistics {
        loops.first?.group.withLock { $0.statistics } ?? Statistics()
    }

    private var loops: [EventLoop] {
        state.withLock { state in
            switch state {
            case .idle: return []
            case .running(let loops, _): return loops
            case .stopped(let loops, _): return loops
            }
        }
    }

    /// Binds the configured address, starts listening and starts the event-loop threads.
    ///
    /// When this returns, connections are accepted and ``port`` holds the bound port.
    /// - Throws: ``HTTPServerError`` with ``HTTPServerError/Code/alreadyStarted`` on a second call,
    ///   ``HTTPServerError/Code/invalidAddress`` or ``HTTPServerError/Code/bindFailed`` when the
    ///   address cannot be used, ``HTTPServerError/Code/invalidConfiguration`` for a limit below 1.
    public func start() async throws {
        try validate(configuration)
        var configuration = self.configuration
        let (limits, raise) = descriptors.read()
        if let limits {
            let budget = DescriptorBudget.plan(
                maximumConnections: configuration.maximumConnections, limits: limits, raise: raise)
            configuration.maximumConnections = budget.maximumConnections
            if let warning = budget.warning { descriptors.report(warning) }
        }
        let outcome: Result<Void, HTTPServerError> = state.withLock { state in
            guard case .idle = state else {
                return .failure(
                    HTTPServerError(code: .alreadyStarted, message: "an HTTPServer can be started only once"))
            }
            do throws(HTTPServerError) {
                let listener = try Socket.makeListener(
                    host: configuration.host, port: configuration.port,
                    backlog: Int32(clamping: configuration.listenBacklog))
                let loops = try Self.makeLoops(listener: listener.fd, configuration: configuration, handler: handler)
                for loop in loops { loop.start() }
                state = .running(loops, port: listener.port)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    /// Stops the server: closes the listening socket, cancels the task of every request still
    /// being handled, closes every connection, and returns once all are closed and every handler
    /// task has finished.
    ///
    /// Responses still being written are cut off; this is an immediate stop, not a drain.
    /// Handlers must honour cancellation (for example by awaiting `Task.sleep` or checking
    /// `Task.isCancelled`); `stop()` waits for them. Calling `stop()` on a server never started,
    /// or a second time, returns at once.
    public func stop() async {
        let loops: [EventLoop] = state.withLock { state in
            switch state {
            case .idle:
                state = .stopped([], port: nil)
                return []
            case .running(let loops, let port):
                state = .stopped(loops, port: port)
                return loops
            case .stopped:
                return []
            }
        }
        // Every loop stops at once; each then closes its own connections.
        for loop in loops { loop.requestStop() }
        var tasks: [Task<Void, Never>] = []
        for loop in loops { tasks += await loop.shutdown() }
        for task in tasks { await task.value }
    }

    /// The loops of a server: the first owns `listener`. On failure every descriptor is closed.
    private static func makeLoops(
        listener: Int32, configuration: Configuration, handler: any ServerHandler
    ) throws(HTTPServerError) -> [EventLoop] {
        let count = configuration.eventLoops
        let group = LoopGroup(loopCount: count)
        var loops: [EventLoop] = []
        do throws(HTTPServerError) {
            for index in 0..<count {
                loops.append(
                    try EventLoop(
                        index: index, listener: index == 0 ? listener : -1, configuration: configuration,
                        handler: handler, group: group))
            }
        } catch {
            for loop in loops { loop.abandon() }
            throw error
        }
        group.attach(loops)
        return loops
    }

    private func validate(_ configuration: Configuration) throws(HTTPServerError) {
        let limits = [
            ("maximumRequestLineBytes", configuration.maximumRequestLineBytes),
            ("maximumHeaderBytes", configuration.maximumHeaderBytes),
            ("maximumConnections", configuration.maximumConnections),
            ("maximumBufferedRequestBytes", configuration.maximumBufferedRequestBytes),
            ("listenBacklog", configuration.listenBacklog),
            ("eventLoops", configuration.eventLoops),
        ]
        for (name, value) in limits where value < 1 {
            throw HTTPServerError(code: .invalidConfiguration, message: "\(name) must be at least 1, got \(value)")
        }
        if configuration.eventLoops > Configuration.maximumEventLoops {
            throw HTTPServerError(
                code: .invalidConfiguration,
                message:
                    "eventLoops must be at most \(Configuration.maximumEventLoops), got \(configuration.eventLoops)")
        }
        if configuration.maximumBodyBytes < 0 {
            throw HTTPServerError(code: .invalidConfiguration, message: "maximumBodyBytes must not be negative")
        }
        let timeouts = [
            ("idleTimeout", configuration.idleTimeout), ("requestTimeout", configuration.requestTimeout),
            ("sendTimeout", configuration.sendTimeout),
        ]
        for (name, value) in timeouts where value <= .zero {
            throw HTTPServerError(code: .invalidConfiguration, message: "\(name) must be positive")
        }
    }
}
