public import Foundation

/// A middleware that resends a failed request according to a ``RetryPolicy``.
///
/// A request is resent only when all of these hold:
/// - it may be repeated: ``HTTPRequest/mayRetry`` (an idempotent method, or marked retryable);
/// - the attempt failed with a ``TransportError`` whose ``TransportError/isRetryable`` is true, or
///   the response status is in ``RetryPolicy/retryableStatuses`` (429, 500, 502, 503, 504);
/// - the policy allows another retry.
///
/// Otherwise the last response is returned, or the last error thrown. Waits use the injected
/// clock, so tests drive them with a manual clock. A `Retry-After` header (seconds or an HTTP
/// date) replaces the computed delay; one longer than ``RetryPolicy/maximumDelay`` ends the
/// retries. Cancelling the task during a wait throws ``TransportError/Code-swift.struct/cancelled``.
///
/// With a ``deadline``, the whole call (every attempt and every wait, measured on the injected
/// clock) is bounded: each attempt's timeout is cut to the time left, and no retry is scheduled
/// whose wait would end past the deadline (the last answer or error is returned instead).
///
/// ```swift
/// let client = base.with([RetryMiddleware(policy: .linear(delay: .seconds(2), maximumRetries: 3))])
/// ```
public struct RetryMiddleware: CallerIsolatedMiddleware {
    /// The policy applied to every request.
    public let policy: RetryPolicy
    /// The longest a call may take, attempts and waits included; `nil` for no overall bound.
    public let deadline: Duration?
    private let clock: any Clock<Duration>
    private let unitRandom: @Sendable () -> Double
    private let now: @Sendable () -> Date

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - policy: when and how often to retry.
    ///   - clock: the clock that waits between attempts.
    ///   - unitRandom: returns a number in `0..<1` choosing the jitter; inject a fixed source in tests.
    ///   - now: the wall-clock time, used to turn a `Retry-After` date into a delay.
    ///   - deadline: the longest the whole call may take on `clock`; `nil` for no overall bound.
    public init(
        policy: RetryPolicy, clock: any Clock<Duration> = ContinuousClock(),
        unitRandom: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        now: @escaping @Sendable () -> Date = { Date() }, deadline: Duration? = nil
    ) {
        self.policy = policy
        self.deadline = deadline
        self.clock = clock
        self.unitRandom = unitRandom
        self.now = now
    }

    /// Sends the request, resending it while the policy allows.
    package func interceptOnCallersActor(
        _ request: HTTPRequest, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        var retry = 0
        let elapsed = clock.stopwatch()
        while true {
            var attempt = request
            if let deadline {
                let remaining = deadline - elapsed()
                guard remaining > .zero else {
                    throw TransportError(code: .timedOut, message: "the call's deadline of \(deadline) passed")
                }
                attempt.timeout = min(request.timeout ?? remaining, remaining)
            }
            let delay: Duration
            do {
                let response = try await next(attempt)
                guard request.mayRetry, policy.retryableStatuses.contains(response.status), policy.allowsRetry(retry)
                else { return response }
                if let asked = Self.retryAfter(response.headers["Retry-After"], now: now()) {
                    guard asked <= policy.maximumDelay else { return response }
                    delay = asked
                } else {
                    delay = policy.delay(beforeRetry: retry, unitRandom: unitRandom())
                }
                if let deadline, elapsed() + delay >= deadline { return response }
            } catch let error as TransportError {
                guard request.mayRetry, error.isRetryable, policy.allowsRetry(retry) else { throw error }
                delay = policy.delay(beforeRetry: retry, unitRandom: unitRandom())
                if let deadline, elapsed() + delay >= deadline { throw error }
            }
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw TransportError(
                    code: .cancelled, message: "cancelled while waiting to retry", isRetryable: false)
            }
            retry += 1
        }
    }

    /// Reads a `Retry-After` value: a number of seconds, or an IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`) turned into the time left from `now` (zero if past).
    /// Returns `nil` for a missing or unreadable value.
    public static func retryAfter(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Digits too many for Int64 still mean "a very long time", which ends the retries.
            return .seconds(Int64(value) ?? Int64.max)
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        let interval = date.timeIntervalSince(now)
        return interval > 0 ? .milliseconds(Int64((interval * 1000).rounded(.up))) : .zero
    }
}

extension Clock where Duration == Swift.Duration {
    /// A function returning the time passed on this clock since the call.
    func stopwatch() -> () -> Duration {
        let start = now
        return { start.duration(to: self.now) }
    }
}

/// Parses the HTTP date format every server sends (RFC 9110 IMF-fixdate).
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` → the date, or `nil` when the text is not in that form.
    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","),
            weekdays.contains(String(parts[0].dropLast())), parts[5] == "GMT",
            parts[1].count == 2, let day = Int(parts[1]), (1...31).contains(day),
            let monthIndex = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysSinceEpoch(year: year, month: monthIndex + 1, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
