import DataSync
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import JSONPatch
import Testing
import Transport

/// Counts the work a completion context was given.
private actor Counter {
    var value = 0
    func increment() { value += 1 }
}

@Suite("Client configuration, identity and completions")
struct DataSyncClientTests {
    private func client(
        origin: String, secure: Bool, recorder: RecordingHTTPClient
    ) -> PubNub {
        let configuration = PubNubConfiguration(
            publishKey: nil, subscribeKey: "demo", userId: "tester", origin: origin, useSecureConnections: secure,
            transport: recorder)
        return PubNub(configuration: configuration)
    }

    @Test(
        "origin and scheme become the request's URL",
        arguments: [
            ("ps.pndsn.com", true, "https://ps.pndsn.com/v1/datasync/subkeys/demo/users/u1"),
            ("127.0.0.1:8090", false, "http://127.0.0.1:8090/v1/datasync/subkeys/demo/users/u1"),
            ("localhost:8443", true, "https://localhost:8443/v1/datasync/subkeys/demo/users/u1"),
            ("[::1]:8090", false, "http://[::1]:8090/v1/datasync/subkeys/demo/users/u1"),
            ("::1", false, "http://[::1]/v1/datasync/subkeys/demo/users/u1"),
        ])
    func originBecomesURL(_ origin: String, _ secure: Bool, _ url: String) async throws {
        let recorder = RecordingHTTPClient(
            MockHTTPClient.success(body: Array(Fixtures.envelope(Fixtures.user("u1")).utf8)))
        let pubnub = client(origin: origin, secure: secure, recorder: recorder)
        _ = try await pubnub.dataSync.getUser(id: "u1")
        let request = try #require(recorder.lastRequest)
        let sent = request.url.split(separator: "?").first.map(String.init)
        #expect(sent == url)
    }

    @Test(
        "a malformed origin fails with invalidConfiguration and sends nothing",
        arguments: ["", "http://ps.pndsn.com", "host:port", "host:0", "[::1", "ps.pndsn.com/path", "[::1]x"])
    func malformedOrigin(_ origin: String) async throws {
        let recorder = RecordingHTTPClient(MockHTTPClient.success())
        let pubnub = client(origin: origin, secure: true, recorder: recorder)
        let error = try await Fixtures.pubNubError { _ = try await pubnub.dataSync.getUser(id: "u1") }
        #expect(error.reason == .invalidConfiguration)
        #expect(recorder.requests.isEmpty)
    }

    @Test("the subscribe key is percent-encoded in the path")
    func subscribeKeyEncoded() async throws {
        let (pubnub, recorder) = Fixtures.recorded(subscribeKey: "sub c/1", body: Fixtures.page([]))
        _ = try await pubnub.dataSync.getUsers()
        #expect(recorder.lastRequest?.path == "/v1/datasync/subkeys/sub%20c%2F1/users")
    }

    @Test("every request carries uuid and this SDK's pnsdk")
    func identity() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([]), authToken: nil)
        _ = try await pubnub.dataSync.getMemberships()
        #expect(PubNub.pnsdk == "PubNub-Swift-DataSync/0.1.0")
        #expect(recorder.lastRequest?.queryValue("uuid") == "myUUID")
        #expect(recorder.lastRequest?.queryValue("pnsdk") == "PubNub-Swift-DataSync/0.1.0")
        #expect(recorder.lastRequest?.queryValue("auth") == nil)
    }

    @Test("the token travels as auth, and set(token:) changes it for later requests")
    func tokenTravels() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.user("u1")))
        _ = try await pubnub.dataSync.getUser(id: "u1")
        pubnub.set(token: "second-token")
        _ = try await pubnub.dataSync.getUser(id: "u1")
        #expect(recorder.requests.map { $0.queryValue("auth") } == ["myAuthKey", "second-token"])
    }

    @Test("request configuration adds headers and query items, sets the timeout, swaps the transport")
    func requestConfiguration() async throws {
        let (pubnub, configured) = Fixtures.recorded(body: Fixtures.envelope(Fixtures.user("u1")))
        let other = RecordingHTTPClient(
            MockHTTPClient.success(body: Array(Fixtures.envelope(Fixtures.user("u1")).utf8)))
        let custom = PubNub.RequestConfiguration(
            transport: other, timeout: .seconds(3), queryParameters: [HTTPQueryItem(name: "trace", value: "1")],
            headers: ["X-Trace": "abc"])
        _ = try await pubnub.dataSync.getUser(id: "u1", custom: custom)
        #expect(configured.requests.isEmpty)
        let request = try #require(other.lastRequest)
        #expect(request.timeout == .seconds(3))
        #expect(request.queryValue("trace") == "1")
        #expect(request.headers["x-trace"] == "abc")
        #expect(request.queryValue("auth") == "myAuthKey")
    }

    @Test("completions receive the result in the configured context")
    func completionContext() async throws {
        let counter = Counter()
        let context = PubNub.CompletionContext { work in
            Task {
                await counter.increment()
                work()
            }
        }
        let recorder = RecordingHTTPClient(
            MockHTTPClient.success(body: Array(Fixtures.envelope(Fixtures.user("u1")).utf8)))
        let pubnub = Fixtures.pubnub(transport: recorder, completionContext: context)
        let result = await withCheckedContinuation { continuation in
            pubnub.dataSync.getUser(id: "u1") { continuation.resume(returning: $0) }
        }
        #expect(try result.get().id == "u1")
        #expect(await counter.value == 1)
    }

    @Test("list and remove completions carry their documented Result types")
    func completionShapes() async throws {
        let (pubnub, _) = Fixtures.recorded(body: Fixtures.page([Fixtures.user("u1")], hasNext: false))
        let list = await withCheckedContinuation { continuation in
            pubnub.dataSync.getUsers(limit: 1) { continuation.resume(returning: $0) }
        }
        let page = try list.get()
        #expect(page.users.map(\.id) == ["u1"])
        #expect(page.next?.hasNext == false)
        let removed = await withCheckedContinuation { continuation in
            pubnub.dataSync.removeUser(id: "u1") { continuation.resume(returning: $0) }
        }
        #expect(throws: Never.self) { try removed.get() }
    }

    @Test("a nil completion still sends the request")
    func nilCompletion() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: "")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let probe = RecordingHTTPClient(
                MockHTTPClient { request in
                    let response = try await recorder.send(request)
                    continuation.resume()
                    return response
                })
            pubnub.dataSync.removeUser(id: "u1", custom: PubNub.RequestConfiguration(transport: probe), completion: nil)
        }
        #expect(recorder.requests.count == 1)
    }
}
