import DataSyncTestSupport
import Foundation
import Testing
import Transport

/// Collects what a test client saw, safely across tasks.
final class AttemptLog: @unchecked Sendable {
    // @unchecked Sendable: `requests` is only touched under `lock`.
    private let lock = NSLock()
    private var requests: [HTTPRequest] = []

    func record(_ request: HTTPRequest) -> Int {
        lock.withLock {
            requests.append(request)
            return requests.count
        }
    }

    var count: Int { lock.withLock { requests.count } }
}

/// A task running a request, with a flag telling whether it has finished, so a test can wait for
/// a sleep without hanging when the code under test returns instead of sleeping.
struct RunningRequest: Sendable {
    let task: Task<HTTPResponse, any Error>
    private let done: Flag

    final class Flag: @unchecked Sendable {
        // @unchecked Sendable: `value` is only touched under `lock`.
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    init(_ body: @escaping @Sendable () async throws -> HTTPResponse) {
        let done = Flag()
        self.done = done
        task = Task {
            defer { done.set() }
            return try await body()
        }
    }

    /// Waits until the request sleeps on `clock`; records an issue if it finished instead.
    func waitForSleep(on clock: ManualClock, sourceLocation: SourceLocation = #_sourceLocation) async {
        let done = done
        let settled = await eventually { clock.sleeperCount >= 1 || done.isSet }
        if !settled || clock.sleeperCount < 1 {
            Issue.record("the request finished instead of waiting", sourceLocation: sourceLocation)
        }
    }

    var value: HTTPResponse {
        get async throws { try await task.value }
    }

    func cancel() { task.cancel() }
}

@Suite("RetryPolicy")
struct RetryPolicyTests {
    @Test("exponential delays double from the minimum and stop at the maximum")
    func exponentialSchedule() {
        let policy = RetryPolicy.exponential(
            minimumDelay: .seconds(2), maximumDelay: .seconds(150), maximumRetries: 10, maximumJitter: .zero)
        let delays = (0..<9).map { policy.baseDelay(beforeRetry: $0) }
        #expect(
            delays == [2, 4, 8, 16, 32, 64, 128, 150, 150].map { Duration.seconds($0) })
    }

    @Test("linear delays stay the same")
    func linearSchedule() {
        let policy = RetryPolicy.linear(delay: .seconds(3), maximumRetries: 4, maximumJitter: .zero)
        #expect((0..<4).map { policy.baseDelay(beforeRetry: $0) } == Array(repeating: .seconds(3), count: 4))
        #expect(policy.allowsRetry(3))
        #expect(!policy.allowsRetry(4))
    }

    @Test("the none policy never retries")
    func noneNeverRetries() {
        #expect(!RetryPolicy.none.allowsRetry(0))
    }

    @Test("jitter stays between zero and the maximum", arguments: [0.0, 0.25, 0.5, 0.999_999, 1.0, -3, .nan])
    func jitterBounds(unit: Double) {
        let policy = RetryPolicy.linear(delay: .seconds(2), maximumJitter: .seconds(1))
        let delay = policy.delay(beforeRetry: 0, unitRandom: unit)
        #expect(delay >= .seconds(2))
        #expect(delay <= .seconds(3))
    }

    @Test("jitter from the default random source stays in bounds")
    func defaultRandomJitter() {
        let policy = RetryPolicy.exponential(minimumDelay: .seconds(1), maximumJitter: .milliseconds(500))
        for _ in 0..<1_000 {
            let delay = policy.delay(beforeRetry: 2, unitRandom: Double.random(in: 0..<1))
            #expect(delay >= .seconds(4) && delay < .milliseconds(4_500))
        }
    }
}

@Suite("RetryMiddleware")
struct RetryMiddlewareTests {
    private static let request = HTTPRequest(host: "example.com", path: "/v1/x")

    /// Runs `request` through a retry middleware in front of `client` in a task.
    /// Expects `task` to sleep once, for `delay`, and to succeed when the clock has moved by it.
    private static func expectOneSleep(
        _ delay: Duration, thenSuccess task: RunningRequest, on clock: ManualClock,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        await task.waitForSleep(on: clock, sourceLocation: sourceLocation)
        #expect(clock.requestedSleeps == [delay], sourceLocation: sourceLocation)
        clock.advance(by: delay)
        #expect(try await task.value.status == 200, sourceLocation: sourceLocation)
    }

    private static func start(
        _ request: HTTPRequest = request, policy: RetryPolicy, clock: ManualClock, client: any HTTPClient,
        unitRandom: @escaping @Sendable () -> Double = { 0 }, now: Date = Date(timeIntervalSince1970: 0)
    ) -> RunningRequest {
        let chain = client.with([RetryMiddleware(policy: policy, clock: clock, unitRandom: unitRandom, now: { now })])
        return RunningRequest { try await chain.send(request) }
    }

