import PubNubBase
import PubNubCore

/// The closure listeners and stream sinks of one receiver (a subscription, a subscription set or
/// the client). Closures and sinks are read under the lock, then called after it is released.
package final class ListenerStore: Sendable {
    /// One `AsyncStream` fed from this store: `deliver` yields what the stream's kind accepts.
    package struct Sink: Sendable {
        package var deliver: @Sendable (PubNubEvent) -> Void
        package var status: @Sendable (PubNubStatus) -> Void
        package var finish: @Sendable () -> Void
        package var gap: @Sendable (PubNubDataSyncGap) -> Void = { _ in }
        /// A catch-up that may follow dropped messages; only the SDK's own readers (live views)
        /// ask for it, apps see the gap it makes.
        package var possibleLoss: @Sendable (PubNubStatus) -> Void = { _ in }
    }

    package struct Closures: Sendable {
        var onMessage: (@Sendable (PubNubMessage) -> Void)?
        var onSignal: (@Sendable (PubNubSignal) -> Void)?
        var onPresence: (@Sendable (PubNubPresenceEvent) -> Void)?
        var onMessageAction: (@Sendable (PubNubMessageActionEvent) -> Void)?
        var onFileEvent: (@Sendable (PubNubFileEvent) -> Void)?
        var onAppContext: (@Sendable (PubNubAppContextEvent) -> Void)?
        var onDataSync: (@Sendable (PubNubDataSyncEvent) -> Void)?
        var onDataSyncGap: (@Sendable (PubNubDataSyncGap) -> Void)?
        var onUnknownEvent: (@Sendable (PubNubRawEvent) -> Void)?
        var onEvents: (@Sendable ([PubNubEvent]) -> Void)?
        var onStatus: (@Sendable (PubNubStatus) -> Void)?
    }

    private struct State: Sendable {
        var closures = Closures()
        var sinks: [UInt64: Sink] = [:]
        var nextSinkID: UInt64 = 0
        var listeners: [any PubNubEventsListener] = []
        var deduplicator = DataSyncDeduplicator()
    }

    private let state = Locked(State())

    package init() {}

    package func closures() -> Closures { state.withLock { $0.closures } }

    package func update(_ change: (inout Closures) -> Void) {
        state.withLock { change(&$0.closures) }
    }

    package func add(listener: any PubNubEventsListener) {
        state.withLock { state in
            guard !state.listeners.contains(where: { $0 === listener }) else { return }
            state.listeners.append(listener)
        }
    }

    package func remove(listener: any PubNubEventsListener) {
        state.withLock { $0.listeners.removeAll { $0 === listener } }
    }

    /// Registers a sink; returns its id for ``removeSink(_:)``.
    package func addSink(_ sink: Sink) -> UInt64 {
        state.withLock { state in
            state.nextSinkID &+= 1
            state.sinks[state.nextSinkID] = sink
            return state.nextSinkID
        }
    }

    package func removeSink(_ id: UInt64) {
        _ = state.withLock { $0.sinks.removeValue(forKey: id) }
    }

    /// Ends every stream fed from this store (their termination handlers run after the lock).
    package func finishSinks() {
        let sinks = state.withLock { state in
            defer { state.sinks = [:] }
            return Array(state.sinks.values)
        }
        for sink in sinks { sink.finish() }
    }

    /// Yields `events` to the streams now, and returns the closure and listener calls for them, to
    /// run in the completion context.
    /// DataSync events this store already delivered (a copy from another channel) are left out.
    package func deliver(_ events: [PubNubEvent]) -> [@Sendable () -> Void] {
        guard !events.isEmpty else { return [] }
        let (closures, sinks, listeners, events) = state.withLock { state in
            let admitted = events.filter { event in
                guard case .dataSync(let change) = event else { return true }
                return state.deduplicator.admit(change)
            }
            return (state.closures, Array(state.sinks.values), state.listeners, admitted)
        }
        guard !events.isEmpty else { return [] }
        for sink in sinks {
            for event in events { sink.deliver(event) }
        }
        var calls: [@Sendable () -> Void] = []
        for event in events {
            if let call = Self.call(for: event, closures) { calls.append(call) }
            for listener in listeners { calls.append { listener.dispatch(event) } }
        }
        if let onEvents = closures.onEvents { calls.append { onEvents(events) } }
        return calls
    }

    /// Yields `status` to the streams now, and returns the closure and listener calls for it.
    package func deliver(_ status: PubNubStatus) -> [@Sendable () -> Void] {
        let (closures, sinks, listeners) = state.withLock { ($0.closures, Array($0.sinks.values), $0.listeners) }
        for sink in sinks { sink.status(status) }
        var calls: [@Sendable () -> Void] = []
        if let onStatus = closures.onStatus { calls.append { onStatus(status) } }
        for listener in listeners { calls.append { listener.didReceive(status: status) } }
        return calls
    }

    /// Yields a possible loss (``SubscribeStateMachine/Effect/possibleLoss(_:)``) to the streams
    /// that asked for it.
    package func deliverPossibleLoss(_ status: PubNubStatus) {
        let sinks = state.withLock { Array($0.sinks.values) }
        for sink in sinks { sink.possibleLoss(status) }
    }

    /// Yields `gap` to the streams now, and returns the closure and listener calls for it.
    package func deliver(_ gap: PubNubDataSyncGap) -> [@Sendable () -> Void] {
        let (closures, sinks, listeners) = state.withLock { ($0.closures, Array($0.sinks.values), $0.listeners) }
        for sink in sinks { sink.gap(gap) }
        var calls: [@Sendable () -> Void] = []
        if let onDataSyncGap = closures.onDataSyncGap { calls.append { onDataSyncGap(gap) } }
        for listener in listeners { calls.append { listener.didReceive(dataSyncGap: gap) } }
        return calls
    }

    /// The dedupe setting of DataSync events.
    package var deduplication: PubNubDataSyncDeduplication {
        get { state.withLock { $0.deduplicator.setting } }
        set { state.withLock { $0.deduplicator.update(newValue) } }
    }

    private static func call(for event: PubNubEvent, _ closures: Closures) -> (@Sendable () -> Void)? {
        switch event {
        case .message(let message):
            guard let closure = closures.onMessage else { return nil }
            return { closure(message) }
        case .signal(let signal):
            guard let closure = closures.onSignal else { return nil }
            return { closure(signal) }
        case .presence(let presence):
            guard let closure = closures.onPresence else { return nil }
            return { closure(presence) }
        case .messageAction(let action):
            guard let closure = closures.onMessageAction else { return nil }
            return { closure(action) }
        case .file(let file):
            guard let closure = closures.onFileEvent else { return nil }
            return { closure(file) }
        case .appContext(let object):
            guard let closure = closures.onAppContext else { return nil }
            return { closure(object) }
        case .dataSync(let change):
            guard let closure = closures.onDataSync else { return nil }
            return { closure(change) }
        case .unknown(let raw):
            guard let closure = closures.onUnknownEvent else { return nil }
            return { closure(raw) }
        }
    }

    /// A stream of the events `extract` picks, fed from this store until it is cancelled or
    /// ``finishSinks()`` runs; `onEnd` runs once when it ends.
    package func stream<Element: Sendable>(
        bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy,
        extract: @escaping @Sendable (PubNubEvent) -> Element?,
        status: (@Sendable (PubNubStatus) -> Element?)? = nil,
        gap: (@Sendable (PubNubDataSyncGap) -> Element?)? = nil,
        possibleLoss: (@Sendable (PubNubStatus) -> Element?)? = nil,
        onEnd: @escaping @Sendable () -> Void = {}
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let sink = Sink(
            deliver: { event in
                if let element = extract(event) { continuation.yield(element) }
            },
            status: { value in
                if let element = status?(value) { continuation.yield(element) }
            },
            finish: { continuation.finish() },
            gap: { value in
                if let element = gap?(value) { continuation.yield(element) }
            },
            possibleLoss: { value in
                if let element = possibleLoss?(value) { continuation.yield(element) }
            })
        let id = Locked<UInt64?>(nil)
        continuation.onTermination = { [weak self] _ in
            if let registered = id.withLock({ $0 }) { self?.removeSink(registered) }
            onEnd()
        }
        let registered = addSink(sink)
        id.withLock { $0 = registered }
        return stream
    }
}

extension PubNubEvent {
    var message: PubNubMessage? {
        if case .message(let value) = self { return value }
        return nil
    }
    var signal: PubNubSignal? {
        if case .signal(let value) = self { return value }
        return nil
    }
    var presenceEvent: PubNubPresenceEvent? {
        if case .presence(let value) = self { return value }
        return nil
    }
    var messageActionEvent: PubNubMessageActionEvent? {
        if case .messageAction(let value) = self { return value }
        return nil
    }
    var fileEvent: PubNubFileEvent? {
        if case .file(let value) = self { return value }
        return nil
    }
    var appContextEvent: PubNubAppContextEvent? {
        if case .appContext(let value) = self { return value }
        return nil
    }
    var dataSyncEvent: PubNubDataSyncEvent? {
        if case .dataSync(let value) = self { return value }
        return nil
    }
}
