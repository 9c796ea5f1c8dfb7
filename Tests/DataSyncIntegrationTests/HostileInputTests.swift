import DataSync
import DataSyncTestSupport
import Foundation
import Testing
import Transport

/// Sink that keeps every log line, to search it for secrets.
private final class LineSink: HTTPLogSink, @unchecked Sendable {
    // Guarded by `lock`; only appended to and read in full.
    private let lock = NSLock()
    private var lines: [String] = []

    func log(_ record: HTTPLogRecord) {
        let line = "\(record)"
        lock.withLock { lines.append(line) }
    }

    var all: [String] { lock.withLock { lines } }
}

@Suite("Hostile ids and secrets, end to end")
struct HostileInputTests {
    @Test("ids '.' and '..' reach the service as ids, not as dot segments", arguments: HTTPBackend.allCases)
    func dotSegmentIds(backend: HTTPBackend) async throws {
        try await withFixture(backend) { fixture in
            for id in [".", ".."] {
                let created = try await fixture.dataSync.createUser(classVersion: 1, id: id, status: "active")
                #expect(created.id == id)
                let read = try await fixture.dataSync.getUser(id: id)
                #expect(read.id == id)
                try await fixture.dataSync.removeUser(id: id)
                let gone = await #expect(throws: PubNubError.self) { _ = try await fixture.dataSync.getUser(id: id) }
                #expect(gone?.reason == .resourceNotFound)
            }
        }
    }

    @Test("a sentinel token appears in no error description and no log line", arguments: HTTPBackend.allCases)
    func tokenNeverLeaks(backend: HTTPBackend) async throws {
        let sentinel = "SENTINEL-TOKEN-0123456789abcdef"
        let sink = LineSink()
        try await withFixture(backend) { fixture in
            let port = try #require(try fixture.pubnub.pipeline.origin.get().port)
            func client(origin: String, timeout: Duration? = nil) throws -> PubNub {
                PubNub(
                    configuration: PubNubConfiguration(
                        publishKey: nil, subscribeKey: "sub-demo", userId: "u", authToken: sentinel, origin: origin,
                        useSecureConnections: false, transport: try backend.makeClient(), retryPolicy: .none,
                        middlewares: [LoggingMiddleware(sink: sink)], requestTimeout: timeout))
            }
            var failures: [PubNubError] = []
            func collect(_ body: () async throws -> Void) async {
                do {
                    try await body()
                } catch let error as PubNubError {
                    failures.append(error)
                } catch {
                    Issue.record("not a PubNubError: \(error)")
                }
            }
            // Service errors (404, 400), a refused connection, TLS against plain HTTP, a header
            // that cannot be sent, and a host no parser accepts.
            let good = try client(origin: "127.0.0.1:\(port)")
            await collect { _ = try await good.dataSync.getUser(id: "missing") }
            await collect { _ = try await good.dataSync.getUsers(limit: -1) }
            await collect {
                _ = try await good.dataSync.getUser(
                    id: "x", custom: .init(headers: ["X-Bad": "line\r\nbreak"]))
            }
            await collect { _ = try await client(origin: "127.0.0.1:1").dataSync.getUser(id: "x") }
            var tls = PubNubConfiguration(
                publishKey: nil, subscribeKey: "sub-demo", userId: "u", authToken: sentinel,
                origin: "127.0.0.1:\(port)", transport: try backend.makeClient(), retryPolicy: .none,
                middlewares: [LoggingMiddleware(sink: sink)])
            tls.useSecureConnections = true
            await collect { _ = try await PubNub(configuration: tls).dataSync.getUser(id: "x") }
            await collect { _ = try await client(origin: "bad^host").dataSync.getUser(id: "x") }
            #expect(failures.count == 6)
            for failure in failures {
                #expect(!"\(failure)".contains(sentinel), "\(failure)")
                #expect(!String(describing: failure.underlying as Any).contains(sentinel))
            }
        }
        #expect(!sink.all.isEmpty)
        for line in sink.all {
            #expect(!line.contains(sentinel), "\(line)")
        }
    }
}
