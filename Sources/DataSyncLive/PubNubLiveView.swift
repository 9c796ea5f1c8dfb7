public import DataSyncModels
import Foundation
import PubNubCore

/// A DataSync object, or a set of links, kept current on the client: an `AsyncSequence` of
/// ``PubNubLiveSnapshot``s.
///
/// Each iteration runs the view afresh: it subscribes to the one channel that sees every change
/// of its objects, waits until the subscribe loop receives it, reads every object through REST
/// (all pages) while holding back the events that arrive meanwhile, then applies those events and
/// every later one, newest version wins. The first snapshot comes once that read is merged (or
/// earlier, stale and incomplete, when something stands in the way: a refused token, a
/// connection that does not come up); after that, one per change or change of freshness.
///
/// Cancelling the iterating task (or dropping the iterator) ends the view and unsubscribes what it
/// alone held: a channel another subscription of the same client still needs stays subscribed.
/// `pubnub.unsubscribeAll()` and releasing the client end it too. It ends with a thrown
/// `PubNubError` only when it cannot go on: a read that cannot succeed by retrying (the
/// relationship class does not exist), the retry policy giving up, or more objects than
/// ``PubNubLiveViewOptions/maximumObjects``.
///
/// ```swift
/// let alice = try pubnub.liveViews.user("alice")
/// for try await snapshot in alice {
///     guard let user = snapshot.value else { print("alice does not exist"); continue }
///     print(user.payload ?? .null, snapshot.isCurrent ? "current" : "stale: \(snapshot.staleness!)")
/// }
/// ```
///
/// A slow reader does not grow memory: snapshots it has not taken yet are merged into one, whose
/// ``PubNubLiveSnapshot/change`` covers all of them.
public struct PubNubLiveView<Object: PubNubDataSyncObject>: AsyncSequence, Sendable, CustomStringConvertible {
    /// What the sequence produces.
    public typealias Element = PubNubLiveSnapshot<Object>

    private let definition: LiveViewDefinition<Object>
    private let context: LiveViewContext
    /// The view's limits and recovery settings.
    public let options: PubNubLiveViewOptions

    package init(definition: LiveViewDefinition<Object>, context: LiveViewContext, options: PubNubLiveViewOptions) {
        self.definition = definition
        self.context = context
        self.options = options
    }

    /// The channel the view subscribes to (an object id, or a projection channel `__P__<id>`).
    public var channel: String { definition.channel }
    /// The projection the view shows: `__default__` or the name it was made with.
    public var projection: String { definition.projection }
    /// What the view shows, such as "memberships of channel general".
    public var description: String { "PubNubLiveView(\(definition.summary))" }

    /// Starts a new run of the view when first asked for a snapshot.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(runner: LiveViewRunner(definition: definition, options: options, context: context))
    }

    /// Steps through one run's snapshots. Dropping it ends the run.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let handle: Handle

        init(runner: LiveViewRunner<Object>) {
            handle = Handle(runner: runner)
        }

        /// The next snapshot: waits until the view has something new to say; `nil` once it ended.
        ///
        /// - Throws: the `PubNubError` that ended the view.
        public mutating func next() async throws -> PubNubLiveSnapshot<Object>? {
            try await handle.runner.next()
        }
    }

    /// Ends the run when the iterator goes away, even without a cancelled task.
    private final class Handle: Sendable {
        let runner: LiveViewRunner<Object>

        init(runner: LiveViewRunner<Object>) { self.runner = runner }

        deinit {
            let runner = self.runner
            Task { await runner.stop() }
        }
    }

    /// Runs the view and calls `onSnapshot` with each snapshot, in the configuration's
    /// `completionContext`, in order, until ``PubNubLiveObservation/cancel()``.
    ///
    /// The observation is held by its run, not by the returned value: keep the value to cancel it,
    /// dropping it does not stop anything. `onEnd` is called once when the view ends, with the error
    /// that ended it or `nil` (cancelled, unsubscribed, the client released).
    ///
    /// ```swift
    /// let observation = try pubnub.liveViews.memberships(ofUser: "alice").observe { snapshot in
    ///     print("alice is in", snapshot.map(\.channelId))
    /// }
    /// // …
    /// observation.cancel()
    /// ```
    @discardableResult
    public func observe(
        _ onSnapshot: @escaping @Sendable (PubNubLiveSnapshot<Object>) -> Void,
        onEnd: (@Sendable (PubNubError?) -> Void)? = nil
    ) -> PubNubLiveObservation {
        let runner = LiveViewRunner(definition: definition, options: options, context: context)
        let completion = context.completionContext
        let task = Task {
            var outcome: PubNubError?
            do {
                while let snapshot = try await runner.next() {
                    completion.run { onSnapshot(snapshot) }
                }
            } catch {
                outcome = error as? PubNubError ?? PubNubError(reason: .transportFailure, message: "\(error)")
            }
            await runner.stop()
            if let onEnd {
                let ended = outcome
                completion.run { onEnd(ended) }
            }
        }
        return PubNubLiveObservation(task: task)
    }
}

/// A running ``PubNubLiveView/observe(_:onEnd:)``; ``cancel()`` ends it.
public final class PubNubLiveObservation: Sendable {
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) {
        self.task = task
    }

    /// Ends the view: no snapshot is delivered after the one in progress, and what the view alone
    /// subscribed is unsubscribed.
    public func cancel() {
        task.cancel()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }
}
