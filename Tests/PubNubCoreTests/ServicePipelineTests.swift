import DataSyncModels
import DataSyncTestSupport
import PubNubCore
import Testing
import Transport

/// Counts the requests a middleware saw, to show which chain a request went through.
private struct CountingMiddleware: HTTPMiddleware {
    let seen: RecordingHTTPClient

    func intercept(
        _ request: HTTPRequest, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        _ = try? await seen.send(request)
        return try await next(request)
    }
}

@Suite("Service pipeline: stamping, chains, error mapping")
struct ServicePipelineTests {
    private func answer(_ status: Int, _ body: String = "{}") -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: status, body: Array(body.utf8)))
    }

    private func client(
        _ transport: any HTTPClient, clock: ManualClock = ManualClock(), middlewares: [any HTTPMiddleware] = []
    ) -> PubNub {
        PubNub(
            configuration: PubNubConfiguration(
                publishKey: nil, subscribeKey: "demo", userId: "user 1", authToken: "tok", origin: "127.0.0.1:8090",
                useSecureConnections: false, transport: transport,
                retryPolicy: .linear(delay: .seconds(1), maximumRetries: 2, maximumJitter: .zero), clock: clock,
                middlewares: middlewares))
    }

    @Test("every request gets uuid and pnsdk sorted into the operation query, extras after, then auth")
    func stamping() async throws {
        let recorder = RecordingHTTPClient(MockHTTPClient.success())
        let pubnub = client(recorder)
        var custom = PubNub.RequestConfiguration(timeout: .seconds(7))
        custom.queryParameters = [HTTPQueryItem(name: "a-extra", value: "1")]
        let call = ServicePipeline.Call(
            method: .get, path: "/v2/presence/sub-key/demo/channel/a",
            query: [HTTPQueryItem(name: "zeta", value: "z"), .init(name: "b", value: "b")])
        _ = try await pubnub.pipeline.send(call, chain: .direct, custom: custom)
        let sent = try #require(recorder.lastRequest)
        #expect(sent.scheme == "http")
        #expect(sent.host == "127.0.0.1")
        #expect(sent.port == 8090)
        #expect(sent.timeout == .seconds(7))
        let names = sent.queryItems.map(\.name)
        #expect(names == ["b", "pnsdk", "uuid", "zeta", "a-extra", "auth"])
        #expect(sent.queryItems.first { $0.name == "pnsdk" }?.value == PubNub.pnsdk)
        #expect(sent.queryItems.first { $0.name == "uuid" }?.value == "user 1")
        #expect(sent.queryItems.first { $0.name == "auth" }?.value == "tok")
    }

    @Test("the retrying chain resends a 503 after the clock's delay; the direct chain does not")
    func chains() async throws {
        let clock = ManualClock()
        let scripted = ScriptedHTTPClient([answer(503), answer(200)])
        let seen = RecordingHTTPClient(MockHTTPClient.success())
        let pubnub = client(scripted, clock: clock, middlewares: [CountingMiddleware(seen: seen)])
        let call = ServicePipeline.Call(method: .get, path: "/v2/presence/sub-key/demo/channel/a")

        let direct = await #expect(throws: PubNubError.self) {
            _ = try await pubnub.pipeline.send(call, chain: .direct, custom: .init())
        }
        #expect(direct?.reason == .serviceUnavailable)
        #expect(scripted.requestCount == 1)
        #expect(clock.requestedSleeps.isEmpty)
        #expect(seen.requests.count == 1, "the direct chain still runs the user's middlewares")
        #expect(seen.lastRequest?.queryItems.contains { $0.name == "auth" } == true)

        let retrying = ScriptedHTTPClient([answer(503), answer(200)])
        let second = client(retrying, clock: clock)
        let task = Task { try await second.pipeline.send(call, chain: .retrying, custom: .init()) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        let response = try await task.value
        #expect(response.status == 200)
        #expect(retrying.requestCount == 2)
        #expect(clock.requestedSleeps == [.seconds(1)])
    }

    @Test("exchange hands back an error answer with its headers instead of throwing")
    func exchangeKeepsErrorAnswers() async throws {
        let transport = MockHTTPClient { _ in
            HTTPResponse(status: 429, headers: ["Retry-After": "3"], body: Array("[0,\"slow down\"]".utf8))
        }
        let pubnub = client(transport)
        let request = try pubnub.pipeline.request(.init(method: .get, path: "/v2/subscribe/demo/a/0"), custom: .init())
        let response = try await pubnub.pipeline.exchange(request, chain: .direct, custom: .init())
        #expect(response.status == 429)
        #expect(response.headers["retry-after"] == "3")
    }

    @Test(
        "transport failures map to a reason and keep the transport error as the cause",
        arguments: [
            (TransportError.Code.timedOut, PubNubError.Reason.requestTimedOut),
            (.cannotConnect, .connectionFailure), (.cannotResolveHost, .connectionFailure),
            (.connectionLost, .connectionFailure), (.tls, .connectionFailure), (.cancelled, .requestCancelled),
            (.invalidRequest, .invalidConfiguration), (.invalidResponse, .transportFailure),
        ])
    func transportMapping(code: TransportError.Code, reason: PubNubError.Reason) {
        let cause = TransportError(code: code, message: "m")
        let mapped = ServicePipeline.map(cause)
        #expect(mapped.reason == reason)
        #expect((mapped.underlying as? TransportError)?.code == code)
    }
}
