import PubNubBase
import Transport

/// What the requests of one client say about its origin, for the parts of the client that must
/// react to it without sending anything themselves: the subscribe loop ends a reconnection wait
/// when another request to the origin was answered, and suspects its long-poll when one could not
/// connect or timed out.
///
/// The pipeline reports the outcome of every request to its own origin that it is told to report
/// (every call but the subscribe requests, whose outcome the loop reads directly). Observers are
/// called synchronously on the reporting task, so they must only hand the signal on (the
/// real-time hub puts it in its loop's inbox). PubNubCore knows nothing of who listens.
package final class OriginHealth: Sendable {
    /// How a request to the origin ended.
    package enum Outcome: Sendable, Hashable {
        /// Some HTTP answer came back, whatever its status: the origin can be reached.
        case answered
        /// No connection could be made (refused, unreachable).
        case cannotConnect
        /// A connection was made and then closed or reset before the answer was complete.
        case connectionLost
        /// The request took longer than its timeout.
        case timedOut
    }

    /// One report: the outcome and the request's ``sequence`` number.
    package struct Signal: Sendable, Hashable {
        package var outcome: Outcome
        /// Numbers requests in the order they started (see ``mark()``), so an observer can ignore
        /// what a request that started before some moment of its own says.
        package var sequence: UInt64

        package init(outcome: Outcome, sequence: UInt64) {
            self.outcome = outcome
            self.sequence = sequence
        }
    }

    private struct State: Sendable {
        var started: UInt64 = 0
        var nextObserver: UInt64 = 0
        /// An array, not a dictionary keyed by observer: every request reports, so ``report(_:sequence:)``
        /// takes this array as it is (one retain) instead of building one from a dictionary's values.
        var observers: [(key: UInt64, observer: @Sendable (Signal) -> Void)] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Calls `observer` with every later signal until ``removeObserver(_:)`` is called with the
    /// returned key.
    package func addObserver(_ observer: @escaping @Sendable (Signal) -> Void) -> UInt64 {
        state.withLock { state in
            state.nextObserver += 1
            state.observers.append((state.nextObserver, observer))
            return state.nextObserver
        }
    }

    /// Stops calling the observer added under `key`.
    package func removeObserver(_ key: UInt64) {
        state.withLock { state in state.observers.removeAll { $0.key == key } }
    }

    /// The sequence number of the last request started so far: a signal whose sequence is greater
    /// comes from a request that started after this call.
    package func mark() -> UInt64 {
        state.withLock { $0.started }
    }

    /// Numbers a request that is starting now.
    package func begin() -> UInt64 {
        state.withLock { state in
            state.started += 1
            return state.started
        }
    }

    /// Hands `outcome` of the request numbered `sequence` to every observer.
    package func report(_ outcome: Outcome, sequence: UInt64) {
        let observers = state.withLock { $0.observers }
        guard !observers.isEmpty else { return }
        let signal = Signal(outcome: outcome, sequence: sequence)
        for entry in observers { entry.observer(signal) }
    }

    /// What a failure to exchange says about the origin; `nil` when it says nothing (a
    /// cancellation, a request that could not be built, a TLS or decoding problem).
    package static func outcome(for error: any Error) -> Outcome? {
        let transport: TransportError?
        if let error = error as? TransportError {
            transport = error
        } else {
            transport = (error as? PubNubError)?.underlying as? TransportError
        }
        switch transport?.code {
        case .cannotConnect?: return .cannotConnect
        case .connectionLost?: return .connectionLost
        case .timedOut?: return .timedOut
        default: return nil
        }
    }
}
