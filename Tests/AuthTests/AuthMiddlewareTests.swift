import DataSyncTestSupport
import JSONCore
import Testing
import Transport

@testable import Auth

/// Counts calls, safely from any task.
private actor Counter {
    private(set) var value = 0
    func increment() -> Int {
        value += 1
        return value
    }
}

/// Lets tasks wait until a number of arrivals has happened, without sleeping.
private actor Gate {
    private var arrivals = 0
    private var waiters: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []

    func arrive() {
        arrivals += 1
        let ready = waiters.filter { $0.target <= arrivals }
        waiters.removeAll { $0.target <= arrivals }
        for waiter in ready { waiter.continuation.resume() }
    }

    func wait(for target: Int) async {
        if arrivals >= target { return }
        await withCheckedContinuation { waiters.append((target, $0)) }
    }
}

private let expiredBody: JSONValue = [
    "status": 403, "error": true, "service": "Access Manager", "message": "Token is expired.",
]

private func expiredResponse() throws -> HTTPResponse {
    HTTPResponse(status: 403, body: try expiredBody.jsonBytes())
}

private func request(_ path: String, query: [HTTPQueryItem] = []) -> HTTPRequest {
    HTTPRequest(host: "ps.pndsn.com", path: path, queryItems: query)
}

private func authValues(_ request: HTTPRequest) -> [String?] {
    request.queryItems.filter { $0.name == "auth" }.map(\.value)
}

@Suite("AuthMiddleware")
struct AuthMiddlewareTests {
    @Test("every request but /time/0 carries the token as its only auth parameter")
    func authOnEveryRequestButTime() async throws {
        let store = TokenStore(token: "token-A")
        let recorder = RecordingHTTPClient(MockHTTPClient.success())
        let client = recorder.with([AuthMiddleware(store: store)])
        let paths = [
            "/v2/subscribe/sub/ch/0", "/publish/pub/sub/0/ch/0/%22hi%22", "/time/0", "/v3/datasync/sub/users",
            "/v2/presence/sub-key/sub/channel/ch",
        ]
        for path in paths {
            _ = try await client.send(
                request(path, query: [HTTPQueryItem(name: "auth", value: "stale"), .init(name: "uuid", value: "u")]))
        }
        let sent = recorder.requests
        #expect(sent.map(\.path) == paths)
        for sent in sent {
            if sent.path == "/time/0" {
                #expect(authValues(sent).isEmpty)
            } else {
                #expect(authValues(sent) == ["token-A"], "\(sent.path)")
            }
            #expect(sent.queryValue("uuid") == "u")
        }
    }

    @Test("without a token or provider, requests go out without auth")
    func noTokenNoProvider() async throws {
        let recorder = RecordingHTTPClient(MockHTTPClient.success())
        let response = try await recorder.with([AuthMiddleware(store: TokenStore())]).send(request("/v2/x"))
        #expect(response.status == 200)
        #expect(authValues(try #require(recorder.lastRequest)).isEmpty)
    }

    @Test("a token set mid-run reaches the next request of a running loop")
    func tokenSwapMidRun() async throws {
        let store = TokenStore(token: "token-A")
        let seen = Counter()
        let recorder = RecordingHTTPClient(
            MockHTTPClient { _ in
                // The fourth request's handler swaps the token, as an app would while the loop runs.
                if await seen.increment() == 4 { store.set(token: "token-B") }
                return HTTPResponse(status: 200)
            })
        let client = recorder.with([AuthMiddleware(store: store)])
        let loop = Task {
            for _ in 0..<8 { _ = try await client.send(request("/v2/subscribe/sub/ch/0")) }
        }
        try await loop.value
        let tokens = recorder.requests.map { $0.queryValue("auth") }
        #expect(tokens == Array(repeating: "token-A", count: 4) + Array(repeating: "token-B", count: 4))
        #expect(store.token == "token-B")
    }

