import EmulatorHTTP
public import Foundation
import PubNubBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one clock every part of the emulator reads: the current wall time, sleeping until a
/// wall-time deadline, and PubNub timetokens.
///
/// It comes in two variants that differ only in how time moves:
///
/// - ``system()`` follows the system's real-time clock. ``advance(by:)`` shifts it by an offset
///   (sleepers whose deadline the jump passes wake at once; the others keep waiting, for the
///   shorter remaining time).
/// - ``manual(startingAt:)`` stands still until told to move, with ``advance(by:)`` or
///   ``set(to:)``. Sleepers wake, in deadline order, as soon as the clock reaches their deadline
///   and never before, so tests drive TTLs, presence timeouts and long-poll timeouts without
///   sleeping. ``set(to:)`` also stops a system clock at that instant.
///
/// It is a Swift `Clock`, so `sleep(for:)` and `any Clock<Duration>` work with it. Sleeping
/// honours task cancellation: a cancelled sleeper throws `CancellationError` at once.
/// `EmulatorClock` is safe to use from any task or thread.
///
/// ```swift
/// let clock = EmulatorClock.manual(startingAt: Date(timeIntervalSince1970: 1_788_766_495))
/// let emulator = try Emulator(configuration: EmulatorConfiguration(clock: clock))
/// let held = Task { try await clock.sleep(for: .seconds(280)) }  // say, a long-poll's timeout
/// await clock.waitForSleepers(1)
/// clock.advance(by: .seconds(280))                                // `held` finishes now
/// ```
public final class EmulatorClock: Clock, Sendable {
    /// A wall-clock instant: nanoseconds since 1970-01-01T00:00:00Z.
    public struct Instant: InstantProtocol, Hashable, Sendable, Comparable {
        /// Nanoseconds since the Unix epoch (negative before it).
        public var nanosecondsSince1970: Int64

        /// Creates an instant `nanosecondsSince1970` after the Unix epoch.
        public init(nanosecondsSince1970: Int64) {
            self.nanosecondsSince1970 = nanosecondsSince1970
        }

        /// The instant of `date`, to the nanosecond (whole seconds and the fraction are converted
        /// apart, so a date such as `1_788_766_495.265_625` keeps its exact fraction). Dates
        /// beyond what 64-bit nanoseconds hold (about the years 1678 to 2262) are clamped to the
        /// nearest end.
        public init(_ date: Date) {
            let interval = date.timeIntervalSince1970
            let limit = Double(Int64.max / 1_000_000_000) - 1
            guard interval.isFinite, abs(interval) < limit else {
                nanosecondsSince1970 = interval.isNaN ? 0 : (interval > 0 ? .max : .min)
                return
            }
            let seconds = interval.rounded(.down)
            let fraction = interval - seconds
            nanosecondsSince1970 = Int64(seconds) * 1_000_000_000 + Int64((fraction * 1e9).rounded(.down))
        }

        /// The same instant as a `Date` (to the microsecond, the precision the emulator stores).
        public var date: Date { Date(timeIntervalSince1970: Double(microsecondsSince1970) / 1_000_000) }

        /// Whole microseconds since the Unix epoch, rounded towards the past.
        public var microsecondsSince1970: Int64 { Self.floorDiv(nanosecondsSince1970, 1000) }

        /// The instant `duration` later (earlier when negative), stopping at the ends of what
        /// 64-bit nanoseconds hold rather than wrapping: a clock set near its end (say to the year
        /// 3000, which ``init(_:)`` clamps) plus a timeout stays at the end.
        public func advanced(by duration: Duration) -> Instant {
            Instant(nanosecondsSince1970: Self.adding(nanosecondsSince1970, Self.nanoseconds(duration)))
        }

        /// The duration from this instant to `other` (saturating at the ends of 64-bit
        /// nanoseconds).
        public func duration(to other: Instant) -> Duration {
            .nanoseconds(Self.subtracting(other.nanosecondsSince1970, nanosecondsSince1970))
        }

        /// Earlier instants sort first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970
        }

        static func nanoseconds(_ duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            return adding(nanoseconds(seconds: seconds), attoseconds / 1_000_000_000)
        }

