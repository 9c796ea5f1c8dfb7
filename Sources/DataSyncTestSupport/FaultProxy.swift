import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP proxy on the loopback interface that forwards to a local server and misbehaves on
/// command: it resets connections, swallows traffic, adds latency, cuts answers short, stalls
/// answers and refuses connections, so tests and benchmarks see what a client does on a hostile
/// network.
///
/// Point the client at ``port`` instead of the server's port, then change the fault at any time
/// (``set(_:)``) or let ``run(_:repeating:clock:)`` cycle through a schedule. Every fault acts on
/// connections that are already open as well as on new ones, within about 10 ms.
///
/// ```swift
/// let proxy = try FaultProxy(upstreamPort: emulatorPort)
/// defer { proxy.stop() }
/// // configure the client with origin "127.0.0.1:\(proxy.port)"
/// proxy.set(.blackhole)          // the long-poll now hears nothing
/// proxy.set(.none)               // and the network is back
/// ```
///
/// Loopback only: it listens on `127.0.0.1` and connects to `127.0.0.1`. Each connection is relayed
/// by a thread of its own; it is a test tool, not a production proxy.
public final class FaultProxy: @unchecked Sendable {
    // @unchecked Sendable: every mutable field below is read and written only while holding
    // `state`'s lock (an NSCondition); the descriptors a relay thread uses are owned by that thread.

    /// What the proxy does to traffic.
    public enum Fault: Sendable, Hashable, CustomStringConvertible {
        /// Forward everything unchanged.
        case none
        /// Reset every open connection (TCP RST) and every new one as soon as it is accepted.
        case reset
        /// Forward nothing in either direction and do not connect new clients to the server: the
        /// client's requests go unanswered, as behind a dead link. Traffic held in the kernel's
        /// buffers flows again when the fault ends, as TCP retransmission would deliver it.
        case blackhole
        /// Forward everything, each chunk after this delay.
        case latency(Duration)
        /// Forward each answer's header and the first half of its body (by `Content-Length`),
        /// then close the connection: a body cut short mid-way.
        case truncate
        /// Forward requests to the server but hold its answers until the fault ends.
        case stall
        /// Refuse new connections (the client's connect fails with "connection refused");
        /// connections already open keep working.
        case refuse

        /// A short name: `none`, `reset`, `blackhole`, `latency(0.2 seconds)`, `truncate`, `stall`,
        /// `refuse`.
        public var description: String {
            switch self {
            case .none: "none"
            case .reset: "reset"
            case .blackhole: "blackhole"
            case .latency(let delay): "latency(\(delay))"
            case .truncate: "truncate"
            case .stall: "stall"
            case .refuse: "refuse"
            }
        }
    }

    /// One entry of a schedule: a fault and how long it lasts.
    public struct Step: Sendable, Hashable {
        /// The fault in force during this step.
        public var fault: Fault
        /// How long the step lasts, on the schedule's clock.
        public var duration: Duration

        /// Creates a step.
        public init(_ fault: Fault, for duration: Duration) {
            self.fault = fault
            self.duration = duration
        }
    }

    /// What the proxy has done so far.
    public struct Statistics: Sendable, Hashable {
        /// Connections accepted from clients.
        public var accepted = 0
        /// Connections reset by ``Fault/reset``.
        public var resets = 0
        /// Answers cut short by ``Fault/truncate``.
        public var truncated = 0
        /// Bytes forwarded from clients to the server.
        public var bytesUp = 0
        /// Bytes forwarded from the server to clients.
        public var bytesDown = 0
    }

    /// The loopback port clients connect to.
    public let port: Int
    /// The loopback port of the server the proxy forwards to.
    public let upstreamPort: Int

    private let state = NSCondition()
    private var fault: Fault = .none
    private var stats = Statistics()
    private var stopped = false
    /// Whether the accept thread has applied the listening state `fault` asks for.
    private var listening = true
    private var listener: Int32
    private var waiters: [(predicate: @Sendable (Statistics) -> Bool, continuation: CheckedContinuation<Void, Never>)] =
        []

    /// Writing to a peer that already closed must fail with EPIPE, not end the process.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Starts a proxy on an ephemeral loopback port that forwards to `127.0.0.1:upstreamPort`.
    ///
    /// - Throws: ``FaultProxyError`` when the listening socket cannot be created.
    public init(upstreamPort: Int) throws {
        Self.ignoreBrokenPipes
        self.upstreamPort = upstreamPort
        let (socket, port) = try Self.listen(port: 0)
        self.listener = socket
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "FaultProxy.accept"
        thread.start()
    }

