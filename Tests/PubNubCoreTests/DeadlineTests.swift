import DataSyncModels
import DataSyncTestSupport
import PubNubCore
import Testing
import Transport

@Suite("Overall deadline of a REST call")
struct DeadlineTests {
    private func client(
        _ transport: any HTTPClient, clock: ManualClock, retry: RetryPolicy, timeout: Duration?, deadline: Duration?
    ) -> PubNub {
        var configuration = PubNubConfiguration(
            publishKey: nil, subscribeKey: "demo", userId: "me", transport: transport, retryPolicy: retry, clock: clock,
            requestTimeout: timeout)
        configuration.deadline = deadline
        return PubNub(configuration: configuration)
    }

    /// A client on a manual clock whose every request is answered 503, retried every 2 s up to
    /// ten times, with the recorder that sees each attempt.
    private func alwaysUnavailable(
        timeout: Duration?, deadline: Duration?
    ) -> (ManualClock, RecordingHTTPClient, PubNub) {
        let clock = ManualClock()
        let recorder = RecordingHTTPClient(MockHTTPClient { _ in HTTPResponse(status: 503, body: []) })
        let pubnub = client(
            recorder, clock: clock, retry: .linear(delay: .seconds(2), maximumRetries: 10, maximumJitter: .zero),
            timeout: timeout, deadline: deadline)
        return (clock, recorder, pubnub)
    }

    private let call = ServicePipeline.Call(method: .get, path: "/v2/presence/sub-key/demo/channel/a")

    @Test("retries stop when the next wait would pass the deadline; attempt timeouts shrink to the time left")
    func retriesBoundedByDeadline() async throws {
        let (clock, recorder, pubnub) = alwaysUnavailable(timeout: .seconds(2), deadline: .seconds(5))
        let task = Task { try await pubnub.pipeline.send(call, custom: .init()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        let error = await #expect(throws: PubNubError.self) { _ = try await task.value }
        #expect(error?.reason == .serviceUnavailable)
        #expect(recorder.requests.map(\.timeout) == [.seconds(2), .seconds(2), .seconds(1)])
        #expect(clock.requestedSleeps == [.seconds(2), .seconds(2)])
    }

    @Test("a per-request deadline overrides the configuration's")
    func perRequestDeadline() async throws {
        let (clock, recorder, pubnub) = alwaysUnavailable(timeout: nil, deadline: .seconds(100))
        let error = await #expect(throws: PubNubError.self) {
            _ = try await pubnub.pipeline.send(call, custom: .init(deadline: .seconds(1)))
        }
        #expect(error?.reason == .serviceUnavailable)
        #expect(recorder.requests.map(\.timeout) == [.seconds(1)])
        #expect(clock.requestedSleeps.isEmpty)
    }

    @Test("without retries the deadline is the one attempt's timeout when shorter")
    func singleAttempt() async throws {
        let recorder = RecordingHTTPClient(MockHTTPClient.success())
        let pubnub = client(recorder, clock: ManualClock(), retry: .none, timeout: nil, deadline: .seconds(3))
        _ = try await pubnub.pipeline.send(call, custom: .init())
        _ = try await pubnub.pipeline.send(call, custom: .init(timeout: .seconds(1)))
        #expect(recorder.requests.map(\.timeout) == [.seconds(3), .seconds(1)])
    }

    @Test("the default deadline is 60 s and the direct chain is not bound by it")
    func defaultsAndDirectChain() async throws {
        let configuration = PubNubConfiguration(publishKey: nil, subscribeKey: "demo", userId: "me")
        #expect(configuration.deadline == .seconds(60))
        let recorder = RecordingHTTPClient(MockHTTPClient.success())
        let pubnub = client(recorder, clock: ManualClock(), retry: .none, timeout: nil, deadline: .seconds(3))
        _ = try await pubnub.pipeline.send(call, chain: .direct, custom: .init(timeout: .seconds(310)))
        #expect(recorder.requests.map(\.timeout) == [.seconds(310)])
    }
}