        // Time arithmetic on values that can come from the network or the admin routes (a
        // heartbeat, a clock set to the year 3000) saturates instead of trapping: an overflow
        // would take the whole emulator down.

        /// `seconds` in nanoseconds, saturating.
        static func nanoseconds(seconds: Int64) -> Int64 {
            let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            return overflow ? (seconds < 0 ? .min : .max) : product
        }

        /// `lhs + rhs`, saturating.
        static func adding(_ lhs: Int64, _ rhs: Int64) -> Int64 {
            let (sum, overflow) = lhs.addingReportingOverflow(rhs)
            return overflow ? (rhs < 0 ? .min : .max) : sum
        }

        /// `lhs - rhs`, saturating.
        static func subtracting(_ lhs: Int64, _ rhs: Int64) -> Int64 {
            let (difference, overflow) = lhs.subtractingReportingOverflow(rhs)
            return overflow ? (rhs < 0 ? .max : .min) : difference
        }

        /// `value / divisor` rounded towards negative infinity (`divisor` > 0), without overflow.
        static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
            let quotient = value / divisor
            return value % divisor < 0 ? quotient - 1 : quotient
        }
    }

    private enum Mode {
        /// System real time plus an offset in nanoseconds.
        case running(offset: Int64)
        /// Standing still at an instant (nanoseconds since 1970).
        case stopped(at: Int64)
    }

    private struct Sleeper {
        let deadline: Int64
        let continuation: CheckedContinuation<Void, any Error>
        /// The real-time timer of a sleeper on a running clock.
        let timer: Task<Void, Never>?
    }

    private struct State {
        var mode: Mode
        var nextSleeper: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
        /// Sleeps cancelled before they registered (the cancellation handler ran first).
        var cancelledEarly: Set<UInt64> = []
        /// The last timetoken handed out per subscribe key.
        var lastTimetokens: [String: UInt64] = [:]

        var now: Int64 {
            switch mode {
            case .running(let offset): return Instant.adding(EmulatorClock.systemNanoseconds(), offset)
            case .stopped(let instant): return instant
            }
        }
    }

    private let state: Locked<State>

    private init(mode: Mode) {
        state = Locked(State(mode: mode))
    }

    /// A clock that follows the system's real-time clock (until moved or stopped).
    public static func system() -> EmulatorClock {
        EmulatorClock(mode: .running(offset: 0))
    }

    /// A clock standing still at `start` until ``advance(by:)`` or ``set(to:)`` moves it.
    public static func manual(startingAt start: Date) -> EmulatorClock {
        EmulatorClock(mode: .stopped(at: Instant(start).nanosecondsSince1970))
    }

    /// The current instant.
    public var now: Instant { Instant(nanosecondsSince1970: state.withLock { $0.now }) }

    /// The finest step the clock reports: one nanosecond (timetokens use 100 ns ticks).
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Whether the clock stands still (a manual clock, or one stopped by ``set(to:)``).
    public var isStopped: Bool {
        state.withLock { state in
            if case .stopped = state.mode { return true }
            return false
        }
    }

    /// How many tasks are sleeping on this clock right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    // MARK: Moving time

    /// Moves the clock by `duration` (backwards when negative) and wakes every sleeper whose
    /// deadline has come. On a running clock this shifts its offset from system time.
    public func advance(by duration: Duration) {
        let step = Instant.nanoseconds(duration)
        timeChanged { mode in
            switch mode {
            case .running(let offset): mode = .running(offset: Instant.adding(offset, step))
            case .stopped(let instant): mode = .stopped(at: Instant.adding(instant, step))
            }
        }
    }

    /// Stops the clock at `instant` (it stays there until moved again) and wakes every sleeper
    /// whose deadline has come. Moving backwards is allowed; it wakes nobody.
    public func set(to instant: Instant) {
        timeChanged { mode in mode = .stopped(at: instant.nanosecondsSince1970) }
    }

    private func timeChanged(_ change: (inout Mode) -> Void) {
        let woken: [Sleeper] = state.withLock { state in
            change(&state.mode)
            let now = state.now
            // On a running clock every sleeper wakes to re-arm its timer for the new remaining
            // time; on a stopped one only those whose deadline has come.
            let running: Bool
            if case .running = state.mode { running = true } else { running = false }
            let due = state.sleepers.filter { running || $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in woken {
            sleeper.timer?.cancel()
            sleeper.continuation.resume()
        }
    }

    // MARK: Sleeping

    /// Suspends until the clock reaches `deadline` (at once when it already has).
    ///
    /// - Throws: `CancellationError` as soon as the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        while true {
            try Task.checkCancellation()
            if now >= deadline { return }
            try await waitOnce(until: deadline.nanosecondsSince1970)
        }
    }

    /// Returns once at least `count` tasks sleep on this clock, yielding between checks, so a test
    /// can move time after the code under test has started waiting, without sleeping itself.
    public func waitForSleepers(_ count: Int) async {
        while sleeperCount < count {
            await Task.yield()
        }
    }

    /// Waits until woken: the deadline came (timer or a move), time jumped, or cancellation.
    private func waitOnce(until deadline: Int64) async throws {
        let id = state.withLock { state in
            state.nextSleeper += 1
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    let now = state.now
                    if deadline <= now { return .success(()) }
                    var timer: Task<Void, Never>?
                    if case .running = state.mode {
                        let wait = Instant.subtracting(deadline, now)
                        timer = Task { [weak self] in
                            guard (try? await Task.sleep(for: .nanoseconds(wait))) != nil else { return }
                            self?.wake(id)
                        }
                    }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation, timer: timer)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelledEarly.insert(id)
                return nil
            }
            sleeper?.timer?.cancel()
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    private func wake(_ id: UInt64) {
        let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
        sleeper?.continuation.resume()
    }

    // MARK: Timetokens

    /// A new PubNub timetoken for the keyset of `subscribeKey`: the current time in 100 ns ticks
    /// since the Unix epoch (17 digits for any date from 2001-09-09 to 2286), strictly greater
    /// than every timetoken drawn before for that keyset.
    ///
    /// When the clock has not moved past the last timetoken (a stopped clock, many drawn within
    /// one tick, or time set back), the result is the last one plus one. Keysets are independent:
    /// drawing for one never skips values of another.
    public func timetoken(for subscribeKey: String) -> UInt64 {
        state.withLock { state in
            let tick = UInt64(clamping: Instant.floorDiv(state.now, 100))
            let last = state.lastTimetokens[subscribeKey] ?? 0
            let next = tick > last ? tick : last + 1
            state.lastTimetokens[subscribeKey] = next
            return next
        }
    }

    // MARK: Restarts

    /// How the clock is set, in a form a state file keeps: a restarted emulator puts it back so a
    /// clock moved with the admin routes stays moved.
    enum Setting: Sendable, Hashable {
        /// Following system time, shifted by this many nanoseconds.
        case running(offset: Int64)
        /// Standing still at this many nanoseconds since 1970.
        case stopped(at: Int64)
    }

    /// The clock's current setting (see ``Setting``).
    var setting: Setting {
        state.withLock { state in
            switch state.mode {
            case .running(let offset): return .running(offset: offset)
            case .stopped(let instant): return .stopped(at: instant)
            }
        }
    }

    /// Puts back a setting saved before a restart (waking sleepers as any move does).
    func restore(_ setting: Setting) {
        timeChanged { mode in
            switch setting {
            case .running(let offset): mode = .running(offset: offset)
            case .stopped(let instant): mode = .stopped(at: instant)
            }
        }
    }

    /// Makes the timetokens of each keyset in `floors` continue above the given value: what a
    /// restarted emulator calls with the highest timetoken its previous run may have handed out.
    func continueTimetokens(above floors: [String: UInt64]) {
        state.withLock { state in
            for (subscribeKey, floor) in floors {
                state.lastTimetokens[subscribeKey] = max(state.lastTimetokens[subscribeKey] ?? 0, floor)
            }
        }
    }

    /// The system's real-time clock in nanoseconds since the Unix epoch.
    private static func systemNanoseconds() -> Int64 {
        var spec = timespec()
        guard clock_gettime(CLOCK_REALTIME, &spec) == 0 else {
            return Instant(Date()).nanosecondsSince1970
        }
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
