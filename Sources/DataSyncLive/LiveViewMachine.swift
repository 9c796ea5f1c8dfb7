package import DataSyncModels
import Foundation
package import Realtime

/// The decisions of one live view, with no I/O and no clock: feed it an ``Input``, it updates the
/// objects and its freshness and returns the ``Effect``s to carry out (reads, retry timers, the
/// end). The runner takes snapshots from it when its reader asks (``hasNews``, ``takeSnapshot()``).
///
/// The consistency rules:
/// - Nothing is read before the subscribe loop receives the view's channel, so every change
///   committed after a read started arrives as an event.
/// - While a read is in flight (and before the first one succeeded) events are held back, then
///   applied in order on top of the read's result.
/// - A gap, an interruption (by default) or an access denial makes the view stale and owes a read;
///   the read starts as soon as the loop receives again. A failed read is retried with backoff.
/// - The view is current again once a read that began after the last such problem has been
///   merged while the loop receives.
package struct LiveViewMachine<Element: PubNubDataSyncObject>: Sendable {
    package enum Input: Sendable {
        /// The view's subscription was activated; whether the loop receives its channel already.
        case started(isReceiving: Bool)
        /// The subscribe loop reported a status; whether it receives the view's channel now.
        case status(PubNubStatus, isReceiving: Bool)
        /// Events may have been missed.
        case gap(PubNubDataSyncGap)
        /// A DataSync event received on the view's channel.
        case event(PubNubDataSyncEvent)
        /// The read of generation `generation` returned every object.
        case readSucceeded(generation: UInt64, [Element])
        /// The read of generation `generation` failed.
        case readFailed(generation: UInt64, PubNubError)
        /// The retry delay of generation `generation` passed.
        case retryDue(generation: UInt64)
        /// `pubnub.set(token:)` replaced the token.
        case tokenChanged
    }

    package enum Effect: Sendable, Equatable {
        package static func == (lhs: Effect, rhs: Effect) -> Bool {
            switch (lhs, rhs) {
            case (.read(let a), .read(let b)): return a == b
            case (.scheduleRetry(let a, let x), .scheduleRetry(let b, let y)): return a == b && x == y
            case (.cancelRetry, .cancelRetry): return true
            case (.fail(let a), .fail(let b)):
                return a.reason == b.reason && a.message == b.message && a.statusCode == b.statusCode
            default: return false
            }
        }

        /// Read every object of the view, reporting as `generation`.
        case read(generation: UInt64)
        /// Wait `delay`, then report ``Input/retryDue(generation:)``.
        case scheduleRetry(generation: UInt64, delay: Duration)
        /// Drop the retry timer.
        case cancelRetry
        /// End the view with this error.
        case fail(PubNubError)
    }

    package let options: PubNubLiveViewOptions
    package let projection: String
    private let interpret: @Sendable (PubNubDataSyncEvent) -> LiveViewAction<Element>?
    private let unitRandom: @Sendable () -> Double

    package private(set) var store: LiveViewStore<Element>
    package private(set) var isReceiving = false
    /// The generation of the read in flight.
    package private(set) var reading: UInt64?
    /// The generation of the retry timer waiting.
    package private(set) var retryPending: UInt64?
    /// A read is owed: none succeeded yet, or something may have been missed since the last began.
    package private(set) var needsRead = true
    /// Whether a complete read has been merged.
    package private(set) var hasRead = false
    /// Why the view may not be current, or `nil`.
    package private(set) var problem: PubNubLiveStaleness?
    /// Reads failed in a row.
    package private(set) var failedReads = 0
    package private(set) var buffer: [PubNubDataSyncEvent] = []
    private var generation: UInt64 = 0
    private var isFinished = false
    /// What the last snapshot said, to tell whether the next one has news.
    private var published: (staleness: PubNubLiveStaleness?, isComplete: Bool)?
    /// How many states the view has been in that a snapshot would show: one more after every
    /// input that changed objects or the view's freshness. A snapshot carries it as its
    /// `sequence`, so a reader that skipped states sees a jump.
    package private(set) var states = 0

    package init(
        options: PubNubLiveViewOptions, projection: String,
        interpret: @escaping @Sendable (PubNubDataSyncEvent) -> LiveViewAction<Element>?,
        unitRandom: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.options = options
        self.projection = projection
        self.interpret = interpret
        self.unitRandom = unitRandom
        store = LiveViewStore(tombstoneCapacity: options.tombstoneCapacity)
    }

    // MARK: Snapshots

    /// Whether a snapshot taken now would say something new: objects changed, or the view's
    /// freshness did. Nothing is said before the first read ends unless something went wrong.
    package var hasNews: Bool {
        guard hasRead || problem != nil else { return false }
        guard let published else { return true }
        return store.hasChange || published.staleness != problem || published.isComplete != hasRead
    }

    /// The snapshot of now, with the change since the last one.
    // Pre-specialized for the two element types that hold many objects, so a caller in another
    // module (the bench drives the machine directly) runs specialized code rather than the
    // generic entry point: a profile of the bench found a tenth of its time in run-time metadata
    // look-ups there.
    @_specialize(exported:true,where Element == PubNubDataSyncMembership)
    @_specialize(exported:true,where Element == PubNubDataSyncRelationship)
    package mutating func takeSnapshot() -> PubNubLiveSnapshot<Element> {
        published = (problem, hasRead)
        return PubNubLiveSnapshot(
            ids: store.ids, objects: store.objects, change: store.takeChange(), staleness: problem,
            isComplete: hasRead, projection: projection, sequence: states)
    }

    // MARK: Inputs

    @_specialize(exported:true,where Element == PubNubDataSyncMembership)
    @_specialize(exported:true,where Element == PubNubDataSyncRelationship)
    package mutating func handle(_ input: Input) -> [Effect] {
        guard !isFinished else { return [] }
        let before = (revision: store.revision, problem: problem, hasRead: hasRead)
        let effects = process(input)
        let isVisible = hasRead || problem != nil
        let after = (revision: store.revision, problem: problem, hasRead: hasRead)
        if isVisible, before != after { states += 1 }
        return effects
    }

    private mutating func process(_ input: Input) -> [Effect] {
        switch input {
        case .started(let receiving):
            isReceiving = receiving
            return startReadIfDue()
        case .status(let status, let receiving):
            return observe(status, receiving: receiving)
        case .gap(let gap):
            problem = PubNubLiveStaleness(reason: .gap, detail: gap.reason.rawValue, failedReads: failedReads)
            needsRead = true
            return startReadIfDue()
        case .event(let event):
            guard let action = interpret(event) else { return [] }
            if reading != nil || !hasRead {
                return hold(event)
            }
            if case .reread(let detail) = action {
                owe(detail)
                return startReadIfDue()
            }
            store.apply(action)
            return checkSize()
        case .readSucceeded(let id, let objects):
            guard id == reading else { return [] }
            return merge(objects)
        case .readFailed(let id, let error):
            guard id == reading else { return [] }
            return readFailed(error)
        case .retryDue(let id):
            guard id == retryPending else { return [] }
            retryPending = nil
            return startReadIfDue()
        case .tokenChanged:
            guard retryPending != nil, problem?.reason == .accessDenied else { return [] }
            retryPending = nil
            return [.cancelRetry] + startReadIfDue()
        }
    }

    private mutating func observe(_ status: PubNubStatus, receiving: Bool) -> [Effect] {
        let wasReceiving = isReceiving
        isReceiving = receiving
        if !receiving {
            // Waiting for a first handshake, or another subscription's `connected`, is no problem;
            // a failure of the loop, or its stop, is.
            guard status.operation == .subscribe, status.isError || status.category == .disconnected else {
                return []
            }
            if status.category == .accessDenied {
                problem = PubNubLiveStaleness(
                    reason: .accessDenied, detail: status.errorData?.information ?? "accessDenied",
                    failedReads: failedReads)
                needsRead = true
            } else if wasReceiving || problem == nil || problem?.reason == .interrupted {
                problem = PubNubLiveStaleness(
                    reason: .interrupted, detail: status.category.rawValue, failedReads: failedReads)
                if options.rereadsAfterInterruption { needsRead = true }
            }
            return []
        }
        // Receiving: a resumed catch-up is trusted when the options say so.
        if !wasReceiving, !needsRead, reading == nil, problem?.reason == .interrupted {
            problem = nil
        }
        return startReadIfDue()
    }

    /// Applies the events held back during a read; one the view cannot apply owes another read.
    private mutating func applyHeld() {
        let held = buffer
        buffer.removeAll()
        for event in held {
            guard let action = interpret(event) else { continue }
            if case .reread(let detail) = action {
                owe(detail)
            } else {
                store.apply(action)
            }
        }
    }

    /// An event the view could not apply: it keeps its values, says it is stale and reads again.
    private mutating func owe(_ detail: String) {
        needsRead = true
        if problem == nil || problem?.reason == .incompleteEvent {
            problem = PubNubLiveStaleness(reason: .incompleteEvent, detail: detail, failedReads: failedReads)
        }
    }

    private mutating func hold(_ event: PubNubDataSyncEvent) -> [Effect] {
        guard buffer.count < options.maximumBufferedEvents else {
            // Dropping is safe only because a read that starts after the drop covers what was dropped.
            buffer.removeAll()
            needsRead = true
            if reading != nil {
                problem = PubNubLiveStaleness(
                    reason: .overflow, detail: "more than \(options.maximumBufferedEvents) events during a read",
                    failedReads: failedReads)
            }
            return []
        }
        buffer.append(event)
        return []
    }

    private mutating func startReadIfDue() -> [Effect] {
        guard needsRead, isReceiving, reading == nil, retryPending == nil else { return [] }
        needsRead = false
        generation &+= 1
        reading = generation
        return [.read(generation: generation)]
    }

    private mutating func merge(_ objects: [Element]) -> [Effect] {
        reading = nil
        failedReads = 0
        guard objects.count <= options.maximumObjects else {
            return finish(.liveViewTooLarge(limit: options.maximumObjects))
        }
        store.applyRead(objects)
        applyHeld()
        hasRead = true
        if store.count > options.maximumObjects { return finish(.liveViewTooLarge(limit: options.maximumObjects)) }
        if needsRead {
            if problem == nil {
                problem = PubNubLiveStaleness(reason: .overflow, detail: "a read is owed", failedReads: 0)
            } else {
                problem?.failedReads = 0
            }
            return startReadIfDue()
        }
        if isReceiving {
            problem = nil
        } else if problem == nil || problem?.reason != .accessDenied {
            problem = PubNubLiveStaleness(reason: .interrupted, detail: "not receiving", failedReads: 0)
        }
        return []
    }

    private mutating func readFailed(_ error: PubNubError) -> [Effect] {
        reading = nil
        let kind = Self.classify(error)
        if kind == .terminal { return finish(error) }
        failedReads += 1
        needsRead = true
        problem = PubNubLiveStaleness(
            reason: kind == .access ? .accessDenied : .readFailed, detail: error.message, failedReads: failedReads)
        if hasRead {
            // Events held back during the failed read were only delayed: apply them, and go on
            // applying what arrives while the next read waits.
            applyHeld()
            if store.count > options.maximumObjects {
                return finish(.liveViewTooLarge(limit: options.maximumObjects))
            }
        }
        let attempt = failedReads - 1
        guard options.retryPolicy.allowsAttempt(attempt) else { return finish(error) }
        generation &+= 1
        retryPending = generation
        return [
            .scheduleRetry(
                generation: generation,
                delay: options.retryPolicy.delay(beforeAttempt: attempt, unitRandom: unitRandom()))
        ]
    }

    private mutating func checkSize() -> [Effect] {
        store.count > options.maximumObjects ? finish(.liveViewTooLarge(limit: options.maximumObjects)) : []
    }

    private mutating func finish(_ error: PubNubError) -> [Effect] {
        isFinished = true
        reading = nil
        buffer.removeAll()
        let hadRetry = retryPending != nil
        retryPending = nil
        return (hadRetry ? [.cancelRetry] : []) + [.fail(error)]
    }

    // MARK: Errors

    package enum FailureKind: Sendable, Equatable {
        /// The token was refused: wait for a new one (or retry with backoff).
        case access
        /// May pass: retry with backoff.
        case transient
        /// Cannot succeed by retrying: end the view.
        case terminal
    }

    /// How a failed read is treated.
    package static func classify(_ error: PubNubError) -> FailureKind {
        switch error.reason {
        case .forbidden, .unauthorized:
            return .access
        case .tooManyRequests, .internalServiceError, .badGateway, .serviceUnavailable, .gatewayTimeout,
            .requestTimedOut, .connectionFailure, .transportFailure, .malformedResponse, .unrecognizedStatusCode,
            .requestCancelled:
            return .transient
        default:
            return .terminal
        }
    }
}
