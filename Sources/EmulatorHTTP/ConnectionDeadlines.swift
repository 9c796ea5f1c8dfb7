/// When a connection's current phase times out, from the server's configuration (a request not
/// received in time, a connection idle too long between requests, a client not reading what it
/// is sent, a closing connection that keeps sending), and the earliest deadline among a loop's
/// connections, which bounds the loop's wait.
struct ConnectionDeadlines {
    /// How long a closing connection may keep sending before it is closed anyway.
    static let lingerNanoseconds: UInt64 = 2_000_000_000

    let idleNanoseconds: UInt64
    let requestNanoseconds: UInt64
    let sendNanoseconds: UInt64
    /// No connection deadline falls before this (it may be earlier than the true earliest, never later).
    private(set) var earliest: UInt64?

    init(_ configuration: HTTPServer.Configuration) {
        idleNanoseconds = Self.nanoseconds(configuration.idleTimeout)
        requestNanoseconds = Self.nanoseconds(configuration.requestTimeout)
        sendNanoseconds = Self.nanoseconds(configuration.sendTimeout)
    }

    /// `duration` in nanoseconds, 0 when negative and at most `UInt64.max / 2`, so adding it to a
    /// clock reading cannot overflow.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let whole = UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if whole.overflow { return UInt64.max / 2 }
        return min(UInt64.max / 2, whole.partialValue + UInt64(attoseconds / 1_000_000_000))
    }

    /// When `connection` times out in its current phase; nil while its request is being handled.
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

    /// Takes `connection`'s deadline into account for ``earliest``, after it changed phase.
    mutating func track(_ connection: Connection) {
        if let deadline = deadline(of: connection) { earliest = min(earliest ?? deadline, deadline) }
    }

    /// Those of `connections` whose deadline has come; ``earliest`` is recomputed from the others.
    mutating func takeDue(from connections: some Sequence<Connection>, now: UInt64) -> [Connection] {
        var due: [Connection] = []
        earliest = nil
        for connection in connections {
            guard let deadline = deadline(of: connection) else { continue }
            if deadline <= now {
                due.append(connection)
            } else {
                earliest = min(earliest ?? deadline, deadline)
            }
        }
        return due
    }

    /// How long a loop may wait, in milliseconds, before the earliest deadline or `wakeAt` (a
    /// time it must look again, ignored when past): -1 for no limit, at most a minute.
    func pollTimeout(now: UInt64, wakeAt: UInt64) -> Int32 {
        var earliest = self.earliest
        if wakeAt > now { earliest = min(earliest ?? wakeAt, wakeAt) }
        guard let earliest else { return -1 }
        guard earliest > now else { return 0 }
        let milliseconds = (earliest - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, 60_000))
    }
}
