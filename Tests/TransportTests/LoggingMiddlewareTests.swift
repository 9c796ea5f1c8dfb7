import DataSyncTestSupport
import Foundation
import Testing
import Transport

/// A sink keeping every record.
final class RecordingSink: HTTPLogSink, @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [HTTPLogRecord] = []

    func log(_ record: HTTPLogRecord) { lock.withLock { stored.append(record) } }

    var records: [HTTPLogRecord] { lock.withLock { stored } }
}

@Suite("LoggingMiddleware")
struct LoggingMiddlewareTests {
    private static let secret = "qEF2AkF0GmZ-secret-token"

    private static var request: HTTPRequest {
        HTTPRequest(
            host: "ps.pndsn.com", path: "/v1/objects/sub-c/users",
            queryItems: [HTTPQueryItem(name: "uuid", value: "u1"), HTTPQueryItem(name: "auth", value: secret)],
            headers: ["Authorization": "Bearer " + secret, "proxy-authorization": secret, "Accept": "*/*"],
            body: Array("{}".utf8))
    }

    @Test("request and response records never contain the token")
    func redactsTokens() async throws {
        let sink = RecordingSink()
        let client = MockHTTPClient.success(status: 200, body: [1, 2, 3], headers: ["Authorization": Self.secret])
            .with([LoggingMiddleware(sink: sink)])
        let response = try await client.send(Self.request)
        #expect(response.status == 200)
        let records = sink.records
        #expect(records.count == 2)
        for record in records {
            #expect(!record.description.contains(Self.secret))
            #expect(!record.url.contains(Self.secret))
            #expect(!record.headers.description.contains(Self.secret))
            #expect(!String(describing: record).contains(Self.secret))
        }
        #expect(records[0].event == .request)
        #expect(records[0].url == "https://ps.pndsn.com/v1/objects/sub-c/users?uuid=u1&auth=REDACTED")
        #expect(records[0].headers["Authorization"] == "REDACTED")
        #expect(records[0].headers["Proxy-Authorization"] == "REDACTED")
        #expect(records[0].headers["Accept"] == "*/*")
        #expect(records[0].bodyByteCount == 2)
        #expect(records[1].event == .response(status: 200))
        #expect(records[1].bodyByteCount == 3)
        #expect(records[1].headers["Authorization"] == "REDACTED")
    }

    @Test("failures are logged with their code and rethrown unchanged")
    func logsFailures() async throws {
        let sink = RecordingSink()
        let error = TransportError(code: .timedOut, message: "slow")
        let client = MockHTTPClient.failure(error).with([LoggingMiddleware(sink: sink)])
        await #expect(throws: error) { try await client.send(Self.request) }
        #expect(sink.records.map(\.event) == [.request, .failure(.timedOut)])
        #expect(sink.records[1].message == "slow")
    }

    @Test("durations come from the injected clock")
    func durationFromClock() async throws {
        let sink = RecordingSink()
        let clock = ManualClock()
        let client = MockHTTPClient { _ in
            clock.advance(by: .milliseconds(250))
            return HTTPResponse(status: 204)
        }
        .with([LoggingMiddleware(sink: sink, clock: clock)])
        _ = try await client.send(Self.request)
        #expect(sink.records.last?.duration == .milliseconds(250))
        #expect(sink.records.last?.description.contains("0.250 s") == true)
    }

    @Test("extra secret names are redacted and headers can be left out")
    func configurableRedaction() async throws {
        let sink = RecordingSink()
        var request = Self.request
        request.queryItems.append(HTTPQueryItem(name: "signature", value: "v2.abc"))
        request.headers["X-Api-Key"] = "k"
        let logger = LoggingMiddleware(sink: sink, redactedQueryItems: ["signature"], redactedHeaders: ["x-api-key"])
        _ = try await MockHTTPClient.success().with([logger]).send(request)
        #expect(sink.records[0].url.hasSuffix("auth=REDACTED&signature=REDACTED"))
        #expect(sink.records[0].headers["X-Api-Key"] == "REDACTED")

        let quiet = RecordingSink()
        _ = try await MockHTTPClient.success().with([LoggingMiddleware(sink: quiet, includesHeaders: false)])
            .send(request)
        #expect(quiet.records.allSatisfy { $0.headers.isEmpty })
    }

    @Test("a closure sink receives the records")
    func closureSink() async throws {
        let recording = RecordingSink()
        let sink = ClosureLogSink { recording.log($0) }
        _ = try await MockHTTPClient.success().with([LoggingMiddleware(sink: sink)]).send(Self.request)
        #expect(recording.records.count == 2)
    }
}

@Suite("MiddlewareClient")
struct MiddlewareChainTests {
    struct Tag: HTTPMiddleware {
        let name: String
        func intercept(
            _ request: HTTPRequest, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            var request = request
            request.headers.add(name: "X-Order", value: name)
            var response = try await next(request)
            response.headers.add(name: "X-Order", value: name)
            return response
        }
    }

    @Test("the first middleware sees the request first and the response last")
    func order() async throws {
        let recorder = RecordingHTTPClient(MockHTTPClient.success())
        let response = try await recorder.with([Tag(name: "outer"), Tag(name: "inner")])
            .send(HTTPRequest(host: "example.com"))
        #expect(recorder.lastRequest?.headers.values(for: "x-order") == ["outer", "inner"])
        #expect(response.headers.values(for: "X-Order") == ["inner", "outer"])
    }
}
