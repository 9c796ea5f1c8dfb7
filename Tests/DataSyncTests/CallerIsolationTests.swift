import DataSync
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing
import Transport

/// The request path runs on its caller's actor (`callerIsolatedTargets` in Package.swift): a call
/// made on an actor reaches the transport without leaving that actor, unless a middleware of the
/// app's own sits in the chain; answers of 16 KiB and more are decoded off it. These tests watch
/// where the transport's `send` runs, with a transport that inherits its caller's isolation.
@Suite("Requests run on the caller's actor")
struct CallerIsolationTests {
    /// Answers every request with `body` and notes the actor its `send` ran on (`nil`: none).
    final class IsolationProbe: HTTPClient, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [ObjectIdentifier?] = []
        private let body: [UInt8]

        init(body: String) { self.body = Array(body.utf8) }

        var isolations: [ObjectIdentifier?] { lock.withLock { seen } }

        nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let here = #isolation.map { ObjectIdentifier($0) }
            lock.withLock { seen.append(here) }
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
        }
    }

    /// An app's own middleware, written the ordinary way: its `next` runs on the global executor.
    struct AppMiddleware: HTTPMiddleware {
        func intercept(
            _ request: HTTPRequest, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            try await next(request)
        }
    }

    actor Caller {
        func getUser(_ pubnub: PubNub) async throws -> String {
            try await pubnub.dataSync.getUser(id: "u-1").id
        }

        func getUsers(_ pubnub: PubNub) async throws -> Int {
            try await pubnub.dataSync.getUsers().users.count
        }
    }

    static func client(_ probe: IsolationProbe, middlewares: [any HTTPMiddleware] = []) -> PubNub {
        PubNub(
            configuration: PubNubConfiguration(
                publishKey: nil, subscribeKey: "mySubKey", userId: Fixtures.userId, authToken: Fixtures.token,
                transport: probe, retryPolicy: PubNubConfiguration.defaultRetryPolicy, middlewares: middlewares))
    }

    @Test("a call made on an actor reaches the transport on that actor, through auth and retry")
    func actorCaller() async throws {
        let probe = IsolationProbe(body: Fixtures.envelope(Fixtures.user("u-1")))
        let caller = Caller()
        let id = try await caller.getUser(Self.client(probe))
        #expect(id == "u-1")
        #expect(probe.isolations == [ObjectIdentifier(caller)])
    }

    @Test("a call made on the main actor reaches the transport on the main actor")
    @MainActor
    func mainActorCaller() async throws {
        let probe = IsolationProbe(body: Fixtures.envelope(Fixtures.user("u-1")))
        let user = try await Self.client(probe).dataSync.getUser(id: "u-1")
        #expect(user.id == "u-1")
        #expect(probe.isolations == [ObjectIdentifier(MainActor.shared)])
    }

    @Test("an app's own middleware takes the request off the caller's actor, and the answer is the same")
    func appMiddlewareHops() async throws {
        let probe = IsolationProbe(body: Fixtures.envelope(Fixtures.user("u-1")))
        let id = try await Caller().getUser(Self.client(probe, middlewares: [AppMiddleware()]))
        #expect(id == "u-1")
        #expect(probe.isolations == [nil])
    }

    @Test("a page of 16 KiB or more decodes (off the caller's actor) to the same objects as a small one")
    func largePage() async throws {
        let many = (0..<120).map { Fixtures.user("u-\($0)") }
        let large = Fixtures.page(many, hasNext: false)
        #expect(large.utf8.count >= 16 * 1024)
        let small = Fixtures.page(Array(many.prefix(3)), hasNext: false)
        #expect(small.utf8.count < 16 * 1024)
        let caller = Caller()
        let largeProbe = IsolationProbe(body: large)
        #expect(try await caller.getUsers(Self.client(largeProbe)) == 120)
        let smallProbe = IsolationProbe(body: small)
        #expect(try await caller.getUsers(Self.client(smallProbe)) == 3)
        #expect(largeProbe.isolations == [ObjectIdentifier(caller)])
    }
}
