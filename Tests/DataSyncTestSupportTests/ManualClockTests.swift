import DataSyncTestSupport
import JSONCore
import Testing
import Transport

@Suite struct ManualClockTests {
    @Test func sleeperWakesOnlyWhenTheDeadlineIsReached() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(5)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await task.value
        #expect(clock.sleeperCount == 0)
        #expect(clock.requestedSleeps == [.seconds(5)])
    }

    @Test func cancellingASleeperThrowsCancellation() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test(.timeLimit(.minutes(1))) func aCancelledWaitForSleepersReturnsInsteadOfSpinning() async {
        let clock = ManualClock()
        // Nothing ever sleeps on this clock: only the cancellation can end the wait.
        let waiting = Task { await clock.waitForSleepers(1) }
        waiting.cancel()
        await waiting.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func aPastDeadlineReturnsImmediately() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(10))
        try await clock.sleep(until: ManualClock.Instant(offset: .seconds(3)))
        #expect(clock.now.offset == .seconds(10))
    }
}

@Suite struct MockClientTests {
    @Test func scriptedClientAnswersInOrderThenFails() async throws {
        let client = ScriptedHTTPClient([
            .success(HTTPResponse(status: 200)), .failure(TransportError(code: .timedOut, message: "slow")),
        ])
        let request = HTTPRequest(host: "example.invalid")
        #expect(try await client.send(request).status == 200)
        await #expect(throws: TransportError.self) { try await client.send(request) }
        await #expect(throws: TransportError.self) { try await client.send(request) }
        #expect(client.requestCount == 3)
    }

    @Test func recorderKeepsEveryRequest() async throws {
        let recorder = RecordingHTTPClient(MockHTTPClient.json(["ok": true]))
        _ = try await recorder.send(HTTPRequest(host: "a.invalid", path: "/one"))
        _ = try await recorder.send(HTTPRequest(method: .post, host: "a.invalid", path: "/two"))
        #expect(recorder.requests.map(\.path) == ["/one", "/two"])
        #expect(recorder.lastRequest?.method == .post)
    }
}
