#if canImport(Network)
    import Foundation
    import Network
#endif

/// What the device's network path looks like, as a ``NetworkPathMonitor`` reports it.
///
/// The real-time loop compares each update with the one before: it acts when the path is lost,
/// when it comes back, and when the interfaces in use change (Wi-Fi to cellular, a VPN coming
/// up), since a long-poll connected over the old path may be dead without either side noticing.
public struct NetworkPathUpdate: Sendable, Hashable {
    /// Whether the system can send traffic at all (a path exists).
    public var isSatisfied: Bool
    /// The interfaces the path uses, most preferred first (names such as `en0` or `pdp_ip0`, or
    /// any stable identifiers your monitor chooses). Only changes in this list matter.
    public var interfaces: [String]

    /// Creates an update.
    /// - Parameters:
    ///   - isSatisfied: Whether the system can send traffic at all.
    ///   - interfaces: The interfaces in use, most preferred first.
    public init(isSatisfied: Bool, interfaces: [String] = []) {
        self.isSatisfied = isSatisfied
        self.interfaces = interfaces
    }
}

/// Tells clients when the device's network path changes, so the subscribe loop reconnects at
/// once instead of waiting for a long-poll or a backoff step to time out.
///
/// On Apple platforms ``PubNubConfiguration/networkPathMonitor`` defaults to
/// `SystemNetworkPathMonitor` (the Network framework's path monitor). Elsewhere it is `nil`:
/// TCP keep-alive and the loop's own probes notice a dead network there. Supply your own
/// conformance to feed changes from another source, or a fake in tests.
///
/// One monitor may serve several clients (a configuration copied to two clients shares it): each
/// client calls ``observe(_:)`` once, when its real-time part is first used, and cancels the
/// returned observation when it is released. The handler may be called on any thread; it only
/// queues the update for the loop. The first update an observer gets is taken as the starting
/// point and changes nothing unless the path is unsatisfied, so a monitor may (and should) hand a
/// new observer the current path at once.
public protocol NetworkPathMonitor: Sendable {
    /// Calls `handler` with path updates until the returned observation is cancelled.
    func observe(_ handler: @escaping @Sendable (NetworkPathUpdate) -> Void) -> NetworkPathObservation
}

/// Ends one ``NetworkPathMonitor/observe(_:)``: after ``cancel()`` returns the handler is not
/// called again by a well-behaved monitor (the client ignores stray updates anyway).
public struct NetworkPathObservation: Sendable {
    private let onCancel: @Sendable () -> Void

    /// An observation that runs `onCancel` when cancelled (at most once is up to the monitor:
    /// clients cancel once).
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops the updates.
    public func cancel() { onCancel() }
}

#if canImport(Network)
    /// A ``NetworkPathMonitor`` over the Network framework's `NWPathMonitor`: the default on Apple
    /// platforms.
    ///
    /// It runs one `NWPathMonitor` while at least one client observes it, on a serial queue of its
    /// own, and hands a new observer the last path it saw.
    public final class SystemNetworkPathMonitor: NetworkPathMonitor, @unchecked Sendable {
        // Unchecked: every mutable field is in `state`, read and written only under `lock` (a plain
        // NSLock, so the lock does not ask `NWPathMonitor` to be Sendable); the monitor is started
        // and cancelled under it and calls back on `queue`.
        private struct State {
            var monitor: NWPathMonitor?
            var observers: [UInt64: @Sendable (NetworkPathUpdate) -> Void] = [:]
            var nextKey: UInt64 = 0
            var last: NetworkPathUpdate?
        }

        private let queue = DispatchQueue(label: "DataSync.NetworkPathMonitor")
        private let lock = NSLock()
        private var state = State()

        private func withState<R>(_ body: (inout State) -> R) -> R {
            lock.lock()
            defer { lock.unlock() }
            return body(&state)
        }

        /// Creates a monitor for every interface type; it starts when first observed.
        public init() {}

        /// Calls `handler` with every path update, starting with the last one seen (if the monitor
        /// is already running), until the observation is cancelled.
        public func observe(_ handler: @escaping @Sendable (NetworkPathUpdate) -> Void) -> NetworkPathObservation {
            let (key, last): (UInt64, NetworkPathUpdate?) = withState { state in
                state.nextKey += 1
                state.observers[state.nextKey] = handler
                if state.monitor == nil {
                    let monitor = NWPathMonitor()
                    monitor.pathUpdateHandler = { [weak self] path in self?.deliver(path) }
                    monitor.start(queue: queue)
                    state.monitor = monitor
                }
                return (state.nextKey, state.last)
            }
            if let last { handler(last) }
            return NetworkPathObservation { [weak self] in self?.remove(key) }
        }

        private func deliver(_ path: NWPath) {
            let update = NetworkPathUpdate(
                isSatisfied: path.status == .satisfied, interfaces: path.availableInterfaces.map(\.name))
            let observers = withState { state in
                state.last = update
                return Array(state.observers.values)
            }
            for observer in observers { observer(update) }
        }

        private func remove(_ key: UInt64) {
            withState { state in
                state.observers[key] = nil
                // `NWPathMonitor` cannot be restarted: the next observer makes a new one.
                if state.observers.isEmpty {
                    state.monitor?.cancel()
                    state.monitor = nil
                    state.last = nil
                }
            }
        }
    }
#endif