    private static func failing(_ statuses: [Int], log: AttemptLog, headers: HTTPHeaders = HTTPHeaders())
        -> MockHTTPClient
    {
        MockHTTPClient { request in
            let attempt = log.record(request)
            let status = attempt <= statuses.count ? statuses[attempt - 1] : 200
            return HTTPResponse(status: status, headers: headers)
        }
    }

    @Test("retries follow the exponential schedule, with jitter from the injected source")
    func schedule() async throws {
        let clock = ManualClock()
        let log = AttemptLog()
        let policy = RetryPolicy.exponential(
            minimumDelay: .seconds(2), maximumDelay: .seconds(10), maximumRetries: 5,
            maximumJitter: .milliseconds(1_000))
        let task = Self.start(
            policy: policy, clock: clock, client: Self.failing([500, 502, 503, 504], log: log), unitRandom: { 0.5 })
        for expected in [2_500, 4_500, 8_500, 10_500] {
            await task.waitForSleep(on: clock)
            #expect(clock.requestedSleeps.last == .milliseconds(expected))
            clock.advance(by: .milliseconds(expected))
        }
        let response = try await task.value
        #expect(response.status == 200)
        #expect(log.count == 5)
        #expect(clock.requestedSleeps.count == 4)
    }

    @Test("retryable statuses are retried; others are returned at once", arguments: [429, 500, 502, 503, 504])
    func retryableStatus(status: Int) async throws {
        let clock = ManualClock()
        let log = AttemptLog()
        let task = Self.start(
            policy: .linear(delay: .seconds(1), maximumJitter: .zero), clock: clock,
            client: Self.failing([status], log: log))
        await task.waitForSleep(on: clock)
        clock.advance(by: .seconds(1))
        #expect(try await task.value.status == 200)
        #expect(log.count == 2)
    }

    @Test("non-retryable statuses are returned without waiting", arguments: [200, 204, 400, 403, 404, 409, 412, 501])
    func nonRetryableStatus(status: Int) async throws {
        let clock = ManualClock()
        let log = AttemptLog()
        let task = Self.start(
            policy: .linear(delay: .seconds(1)), clock: clock, client: Self.failing([status], log: log))
        #expect(try await task.value.status == status)
        #expect(log.count == 1)
        #expect(clock.requestedSleeps.isEmpty)
    }

    @Test("retryable transport errors are retried, others are thrown at once")
    func transportErrors() async throws {
        let clock = ManualClock()
        let retried = ScriptedHTTPClient([
            .failure(TransportError(code: .connectionLost, message: "reset")),
            .failure(TransportError(code: .timedOut, message: "slow")),
            .success(HTTPResponse(status: 200)),
        ])
        let task = Self.start(
            policy: .linear(delay: .seconds(1), maximumJitter: .zero), clock: clock, client: retried)
        for _ in 0..<2 {
            await task.waitForSleep(on: clock)
            clock.advance(by: .seconds(1))
        }
        #expect(try await task.value.status == 200)
        #expect(retried.requestCount == 3)

        let fatal = ScriptedHTTPClient([.failure(TransportError(code: .tls, message: "bad certificate"))])
        let fatalTask = Self.start(policy: .linear(delay: .seconds(1)), clock: clock, client: fatal)
        await #expect(throws: TransportError(code: .tls, message: "bad certificate")) { try await fatalTask.value }
        #expect(fatal.requestCount == 1)
    }

    @Test("gives up after the maximum retries and returns the last response")
    func givesUpWithResponse() async throws {
        let clock = ManualClock()
        let log = AttemptLog()
        let task = Self.start(
            policy: .linear(delay: .seconds(1), maximumRetries: 2, maximumJitter: .zero), clock: clock,
            client: Self.failing([503, 503, 503, 503], log: log))
        for _ in 0..<2 {
            await task.waitForSleep(on: clock)
            clock.advance(by: .seconds(1))
        }
        #expect(try await task.value.status == 503)
        #expect(log.count == 3)
    }

    @Test("gives up after the maximum retries and throws the last error")
    func givesUpWithError() async throws {
        let clock = ManualClock()
        let error = TransportError(code: .cannotConnect, message: "refused")
        let client = ScriptedHTTPClient(Array(repeating: .failure(error), count: 3))
        let task = Self.start(
            policy: .exponential(minimumDelay: .seconds(1), maximumRetries: 2, maximumJitter: .zero), clock: clock,
            client: client)
        await task.waitForSleep(on: clock)
        clock.advance(by: .seconds(1))
        await task.waitForSleep(on: clock)
        clock.advance(by: .seconds(2))
        await #expect(throws: error) { try await task.value }
        #expect(client.requestCount == 3)
    }

