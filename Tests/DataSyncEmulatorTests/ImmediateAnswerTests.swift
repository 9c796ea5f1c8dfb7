import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase
import Testing

@testable import DataSyncEmulator

/// The immediate path (issue 22, point 5): the requests the router answers on the HTTP server's
/// thread get exactly the answer, the log entry and the change-feed behaviour of the task path,
/// and everything that waits or writes still takes the task path.
@Suite("Router: answers given at once", .timeLimit(.minutes(1)))
struct ImmediateAnswerTests {
    private static let seed: JSONValue = [
        "keysets": [
            "demo": [
                "users": [["id": "u1", "status": "active", "payload": ["name": "One"]]]
            ]
        ]
    ]

    /// An emulator holding the seed, once the seed's real-time events are on the bus (until then
    /// a DataSync read waits for them, so it is not answered at once).
    private static func emulator(clock: EmulatorClock? = nil) async throws -> Emulator {
        var configuration = EmulatorConfiguration(seed: seed, startTime: startInstant)
        configuration.clock = clock
        let emulator = try Emulator(configuration: configuration)
        await emulator.waitForDataSyncEvents()
        return emulator
    }

    private static func get(_ target: String) -> ServerRequest {
        ServerRequest(method: "GET", target: target, headers: [(name: "Host", value: "localhost")])
    }

    private static func expectSame(_ immediate: ServerResponse?, _ task: ServerResponse) {
        #expect(immediate?.status == task.status)
        #expect(immediate?.headers.map(\.name) == task.headers.map(\.name))
        #expect(immediate?.headers.map(\.value) == task.headers.map(\.value))
        #expect(immediate?.body == task.body)
        #expect(immediate?.framing == task.framing)
    }

    @Test("a read answered at once is byte for byte the answer the task path gives")
    func immediateAndTaskAnswersMatch() async throws {
        let emulator = try await Self.emulator()
        for target in [
            "/v1/datasync/subkeys/demo/users/u1", "/v1/datasync/subkeys/demo/users/u1?include=x",
            "/v1/datasync/subkeys/demo/users/nobody", "/v1/datasync/subkeys/demo/users/u%ZZ", "/nowhere/at/all",
        ] {
            let request = Self.get(target)
            let immediate = emulator.router.respondImmediately(to: request)
            #expect(immediate != nil, "\(target) was not answered at once")
            Self.expectSame(immediate, await emulator.router.handle(request))
        }
        // The second read of an object comes from the body kept with it; still the same bytes.
        let again = emulator.router.respondImmediately(to: Self.get("/v1/datasync/subkeys/demo/users/u1"))
        Self.expectSame(again, await emulator.router.handle(Self.get("/v1/datasync/subkeys/demo/users/u1")))
    }

    // The second read of each path comes from the body kept with the object, found from the
    // parsed path without the engine's routing: its answer must still be the routed one.
    @Test(
        "reads through escaped segments, other collections and class paths: at once, twice, as the task path answers")
    func keptBodyReadsMatchTheRoutedAnswer() async throws {
        let emulator = try await Self.emulator()
        for target in [
            "/v1/datasync/subkeys/d%65mo/users/u%31", "/v1/datasync/subkeys/demo/us%65rs/u1",
            "/v1/datasync/subkeys/demo/entities/u1", "/v1/datasync/subkeys/demo/channels/u1",
            "/v1/datasync/subkeys/demo/memberships/u1", "/v1/datasync/subkeys/demo/entity-classes/User",
            "/v1/datasync/subkeys/demo/unknown/u1", "/v1/datasync/subkeys/demo/users/u1/extra",
            "/v1/datasync/subkeys/demo/users/u1?include=%ZZ", "/v1/datasync/subkeys/nokeyset/users/u1",
        ] {
            for round in 1...2 {
                let request = Self.get(target)
                let immediate = emulator.router.respondImmediately(to: request)
                let task = await emulator.router.handle(request)
                if immediate != nil || round == 2 && target.hasSuffix("/u1") && task.status == 200 {
                    Self.expectSame(immediate, task)
                }
            }
        }
        let lowercase = ServerRequest(method: "get", target: "/v1/datasync/subkeys/demo/users/u1")
        Self.expectSame(emulator.router.respondImmediately(to: lowercase), await emulator.router.handle(lowercase))
    }

