import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import Testing
import Transport

/// DataSyncTestSupport's `HTTPClientConformance` suite, run against both built-in backends: the
/// same cases a user runs against a transport of their own.
///
/// Serialized so that the 10 MB cases do not occupy the cooperative threads while the
/// cancellation case measures how quickly a held request ends.
@Suite("HTTPClient conformance", .serialized)
struct HTTPClientConformanceTests {
    @Test("every conformance case passes", arguments: HTTPBackend.allCases, HTTPClientConformance.cases)
    func conformance(backend: HTTPBackend, check: HTTPClientConformance.Case) async throws {
        try await HTTPClientConformance.run(check) { try backend.makeClient($0) }
    }

    @Test("the suite notices a transport that breaks the rules")
    func suiteCatchesAFaultyTransport() async throws {
        // A client that answers every request itself with 200 and an empty body: most cases must fail.
        struct AlwaysOK: HTTPClient {
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                HTTPResponse(status: 200, headers: HTTPHeaders(), body: [])
            }
        }
        var failed: [String] = []
        for check in HTTPClientConformance.cases {
            do {
                try await HTTPClientConformance.run(check) { _ in AlwaysOK() }
            } catch {
                failed.append(check.id)
            }
        }
        #expect(Set(failed).isSuperset(of: ["methods", "statuses", "lost-connection", "tls", "not-http", "timeout"]))
    }

    @Test("a failure keeps the backend's own error as its cause", arguments: HTTPBackend.allCases)
    func underlyingCause(backend: HTTPBackend) async throws {
        let client = try backend.makeClient()
        let server = try await LoopbackServer.start()
        await server.server.stop()
        let error = await transportError { try await client.send(server.request("/echo")) }
        let cause = try #require(error?.underlying)
        switch backend {
        case .curl: #expect((cause as? LibcurlError)?.code == 7)
        case .urlSession: #expect(cause is URLError)
        }
    }
}
