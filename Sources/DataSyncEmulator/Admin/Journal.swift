import EmulatorHTTP
import PubNubBase

/// A bounded, numbered ring of recent entries that readers can wait on: the store behind the
/// console's live request log and its live change stream.
///
/// Every appended entry gets the next sequence number (1, 2, …); once `capacity` entries are
/// held, each append overwrites the oldest (a real ring: appending is O(1) whatever the size, and
/// the storage grows only as entries arrive).
/// Readers ask for the entries after a sequence number they saw and may wait, in real time,
/// until a newer one arrives. Appending never waits and never suspends, so it is safe from a
/// change-feed subscriber or the router.
final class Journal<Element: Sendable>: Sendable {
    private struct State {
        /// The entries; once full, a ring starting at `start`.
        var storage: [Element] = []
        /// The index in `storage` of the oldest entry.
        var start = 0
        var count: Int { storage.count }
        /// The sequence number of the newest entry (0 before any).
        var last: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waits cancelled before they registered.
        var cancelledEarly: Set<UInt64> = []
        /// How a long-poll waits out its `wait` (real time: a console's poll must end even when
        /// the emulator's clock is stopped). Tests swap in one that never ends.
        var sleep: @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }

        func element(at offset: Int) -> Element { storage[(start + offset) % storage.count] }
    }

    /// The most entries held.
    let capacity: Int
    private let state: Locked<State>

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Locked(State())
    }

    /// The sequence number of the newest entry (0 before any).
    var lastSequence: UInt64 { state.withLock { $0.last } }

    /// The sequence number of the oldest entry still held (1 before anything was dropped).
    var firstSequence: UInt64 { state.withLock { $0.last - UInt64($0.count) + 1 } }

    /// Appends the entry `make` builds from its sequence number, dropping the oldest when full,
    /// and wakes every waiting reader.
    @discardableResult
    func append(_ make: (UInt64) -> Element) -> UInt64 {
        let (sequence, woken): (UInt64, [CheckedContinuation<Void, Never>]) = state.withLock { state in
            state.last += 1
            let element = make(state.last)
            if state.storage.count < capacity {
                state.storage.append(element)
            } else {
                state.storage[state.start] = element
                state.start = (state.start + 1) % capacity
            }
            guard !state.waiters.isEmpty else { return (state.last, []) }
            let waiting = Array(state.waiters.values)
            state.waiters = [:]
            return (state.last, waiting)
        }
        for continuation in woken { continuation.resume() }
        return sequence
    }

    /// Entries with their sequence numbers, oldest first: with `after` nil the newest `limit`;
    /// otherwise the first `limit` after `after` (those already dropped are gone). `matching`
    /// filters before the limit is applied. `through` is the last sequence number looked at: the
    /// cursor to pass as `after` next time, so entries `matching` refused are not looked at again.
    func entries(after: UInt64?, limit: Int, matching: (Element) -> Bool = { _ in true }) -> (
        entries: [(sequence: UInt64, element: Element)], through: UInt64
    ) {
        let limit = max(0, limit)
        return state.withLock { state in
            let first = state.last - UInt64(state.count) + 1
            var found: [(sequence: UInt64, element: Element)] = []
            guard let after else {
                var offset = state.count - 1
                while offset >= 0, found.count < limit {
                    let element = state.element(at: offset)
                    if matching(element) { found.append((first + UInt64(offset), element)) }
                    offset -= 1
                }
                return (found.reversed(), state.last)
            }
            var offset = after >= first ? Int(min(after - first + 1, UInt64(state.count))) : 0
            var through = max(after, first - 1)
            while offset < state.count, found.count < limit {
                let element = state.element(at: offset)
                if matching(element) { found.append((first + UInt64(offset), element)) }
                through = first + UInt64(offset)
                offset += 1
            }
            return (found, min(max(through, after), max(state.last, after)))
        }
    }

    /// Returns once an entry newer than `sequence` exists, `timeout` of real time has passed, or
    /// the task is cancelled, whichever comes first. Real time, not the emulator clock: a console
    /// must keep working while a test holds the clock still.
    func wait(after sequence: UInt64, timeout: Duration) async {
        guard timeout > .zero, lastSequence <= sequence else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForAppend(after: sequence) }
            let sleep = state.withLock { $0.sleep }
            group.addTask { await sleep(timeout) }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// How many long-polls are parked waiting for an append (tests wait on it instead of sleeping).
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Replaces how long-polls wait out their `wait` (for tests: one that only ends when cancelled
    /// proves a poll was ended by an append).
    func replaceTimeoutSleep(_ sleep: @escaping @Sendable (Duration) async -> Void) {
        state.withLock { $0.sleep = sleep }
    }

    private func waitForAppend(after sequence: UInt64) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let immediate: Bool = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return true }
                    if state.last > sequence { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if immediate { continuation.resume() }
            }
        } onCancel: {
            let waiting: CheckedContinuation<Void, Never>? = state.withLock { state in
                if let continuation = state.waiters.removeValue(forKey: id) { return continuation }
                state.cancelledEarly.insert(id)
                return nil
            }
            waiting?.resume()
        }
    }
}