    /// The fault in force.
    public var currentFault: Fault {
        state.lock()
        defer { state.unlock() }
        return fault
    }

    /// What the proxy has done so far.
    public var statistics: Statistics {
        state.lock()
        defer { state.unlock() }
        return stats
    }

    /// Returns once ``statistics`` satisfy `predicate` (at once if they already do): a test waits
    /// for traffic to have reached the proxy without polling or sleeping.
    ///
    /// ```swift
    /// await proxy.waitUntil { $0.bytesUp > 0 }   // the request reached the proxy
    /// ```
    public func waitUntil(_ predicate: @escaping @Sendable (Statistics) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.lock()
            if predicate(stats) || stopped {
                state.unlock()
                continuation.resume()
                return
            }
            waiters.append((predicate, continuation))
            state.unlock()
        }
    }

    /// Puts `fault` in force. Returns once new connections see it: a refusal or its end has been
    /// applied to the listening socket; open connections follow within about 10 ms.
    public func set(_ fault: Fault) {
        state.lock()
        defer { state.unlock() }
        guard !stopped else { return }
        self.fault = fault
        let wantsListening = fault != .refuse
        let deadline = Date(timeIntervalSinceNow: 2)
        while listening != wantsListening, !stopped, Date() < deadline {
            _ = state.wait(until: deadline)
        }
    }

    /// Goes through `schedule` on `clock`, one step after another, and once more from the start
    /// while `repeating` is set and the calling task is not cancelled; ends with ``Fault/none``.
    ///
    /// - Throws: `CancellationError` when the task is cancelled (after restoring ``Fault/none``).
    public func run(
        _ schedule: [Step], repeating: Bool = false, clock: any Clock<Duration> = ContinuousClock()
    ) async throws {
        defer { set(.none) }
        repeat {
            for step in schedule {
                set(step.fault)
                try await clock.sleep(for: step.duration)
            }
        } while repeating && !schedule.isEmpty
    }

    /// Stops accepting and closes every connection (within about 10 ms). Safe to call more than
    /// once. Call it when done: the proxy's threads keep it alive until then.
    public func stop() {
        state.lock()
        stopped = true
        state.broadcast()
        let pending = waiters.map(\.continuation)
        waiters = []
        state.unlock()
        for continuation in pending { continuation.resume() }
    }

    // MARK: Accepting

    private func acceptLoop() {
        var placeholder: Int32 = -1
        while true {
            state.lock()
            if stopped {
                if listener >= 0 { close(listener) }
                if placeholder >= 0 { close(placeholder) }
                listener = -1
                state.unlock()
                return
            }
            let wantsListening = fault != .refuse
            if wantsListening != listening {
                applyListening(wantsListening, placeholder: &placeholder)
                state.broadcast()
            }
            let socket = listener
            state.unlock()
            guard socket >= 0, Self.pollReadable(socket, milliseconds: 10) else {
                if socket < 0 { usleep(10_000) }
                continue
            }
            let client = accept(socket, nil, nil)
            guard client >= 0 else { continue }
            Self.closeOnExec(client)
            Self.configure(client)
            count(\.accepted)
            let thread = Thread { [self] in relay(client: client) }
            thread.name = "FaultProxy.relay"
            thread.start()
        }
    }

    /// Closes or reopens the listening socket; called with the lock held. While refusing, a bound
    /// socket that never listens keeps the port, so no other server can take it and connects are
    /// refused by the kernel.
    private func applyListening(_ wantsListening: Bool, placeholder: inout Int32) {
        if wantsListening {
            guard let (socket, _) = try? Self.listen(port: port) else { return }
            listener = socket
            if placeholder >= 0 { close(placeholder) }
            placeholder = -1
            listening = true
        } else {
            placeholder = Self.bindOnly(port: port)
            if listener >= 0 { close(listener) }
            listener = -1
            listening = false
        }
    }

    // MARK: Relaying

    private func relay(client: Int32) {
        // A blackhole holds new clients without connecting them; a reset refuses them at once.
        while true {
            guard let fault = currentFaultOrStopped() else {
                close(client)
                return
            }
            if fault == .reset {
                Self.resetClose(client)
                count(\.resets)
                return
            }
            if fault != .blackhole { break }
            usleep(10_000)
        }
        guard let upstream = Self.connect(port: upstreamPort) else {
            Self.resetClose(client)
            return
        }
        var cutter = ResponseCutter()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            guard let fault = currentFaultOrStopped() else { break }
            if fault == .reset {
                Self.resetClose(client)
                Self.resetClose(upstream)
                count(\.resets)
                return
            }
            let readUp = fault != .blackhole
            let readDown = fault != .blackhole && fault != .stall
            let (clientReady, upstreamReady) = Self.poll(
                client, readUp, upstream, readDown, milliseconds: 10)
            if clientReady {
                let read = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                guard read > 0 else { break }
                if case .latency(let delay) = fault { Self.sleep(delay) }
                guard Self.writeAll(upstream, buffer[0..<read]) else { break }
                count(\.bytesUp, by: read)
            }
            if upstreamReady {
                let read = buffer.withUnsafeMutableBytes { recv(upstream, $0.baseAddress, $0.count, 0) }
                guard read > 0 else { break }
                if case .latency(let delay) = fault { Self.sleep(delay) }
                let (forward, cut) = cutter.feed(buffer[0..<read], truncating: fault == .truncate)
                guard Self.writeAll(client, forward) else { break }
                count(\.bytesDown, by: forward.count)
                if cut {
                    count(\.truncated)
                    break
                }
            }
        }
        close(client)
        close(upstream)
    }

    private func currentFaultOrStopped() -> Fault? {
        state.lock()
        defer { state.unlock() }
        return stopped ? nil : fault
    }

    private func count(_ field: WritableKeyPath<Statistics, Int>, by amount: Int = 1) {
        state.lock()
        stats[keyPath: field] += amount
        let snapshot = stats
        var ready: [CheckedContinuation<Void, Never>] = []
        waiters.removeAll { waiter in
            guard waiter.predicate(snapshot) else { return false }
            ready.append(waiter.continuation)
            return true
        }
        state.unlock()
        for continuation in ready { continuation.resume() }
    }

    // MARK: Sockets

    private static func listen(port: Int) throws -> (Int32, Int) {
        let socket = try makeSocket(reusingPort: true)
        guard bind(socket, port: port), startListening(socket) else {
            close(socket)
            throw FaultProxyError(message: "cannot listen on 127.0.0.1:\(port): errno \(errno)")
        }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard named == 0 else {
            close(socket)
            throw FaultProxyError(message: "getsockname failed: errno \(errno)")
        }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func startListening(_ socket: Int32) -> Bool {
        #if canImport(Glibc)
            return Glibc.listen(socket, 128) == 0
        #else
            return Darwin.listen(socket, 128) == 0
        #endif
    }

    /// A socket bound to `port` that never listens, or -1.
    private static func bindOnly(port: Int) -> Int32 {
        guard let socket = try? makeSocket(reusingPort: true) else { return -1 }
        guard bind(socket, port: port) else {
            close(socket)
            return -1
        }
        return socket
    }

    private static func makeSocket(reusingPort: Bool) throws -> Int32 {
        #if canImport(Glibc)
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw FaultProxyError(message: "socket() failed: errno \(errno)") }
        closeOnExec(socket)
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, size)
        if reusingPort { _ = setsockopt(socket, SOL_SOCKET, SO_REUSEPORT, &one, size) }
        return socket
    }

    private static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private static func bind(_ socket: Int32, port: Int) -> Bool {
        var address = loopbackAddress(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                    Glibc.bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                #else
                    Darwin.bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                #endif
            }
        }
    }

    private static func connect(port: Int) -> Int32? {
        guard let socket = try? makeSocket(reusingPort: false) else { return nil }
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                    Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                #else
                    Darwin.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                #endif
            }
        }
        guard connected else {
            close(socket)
            return nil
        }
        configure(socket)
        return socket
    }

    /// No delayed small writes, and no SIGPIPE on Apple platforms (Linux sends with MSG_NOSIGNAL).
    private static func configure(_ socket: Int32) {
        var one: Int32 = 1
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            _ = setsockopt(socket, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Keeps `socket` out of processes a test spawns: a child holding a copy would keep a
    /// connection the proxy resets or closes open, and the client would never see the fault.
    private static func closeOnExec(_ socket: Int32) {
        _ = fcntl(socket, F_SETFD, fcntl(socket, F_GETFD) | FD_CLOEXEC)
    }

    /// Closes `socket` with a TCP RST instead of an orderly FIN.
    private static func resetClose(_ socket: Int32) {
        var linger = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        close(socket)
    }

    private static func pollReadable(_ socket: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return pollEntries(&entry, 1, milliseconds) > 0 && entry.revents != 0
    }

    /// Waits up to `milliseconds` for the directions asked for; a side not asked for is never
    /// reported ready. Hang-ups and errors count as ready, so the next read sees them.
    private static func poll(
        _ first: Int32, _ watchFirst: Bool, _ second: Int32, _ watchSecond: Bool, milliseconds: Int32
    ) -> (Bool, Bool) {
        var entries = [
            pollfd(fd: watchFirst ? first : -1, events: Int16(POLLIN), revents: 0),
            pollfd(fd: watchSecond ? second : -1, events: Int16(POLLIN), revents: 0),
        ]
        guard pollEntries(&entries, 2, milliseconds) > 0 else { return (false, false) }
        return (entries[0].revents != 0, entries[1].revents != 0)
    }

    private static func pollEntries(_ entries: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeout: Int32) -> Int32 {
        #if canImport(Glibc)
            return Glibc.poll(entries, nfds_t(count), timeout)
        #else
            return Darwin.poll(entries, nfds_t(count), timeout)
        #endif
    }

    private static func writeAll(_ socket: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, flags) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds) * 1_000_000 + attoseconds / 1_000_000_000_000
        usleep(UInt32(clamping: microseconds))
    }
}