    @Test(
        "only requests that may be repeated are retried",
        arguments: [
            (HTTPMethod.get, false, 2), (.head, false, 2), (.put, false, 2), (.delete, false, 2),
            (.post, false, 1), (.patch, false, 1), (.post, true, 2), (.patch, true, 2),
        ])
    func idempotency(method: HTTPMethod, markedRetryable: Bool, expectedAttempts: Int) async throws {
        let clock = ManualClock()
        let log = AttemptLog()
        let request = HTTPRequest(method: method, host: "example.com", isRetryable: markedRetryable)
        let task = Self.start(
            request, policy: .linear(delay: .seconds(1), maximumJitter: .zero), clock: clock,
            client: Self.failing([503], log: log))
        if expectedAttempts > 1 {
            await task.waitForSleep(on: clock)
            clock.advance(by: .seconds(1))
        }
        let response = try await task.value
        #expect(log.count == expectedAttempts)
        #expect(response.status == (expectedAttempts > 1 ? 200 : 503))
    }

    @Test("a POST failing with a retryable error is not resent unless marked")
    func postErrorNotRetried() async throws {
        let clock = ManualClock()
        let client = ScriptedHTTPClient([.failure(TransportError(code: .connectionLost, message: "reset"))])
        let task = Self.start(
            HTTPRequest(method: .post, host: "example.com"), policy: .linear(), clock: clock, client: client)
        await #expect(throws: TransportError.self) { try await task.value }
        #expect(client.requestCount == 1)
    }

    @Test("Retry-After in seconds replaces the computed delay")
    func retryAfterSeconds() async throws {
        let clock = ManualClock()
        let log = AttemptLog()
        let task = Self.start(
            policy: .exponential(minimumDelay: .seconds(2), maximumDelay: .seconds(60)), clock: clock,
            client: Self.failing([429], log: log, headers: ["Retry-After": "7"]), unitRandom: { 0.9 })
        try await Self.expectOneSleep(.seconds(7), thenSuccess: task, on: clock)
    }

    @Test("Retry-After as an HTTP date waits until that date")
    func retryAfterDate() async throws {
        let clock = ManualClock()
        let log = AttemptLog()
        // 1994-11-06 08:49:37 UTC is 784111777 seconds after the epoch.
        let now = Date(timeIntervalSince1970: 784_111_777 - 12)
        let task = Self.start(
            policy: .linear(delay: .seconds(1)), clock: clock,
            client: Self.failing([503], log: log, headers: ["Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"]),
            now: now)
        try await Self.expectOneSleep(.seconds(12), thenSuccess: task, on: clock)
    }

    @Test("a Retry-After beyond the maximum delay ends the retries")
    func retryAfterTooLong() async throws {
        let clock = ManualClock()
        let log = AttemptLog()
        let task = Self.start(
            policy: .exponential(maximumDelay: .seconds(150)), clock: clock,
            client: Self.failing([503], log: log, headers: ["Retry-After": "3600"]))
        #expect(try await task.value.status == 503)
        #expect(log.count == 1)
    }

    @Test(
        "Retry-After parsing",
        arguments: [
            ("0", Duration.zero), ("120", .seconds(120)), (" 5 ", .seconds(5)),
            ("Sun, 06 Nov 1994 08:49:37 GMT", .seconds(37)), ("Sun, 06 Nov 1994 08:48:00 GMT", .zero),
            ("Thu, 01 Jan 1970 00:00:00 GMT", .zero),
        ])
    func retryAfterParsing(text: String, expected: Duration) {
        let now = Date(timeIntervalSince1970: 784_111_777 - 37)
        #expect(RetryMiddleware.retryAfter(text, now: now) == expected)
    }

    @Test(
        "unreadable Retry-After values are ignored",
        arguments: ["", "-1", "1.5", "soon", "Sun, 06 Nov 1994 08:49:37 PST", "Sunday, 06-Nov-94 08:49:37 GMT"])
    func retryAfterUnreadable(text: String) {
        #expect(RetryMiddleware.retryAfter(text, now: Date()) == nil)
    }

    @Test("cancelling during the backoff ends the wait with a cancelled error and sends nothing more")
    func cancelDuringBackoff() async throws {
        let clock = ManualClock()
        let log = AttemptLog()
        let task = Self.start(
            policy: .linear(delay: .seconds(30)), clock: clock, client: Self.failing([503, 503], log: log))
        await task.waitForSleep(on: clock)
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("expected a cancellation")
        } catch let error as TransportError {
            #expect(error.code == .cancelled)
        }
        #expect(log.count == 1)
    }
}
