extension PubNub {
    /// Where completion closures run.
    ///
    /// The default, ``immediate``, calls the closure on the Swift concurrency thread that finished
    /// the request: no main run loop is needed (right for Linux servers and command-line tools), and
    /// closures of different calls may run at the same time. Use ``mainActor`` in apps whose
    /// closures touch the UI, or ``init(_:)`` to hand the work to your own queue or executor.
    ///
    /// Completion closures are `@Sendable`: with ``mainActor``, wrap code that touches main-actor
    /// state in `MainActor.assumeIsolated { … }`.
    ///
    /// ```swift
    /// var configuration = PubNubConfiguration(publishKey: nil, subscribeKey: "demo", userId: "me")
    /// configuration.completionContext = .mainActor
    /// ```
    public struct CompletionContext: Sendable {
        private let schedule: @Sendable (@escaping @Sendable () -> Void) -> Void

        /// Creates a context from a function that runs the work it is given, exactly once.
        ///
        /// ```swift
        /// let queue = DispatchQueue(label: "results")
        /// let context = PubNub.CompletionContext { work in queue.async(execute: work) }
        /// ```
        public init(_ schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
            self.schedule = schedule
        }

        /// Runs the closure directly on the concurrency thread that finished the request.
        public static let immediate = CompletionContext { work in work() }

        /// Runs the closure on the main actor. On Linux the main actor only runs while the main
        /// thread drains the main queue (`dispatchMain()` or a run loop), so prefer ``immediate``
        /// there.
        public static let mainActor = CompletionContext { work in
            Task { @MainActor in work() }
        }

        /// Runs `work` in this context.
        public func run(_ work: @escaping @Sendable () -> Void) {
            schedule(work)
        }
    }
}