    @Test("an update replaces the body kept for reads: the next read at once shows it")
    func updateIsVisibleToTheNextImmediateRead() async throws {
        let emulator = try await Self.emulator()
        let target = "/v1/datasync/subkeys/demo/users/u1"
        let before = try #require(emulator.router.respondImmediately(to: Self.get(target)))
        let body = #"{"data":{"entityClassVersion":1,"status":"away"}}"#
        let updated = await emulator.respond(
            to: ServerRequest(
                method: "PUT", target: target,
                headers: [(name: "Content-Type", value: "application/vnd.pubnub.objects.user+json;version=1")],
                body: Array(body.utf8)))
        #expect(updated.status == 200)
        let after = try #require(emulator.router.respondImmediately(to: Self.get(target)))
        #expect(after.body != before.body)
        #expect(try JSONValue(parsing: after.body)["data"]?["status"] == "away")
        Self.expectSame(after, await emulator.router.handle(Self.get(target)))
    }

    @Test("writes, lists and anything a service must wait for take the task path and change nothing first")
    func waitingAndWritingRequestsAreNotAnsweredAtOnce() async throws {
        let emulator = try await Self.emulator()
        let sequence = await emulator.lastSequence
        let create = ServerRequest(
            method: "POST", target: "/v1/datasync/subkeys/demo/users",
            headers: [(name: "Content-Type", value: "application/vnd.pubnub.objects.user+json;version=1")],
            body: Array(#"{"data":{"id":"u2","entityClassVersion":1}}"#.utf8))
        #expect(emulator.router.respondImmediately(to: create) == nil)
        #expect(await emulator.lastSequence == sequence)
        #expect(emulator.router.respondImmediately(to: Self.get("/v1/datasync/subkeys/demo/users")) == nil)
        #expect(emulator.router.respondImmediately(to: Self.get("/time/0")) == nil)
        #expect(emulator.router.respondImmediately(to: Self.get("/v2/subscribe/demo/ch/0?tt=0")) == nil)
        // An unknown keyset would be created by the task path: not answered at once either.
        #expect(emulator.router.respondImmediately(to: Self.get("/v1/datasync/subkeys/fresh/users/u1")) == nil)
        #expect(emulator.recentRequests().isEmpty)
    }

    @Test("while a write's real-time events are on their way to the bus, reads take the task path")
    func pendingEventsSendReadsToTheTaskPath() async throws {
        // A publisher the test holds: the seed's events stay on their way until it lets them go,
        // so the check below cannot race the bridge's drain.
        let release = HeldPublisher()
        let bridge = DataSyncEventBridge { envelopes in
            await release.wait()
            return envelopes.indices.map { UInt64($0 + 1) }
        }
        let service = try DataSyncService(
            configuration: EmulatorConfiguration(seed: Self.seed, startTime: startInstant),
            clock: .manual(startingAt: startInstant), writeSubscribers: [{ bridge.receive($0) }])
        let gate = DataSyncEventGate(dataSync: service, bridge: bridge)
        let request = Self.get("/v1/datasync/subkeys/demo/users/u1")
        #expect(service.respondImmediately(to: request) != nil)
        #expect(!bridge.isCaughtUp)
        #expect(gate.respondImmediately(to: request) == nil)
        // The task path waits for them, and from then on the read is answered at once.
        async let read = gate.respond(to: request)
        release.open()
        let answer = await read
        #expect(bridge.isCaughtUp)
        Self.expectSame(gate.respondImmediately(to: request), answer)
    }

    @Test("while another operation holds the DataSync state, a read takes the task path instead of waiting")
    func busyStateSendsReadsToTheTaskPath() async throws {
        let emulator = try await Self.emulator()
        let request = Self.get("/v1/datasync/subkeys/demo/users/u1")
        let router = emulator.router
        let answeredWhileHeld = await emulator.dataSync.administer { _ in router.respondImmediately(to: request) != nil
        }
        #expect(!answeredWhileHeld)
        #expect(router.respondImmediately(to: request) != nil)
    }

    @Test("a read answered at once is in the request log, as a task-path read is")
    func immediateReadIsLogged() async throws {
        let emulator = try await Self.emulator()
        let immediate = try #require(
            emulator.router.respondImmediately(to: Self.get("/v1/datasync/subkeys/demo/users/u1?auth=secret")))
        _ = await emulator.router.handle(Self.get("/v1/datasync/subkeys/demo/users/u1?auth=secret"))
        let entries = emulator.recentRequests()
        #expect(entries.count == 2)
        for entry in entries {
            #expect(entry.method == "GET")
            #expect(entry.target == "/v1/datasync/subkeys/demo/users/u1?auth=REDACTED")
            #expect(entry.status == 200)
            #expect(entry.responseBytes == immediate.body.count)
            #expect(entry.area == "datasync")
            #expect(!entry.cancelled)
        }
        #expect(entries.map(\.sequence) == [1, 2])
    }

    @Test("a read that finds an object past its expiry takes the task path: the removal reaches the feed")
    func readDueToSweepTakesTheTaskPath() async throws {
        let clock = EmulatorClock.manual(startingAt: startInstant)
        let emulator = try await Self.emulator(clock: clock)
        let sequence = await emulator.lastSequence
        // Move the clock itself, so nothing has swept yet.
        clock.advance(by: .seconds(86_400 * 400))
        let target = "/v1/datasync/subkeys/demo/users/u1"
        #expect(emulator.router.respondImmediately(to: Self.get(target)) == nil)
        #expect(await emulator.lastSequence == sequence)
        let read = await emulator.respond(to: Self.get(target))
        #expect(read.status == 404)
        let changes = await emulator.changes(after: sequence)
        #expect(changes.count == 1)
        #expect(changes.first?.action == .delete)
        #expect(changes.first?.cause == .expiry)
        // Nothing is due any more: the next read is answered at once, with the same 404.
        let next = emulator.router.respondImmediately(to: Self.get(target))
        Self.expectSame(next, await emulator.router.handle(Self.get(target)))
    }

    @Test("a fault queued for a pub/sub route still applies: those routes always take the task path")
    func faultsStillApply() async throws {
        let emulator = try await Self.emulator()
        emulator.injectFault(.status(503), on: .time)
        #expect(emulator.router.respondImmediately(to: Self.get("/time/0")) == nil)
        #expect(await emulator.respond(to: Self.get("/time/0")).status == 503)
        #expect(await emulator.respond(to: Self.get("/time/0")).status == 200)
    }

    @Test("over HTTP, reads are answered at once and logged by the request-log closure; others by tasks")
    func overHTTP() async throws {
        let emulator = try await Self.emulator()
        let lines = Locked<[String]>([])
        let url = try await emulator.start(requestLog: { line in lines.withLock { $0.append(line) } })
        let port = try #require(url.port.map(UInt16.init))
        let read = try await exchange(
            port: port,
            "GET /v1/datasync/subkeys/demo/users/u1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        let direct = await emulator.respond(to: Self.get("/v1/datasync/subkeys/demo/users/u1"))
        #expect(read.status == 200)
        #expect(read.body == String(decoding: direct.body, as: UTF8.self))
        let time = try await exchange(
            port: port, "GET /time/0 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        #expect(time.status == 200)
        let statistics = try #require(await emulator.server?.server.statistics)
        #expect(statistics.requestsReceived == 2)
        #expect(statistics.requestsAnsweredImmediately == 1)
        await emulator.stop()
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2)
        #expect(logged.first?.hasPrefix("GET /v1/datasync/subkeys/demo/users/u1 -> 200 (") == true)
        #expect(logged.last?.hasPrefix("GET /time/0 -> 200 (") == true)
    }

    @Test("the request-log line gives milliseconds with one decimal")
    func millisecondsFormatting() {
        #expect(LoggingHandler.milliseconds(.zero) == "0.0")
        #expect(LoggingHandler.milliseconds(.microseconds(449)) == "0.4")
        #expect(LoggingHandler.milliseconds(.microseconds(450)) == "0.5")
        #expect(LoggingHandler.milliseconds(.milliseconds(1234)) == "1234.0")
        #expect(LoggingHandler.milliseconds(.seconds(2) + .microseconds(51)) == "2000.1")
    }
}

/// A gate publishers wait at until the test opens it.
private final class HeldPublisher: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume: Bool = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resume { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