    @Test("many concurrent expired requests cause one refresh, then each retries once with the new token")
    func oneRefreshForManyExpired() async throws {
        let requestCount = 20
        let store = TokenStore(token: "old")
        let expiredSeen = Gate()
        let providerCalls = Counter()
        let recorder = RecordingHTTPClient(
            MockHTTPClient { request in
                if request.queryValue("auth") == "old" {
                    await expiredSeen.arrive()
                    return try expiredResponse()
                }
                return HTTPResponse(status: 200)
            })
        let provider = ClosureTokenProvider { reason in
            #expect(reason == .expired)
            _ = await providerCalls.increment()
            // Hold the refresh until every request has been refused, so all of them need it.
            await expiredSeen.wait(for: requestCount)
            return "new"
        }
        let client = recorder.with([AuthMiddleware(store: store, provider: provider)])
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<requestCount {
                group.addTask { try await client.send(request("/v2/objects/sub/uuids/\(index)")).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: requestCount))
        #expect(await providerCalls.value == 1)
        #expect(store.token == "new")
        let tokens = recorder.requests.map { $0.queryValue("auth") }
        #expect(tokens.filter { $0 == "old" }.count == requestCount)
        #expect(tokens.filter { $0 == "new" }.count == requestCount)
    }

    @Test("many concurrent requests without a token ask the provider once")
    func oneProviderCallWhenMissing() async throws {
        let store = TokenStore()
        let providerCalls = Counter()
        let recorder = RecordingHTTPClient(MockHTTPClient.success())
        let provider = ClosureTokenProvider { reason in
            #expect(reason == .missing)
            return "provided-\(await providerCalls.increment())"
        }
        let client = recorder.with([AuthMiddleware(store: store, provider: provider)])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { _ = try await client.send(request("/v2/x")) } }
            try await group.waitForAll()
        }
        #expect(await providerCalls.value == 1)
        #expect(recorder.requests.map { $0.queryValue("auth") } == Array(repeating: "provided-1", count: 10))
    }

    @Test("a token that stays expired is refreshed once and retried once, never looped")
    func noInfiniteRefreshLoop() async throws {
        let store = TokenStore(token: "t0")
        let providerCalls = Counter()
        let recorder = RecordingHTTPClient(MockHTTPClient { _ in try expiredResponse() })
        let provider = ClosureTokenProvider { _ in "t\(await providerCalls.increment())" }
        let client = recorder.with([AuthMiddleware(store: store, provider: provider)])
        let response = try await client.send(request("/v2/x"))
        #expect(response.status == 403)
        #expect(recorder.requests.map { $0.queryValue("auth") } == ["t0", "t1"])
        #expect(await providerCalls.value == 1)

        // The next request starts over with the stored token: again one refresh at most.
        _ = try await client.send(request("/v2/y"))
        #expect(recorder.requests.map { $0.queryValue("auth") } == ["t0", "t1", "t1", "t2"])
        #expect(await providerCalls.value == 2)
    }

    @Test("a provider returning the same token causes no retry")
    func sameTokenNoRetry() async throws {
        let store = TokenStore(token: "same")
        let recorder = RecordingHTTPClient(MockHTTPClient { _ in try expiredResponse() })
        let client = recorder.with([AuthMiddleware(store: store, provider: ClosureTokenProvider { _ in "same" })])
        let response = try await client.send(request("/v2/x"))
        #expect(response.status == 403)
        #expect(recorder.requests.count == 1)
    }

    @Test("other 403s are returned without asking the provider")
    func otherForbiddenNotRefreshed() async throws {
        let providerCalls = Counter()
        let recorder = RecordingHTTPClient(
            MockHTTPClient.json(
                ["status": 403, "error": true, "service": "Access Manager", "message": "Forbidden"], status: 403))
        let provider = ClosureTokenProvider { _ in "x\(await providerCalls.increment())" }
        let client = recorder.with([AuthMiddleware(store: TokenStore(token: "t"), provider: provider)])
        #expect(try await client.send(request("/v2/x")).status == 403)
        #expect(recorder.requests.count == 1)
        #expect(await providerCalls.value == 0)
    }

    @Test("a failing provider: missing token throws tokenUnavailable, expired token returns the 403")
    func providerFailure() async throws {
        struct Refused: Error {}
        let failing = ClosureTokenProvider { _ in throw Refused() }
        let recorder = RecordingHTTPClient(MockHTTPClient { _ in try expiredResponse() })
        let missing = recorder.with([AuthMiddleware(store: TokenStore(), provider: failing)])
        let error = await #expect(throws: AuthError.self) { try await missing.send(request("/v2/x")) }
        #expect(error?.code == .tokenUnavailable)
        #expect(recorder.requests.isEmpty)

        let empty = recorder.with([AuthMiddleware(store: TokenStore(), provider: ClosureTokenProvider { _ in "" })])
        let emptyError = await #expect(throws: AuthError.self) { try await empty.send(request("/v2/x")) }
        #expect(emptyError?.code == .tokenUnavailable)

        let expired = recorder.with([AuthMiddleware(store: TokenStore(token: "t"), provider: failing)])
        #expect(try await expired.send(request("/v2/x")).status == 403)
        #expect(recorder.requests.count == 1)
    }

    @Test("a token set by the app while the provider works wins")
    func setDuringRefreshWins() async throws {
        let store = TokenStore(token: "old")
        let recorder = RecordingHTTPClient(
            MockHTTPClient { request in
                request.queryValue("auth") == "old" ? try expiredResponse() : HTTPResponse(status: 200)
            })
        let provider = ClosureTokenProvider { _ in
            store.set(token: "from-app")
            return "from-provider"
        }
        let client = recorder.with([AuthMiddleware(store: store, provider: provider)])
        #expect(try await client.send(request("/v2/x")).status == 200)
        #expect(store.token == "from-app")
        #expect(recorder.requests.map { $0.queryValue("auth") } == ["old", "from-app"])
    }

    @Test(
        "the expired-token answer is recognised in every body shape the service uses",
        arguments: [
            (403, #"{"status":403,"error":true,"service":"Access Manager","message":"Token is expired."}"#, true),
            (403, #"{"status":403,"error":{"message":"Token is expired."}}"#, true),
            (403, #"{"status":403,"error":true,"error_message":"Token is expired."}"#, true),
            (403, #"{"error":"Token is expired."}"#, true),
            (403, #"{"errors":[{"errorCode":"DS-0202","message":"Token is expired."}]}"#, true),
            (403, #"{"status":403,"payload":{"message":"Token is expired."}}"#, true),
            (403, "Token is expired.", true),
            (403, #"{"status":403,"message":"Token is revoked."}"#, false),
            (403, #"{"status":403,"message":"Forbidden"}"#, false),
            (401, #"{"status":401,"message":"Token is expired."}"#, false),
            (200, #"{"message":"Token is expired."}"#, false),
            (403, "", false),
        ])
    func expiredDetection(status: Int, body: String, expected: Bool) {
        #expect(AuthMiddleware.isExpiredToken(HTTPResponse(status: status, body: Array(body.utf8))) == expected)
    }

    @Test("the time endpoint is exempt, other paths are not")
    func exemptPaths() {
        #expect(AuthMiddleware.isExempt(request("/time/0")))
        #expect(!AuthMiddleware.isExempt(request("/timeline/0")))
        #expect(!AuthMiddleware.isExempt(request("/v2/subscribe/s/time/0")))
    }
}

@Suite("TokenStore")
struct TokenStoreTests {
    @Test("concurrent writers and readers only ever see a token that was set")
    func concurrentAccess() async {
        let store = TokenStore(token: "start")
        let valid = Set(["start"] + (0..<50).map { "token-\($0)" })
        let seen = await withTaskGroup(of: String?.self) { group in
            for index in 0..<50 {
                group.addTask {
                    store.set(token: "token-\(index)")
                    return store.token
                }
                group.addTask { store.token }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(seen.count == 100)
        #expect(seen.allSatisfy { $0.map(valid.contains) ?? false })
        #expect(store.token.map(valid.contains) ?? false)
        store.set(token: nil)
        #expect(store.token == nil)
        #expect(store.description == "TokenStore(no token)")
    }

    @Test("each change bumps the generation a refresh compares against")
    func generations() {
        let store = TokenStore()
        let first = store.snapshot
        store.set(token: "a")
        let second = store.snapshot
        #expect(second.generation != first.generation)
        #expect(second.token == "a")
    }
}
