import Foundation
import Transport

/// Says on standard error what the SDK is doing while it resends a call, so an unreachable
/// origin does not look like a hang: `datasync: GET 127.0.0.1:9/time/0: attempt 1 of 4 failed
/// (connection refused); retrying in 1.2 s`.
///
/// Two halves: ``middleware`` (inside the SDK's retry loop, so it sees every attempt) records why
/// an attempt failed, and ``clock`` (the client's clock, on which the retry loop waits) prints the
/// line when a wait starts. A wait only follows a failure when a retry is about to happen, so
/// nothing is printed for a failure the SDK does not retry.
final class RetryReporter: Sendable {
    private struct Failure {
        var request: String
        var attempt: Int
        var reason: String
    }

    private let maximumAttempts: Int
    private let report: @Sendable (String) -> Void
    private let state = LockedState()

    /// - Parameters:
    ///   - retries: the most retries the policy allows, to show "attempt 2 of 4".
    ///   - report: where a line goes (standard error, unless `--quiet`).
    init(retries: Int, report: @escaping @Sendable (String) -> Void) {
        maximumAttempts = retries + 1
        self.report = report
    }

    var middleware: any HTTPMiddleware { FailureRecorder(reporter: self) }

    var clock: any Clock<Duration> { ReportingClock(reporter: self) }

    func attemptStarted(_ key: String) -> Int {
        state.withLock { state in
            state.attempts[key, default: 0] += 1
            return state.attempts[key, default: 1]
        }
    }

    func attemptFailed(_ key: String, attempt: Int, reason: String) {
        state.withLock { $0.pending = Failure(request: key, attempt: attempt, reason: reason) }
    }

    func attemptSucceeded(_ key: String) {
        state.withLock { $0.attempts[key] = nil }
    }

    func waiting(_ delay: Duration) {
        let pending = state.withLock { state in
            defer { state.pending = nil }
            return state.pending
        }
        guard let failure = pending else { return }
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        report(
            "\(failure.request): attempt \(failure.attempt) of \(maximumAttempts) failed (\(failure.reason)); "
                + "retrying in \(String(format: "%.1f", seconds)) s")
    }

    /// The reporter's mutable state behind a lock; never held across an `await`.
    private final class LockedState: @unchecked Sendable {
        // @unchecked: every access to `value` goes through `lock` in `withLock`.
        struct Value {
            var attempts: [String: Int] = [:]
            var pending: Failure?
        }

        private let lock = NSLock()
        private var value = Value()

        func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
            lock.withLock { body(&value) }
        }
    }
}

/// Records each attempt's failure for ``RetryReporter``; passes everything through unchanged.
private struct FailureRecorder: HTTPMiddleware {
    let reporter: RetryReporter

    func intercept(
        _ request: HTTPRequest, next: @concurrent @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        // The path only: the query may hold the token.
        let key = "\(request.method.rawValue) \(request.host)\(request.port.map { ":\($0)" } ?? "")\(request.path)"
        let attempt = reporter.attemptStarted(key)
        do {
            let response = try await next(request)
            if request.mayRetry, RetryPolicy.defaultRetryableStatuses.contains(response.status) {
                reporter.attemptFailed(key, attempt: attempt, reason: "HTTP \(response.status)")
            } else {
                reporter.attemptSucceeded(key)
            }
            return response
        } catch let error as TransportError {
            if request.mayRetry, error.isRetryable {
                reporter.attemptFailed(key, attempt: attempt, reason: error.message)
            }
            throw error
        }
    }
}

/// The continuous clock, telling ``RetryReporter`` when a wait starts.
private struct ReportingClock: Clock {
    typealias Duration = Swift.Duration
    typealias Instant = ContinuousClock.Instant

    let reporter: RetryReporter
    private let base = ContinuousClock()

    init(reporter: RetryReporter) {
        self.reporter = reporter
    }

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        reporter.waiting(base.now.duration(to: deadline))
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}