/// Why a ``FaultProxy`` could not start.
public struct FaultProxyError: Error, Sendable, CustomStringConvertible {
    /// What failed, with the system's error number.
    public let message: String

    /// The message.
    public var description: String { message }
}

/// Follows HTTP/1.1 answers through a byte stream (a header ending in an empty line, then
/// `Content-Length` bytes of body) so that ``FaultProxy/Fault/truncate`` can cut one in the middle
/// of its body.
package struct ResponseCutter {
    private enum Phase {
        /// Reading a header; the bytes seen so far.
        case head([UInt8])
        /// Inside a body: bytes left, and how many to forward before the cut when cutting.
        case body(remaining: Int, cutAfter: Int?)
        /// An answer without a length: everything passes until the connection ends.
        case unframed
    }

    private var phase = Phase.head([])

    package init() {}

    /// The part of `chunk` to forward, and whether the connection must now be closed because an
    /// answer was cut. `truncating` decides for each answer whose header ends in this chunk.
    package mutating func feed(_ chunk: ArraySlice<UInt8>, truncating: Bool) -> (ArraySlice<UInt8>, cut: Bool) {
        var index = chunk.startIndex
        while index < chunk.endIndex {
            switch phase {
            case .unframed:
                return (chunk, false)
            case .head(var seen):
                while index < chunk.endIndex {
                    seen.append(chunk[index])
                    index += 1
                    if seen.count >= 4, seen.suffix(4).elementsEqual([13, 10, 13, 10]) { break }
                }
                guard seen.count >= 4, seen.suffix(4).elementsEqual([13, 10, 13, 10]) else {
                    phase = .head(seen)
                    return (chunk, false)
                }
                guard let length = Self.contentLength(seen) else {
                    phase = .unframed
                    return (chunk, false)
                }
                let cutAfter = truncating && length >= 2 ? length / 2 : nil
                phase = length == 0 ? .head([]) : .body(remaining: length, cutAfter: cutAfter)
            case .body(let remaining, let cutAfter):
                let available = chunk.endIndex - index
                if let cutAfter, cutAfter <= available {
                    return (chunk[chunk.startIndex..<(index + cutAfter)], true)
                }
                let taken = min(remaining, available)
                index += taken
                if taken == remaining {
                    phase = .head([])
                } else {
                    phase = .body(remaining: remaining - taken, cutAfter: cutAfter.map { $0 - taken })
                }
            }
        }
        return (chunk, false)
    }

    private static func contentLength(_ head: [UInt8]) -> Int? {
        let text = String(decoding: head, as: UTF8.self)
        for line in text.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { continue }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
