import DataSync
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

@Suite("Retry wiring")
struct DataSyncRetryTests {
    private func answer(_ status: Int, _ body: String) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: status, body: Array(body.utf8)))
    }

    private func client(_ transport: any HTTPClient, clock: ManualClock) -> PubNub {
        PubNub(
            configuration: PubNubConfiguration(
                publishKey: nil, subscribeKey: "mySubKey", userId: "myUUID", transport: transport,
                retryPolicy: .linear(delay: .seconds(2), maximumRetries: 2, maximumJitter: .zero),
                clock: clock))
    }

    @Test("a GET answered 503 is resent after the policy's delay, through auth")
    func retriesIdempotent() async throws {
        let clock = ManualClock()
        let recorder = RecordingHTTPClient(
            ScriptedHTTPClient([
                answer(503, #"{"errors":[{"errorCode":"DS-0009","message":"Unavailable"}]}"#),
                answer(200, Fixtures.envelope(Fixtures.user("u1"))),
            ]))
        let pubnub = client(recorder, clock: clock)
        pubnub.set(token: "t1")
        let task = Task { try await pubnub.dataSync.getUser(id: "u1") }
        await clock.waitForSleepers(1)
        #expect(recorder.requests.count == 1)
        clock.advance(by: .seconds(2))
        let user = try await task.value
        #expect(user.id == "u1")
        #expect(recorder.requests.count == 2)
        #expect(recorder.requests.allSatisfy { $0.queryValue("auth") == "t1" })
    }

    @Test("a POST answered 503 is not resent")
    func doesNotRetryCreate() async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPClient([answer(503, "")])
        let pubnub = client(transport, clock: clock)
        let error = try await Fixtures.pubNubError { _ = try await pubnub.dataSync.createUser(classVersion: 1) }
        #expect(error.reason == .serviceUnavailable)
        #expect(transport.requestCount == 1)
    }

    @Test("a per-request policy replaces the configured one")
    func perRequestPolicy() async throws {
        let clock = ManualClock()
        let transport = ScriptedHTTPClient([answer(503, "")])
        let pubnub = client(transport, clock: clock)
        let error = try await Fixtures.pubNubError {
            _ = try await pubnub.dataSync.getUser(
                id: "u1", custom: PubNub.RequestConfiguration(retryPolicy: RetryPolicy.none))
        }
        #expect(error.reason == .serviceUnavailable)
        #expect(transport.requestCount == 1)
        #expect(clock.requestedSleeps.isEmpty)
    }

    @Test("the default policy retries at most 3 times, exponentially from 1 s")
    func defaultPolicy() {
        let policy = PubNubConfiguration.defaultRetryPolicy
        #expect(policy.maximumRetries == 3)
        #expect(policy.minimumDelay == .seconds(1))
        #expect(PubNubConfiguration(publishKey: nil, subscribeKey: "s", userId: "u").retryPolicy == policy)
    }
}
