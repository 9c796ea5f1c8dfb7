#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a server's connection cap asks of the process's file-descriptor limit (`RLIMIT_NOFILE`),
/// checked when the server starts.
///
/// Every connection is a descriptor, and so is each connection accepted over the cap only to be
/// answered `503`; the process needs a few more for the listener, the wake-up pipe, the poller,
/// its standard streams and whatever else it opens (a state file, a log). A cap the limit cannot
/// hold would fail in the worst way: `accept` returns `EMFILE` under load, so the server stops
/// taking connections well before its cap, and the process cannot open a file either. So at
/// start the server raises the soft limit as far as the hard limit allows, and when even that is
/// short it serves fewer connections (the cap lowered to fit) and says so once on standard error.
/// Lowering rather than refusing to start keeps an emulator usable on a machine with a small
/// limit: past the lowered cap it behaves as at any cap (it closes the connection idle longest,
/// or answers `503` with `Retry-After: 1`).
package struct DescriptorBudget: Sendable, Hashable {
    /// The soft and hard `RLIMIT_NOFILE` of the process (`UInt64.max` for no limit).
    package struct Limits: Sendable, Hashable {
        package var soft: UInt64
        package var hard: UInt64

        package init(soft: UInt64, hard: UInt64) {
            self.soft = soft
            self.hard = hard
        }
    }

    /// Descriptors kept free beyond the connections: the listener, the wake-up pipe, the poller,
    /// the standard streams, and room for files the process opens while serving.
    package static let reserve = 64

    /// The connection cap in force: the configured one, or lower when the limit could not hold it.
    package var maximumConnections: Int
    /// The soft limit after the check (raised when it had to be and could be).
    package var softLimit: UInt64
    /// Set when the soft limit was raised: its value before.
    package var raisedFrom: UInt64?
    /// The message for standard error when the cap had to be lowered; nil when it fits.
    package var warning: String?

    /// Descriptors a server with `maximumConnections` needs: each connection, the refusals that
    /// may be in flight over the cap (see `EventLoop.maximumRefusals`), and the reserve.
    package static func needed(maximumConnections: Int) -> UInt64 {
        let connections = UInt64(max(1, maximumConnections))
        return connections + UInt64(refusalSlots(maximumConnections)) + UInt64(reserve)
    }

    /// How many connections over the cap may be answering `503` at once.
    package static func refusalSlots(_ maximumConnections: Int) -> Int { max(16, maximumConnections / 16) }

    /// Checks `maximumConnections` against `limits`, asking `raise` to set the soft limit when it
    /// is too low (`raise` returns whether the new soft limit took effect).
    package static func plan(
        maximumConnections: Int, limits: Limits, raise: (UInt64) -> Bool
    ) -> DescriptorBudget {
        let needed = Self.needed(maximumConnections: maximumConnections)
        var budget = DescriptorBudget(maximumConnections: maximumConnections, softLimit: limits.soft)
        guard limits.soft < needed else { return budget }
        for target in raiseTargets(needed: needed, hard: limits.hard) where target > limits.soft {
            if raise(target) {
                budget.softLimit = target
                budget.raisedFrom = limits.soft
                break
            }
        }
        guard budget.softLimit < needed else { return budget }
        budget.maximumConnections = largestCap(within: budget.softLimit)
        budget.warning =
            "the connection limit of \(maximumConnections) needs \(needed) file descriptors, but this process "
            + "may open only \(budget.softLimit) (hard limit \(describe(limits.hard))); serving at most "
            + "\(budget.maximumConnections) connections. Raise the limit (ulimit -n) or lower the connection limit "
            + "(--max-connections) to silence this."
        return budget
    }

    /// The soft limits worth trying, best first: what is needed (within the hard limit), then,
    /// on Apple systems, `OPEN_MAX`, the most `setrlimit` accepts there whatever the hard limit says.
    private static func raiseTargets(needed: UInt64, hard: UInt64) -> [UInt64] {
        var targets = [min(needed, hard)]
        #if canImport(Darwin)
            let openMax = UInt64(OPEN_MAX)
            if targets[0] > openMax { targets.append(openMax) }
        #endif
        return targets
    }

    /// The largest cap whose needs fit in `limit` descriptors, at least 1.
    static func largestCap(within limit: UInt64) -> Int {
        guard limit > UInt64(reserve) + 17 else { return 1 }
        var low = 1
        var high = Int(clamping: limit)
        while low < high {
            let middle = low + (high - low + 1) / 2
            if needed(maximumConnections: middle) <= limit { low = middle } else { high = middle - 1 }
        }
        return low
    }

    private static func describe(_ limit: UInt64) -> String {
        limit == UInt64.max ? "unlimited" : String(limit)
    }

    /// The process's limits and a raise that calls `setrlimit`, keeping the hard limit.
    package static func system() -> (limits: Limits?, raise: @Sendable (UInt64) -> Bool) {
        var current = rlimit()
        guard getrlimit(Self.resource, &current) == 0 else { return (nil, { _ in false }) }
        let limits = Limits(soft: UInt64(current.rlim_cur), hard: UInt64(current.rlim_max))
        return (
            limits,
            { target in
                var wanted = rlimit()
                guard getrlimit(Self.resource, &wanted) == 0 else { return false }
                wanted.rlim_cur = rlim_t(target)
                return setrlimit(Self.resource, &wanted) == 0
            }
        )
    }

    #if canImport(Glibc)
        private static let resource = Int32(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}

/// Where a server reads (and raises) the file-descriptor limit and where it reports a connection
/// limit it had to lower: the process and its standard error, or a test's stand-ins.
package struct DescriptorEnvironment: Sendable {
    /// The current limits (nil when they cannot be read: nothing is checked then) and a raise
    /// that sets the soft limit and returns whether it took effect.
    package var read: @Sendable () -> (limits: DescriptorBudget.Limits?, raise: @Sendable (UInt64) -> Bool)
    /// Receives the warning of a lowered connection limit.
    package var report: @Sendable (String) -> Void

    package init(
        read: @escaping @Sendable () -> (limits: DescriptorBudget.Limits?, raise: @Sendable (UInt64) -> Bool),
        report: @escaping @Sendable (String) -> Void
    ) {
        self.read = read
        self.report = report
    }

    /// `RLIMIT_NOFILE` of this process; the warning goes to standard error.
    package static let system = DescriptorEnvironment(
        read: { DescriptorBudget.system() },
        report: { message in
            let line = Array("emulator HTTP server: \(message)\n".utf8)
            line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
        })
}
