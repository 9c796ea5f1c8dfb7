import EmulatorHTTP
import Foundation
import JSONCore
import Testing
import Transport

/// The two built-in backends, so one suite runs against both.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case curl
    case urlSession

    var testDescription: String { rawValue }

    func makeClient(_ configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws -> any HTTPClient {
        switch self {
        case .curl: return try CurlHTTPClient(configuration: configuration)
        case .urlSession: return try URLSessionHTTPClient(configuration: configuration)
        }
    }
}

/// The emulator's HTTP server with its testing handler, on an ephemeral loopback port.
struct LoopbackServer: Sendable {
    let server: HTTPServer
    let port: Int
    /// Every request that reached the handler, in order.
    let events: AsyncStream<HTTPTestingHandler.Event>

    static func start() async throws -> LoopbackServer {
        let (events, continuation) = AsyncStream<HTTPTestingHandler.Event>.makeStream()
        let server = HTTPServer(handler: HTTPTestingHandler { continuation.yield($0) })
        try await server.start()
        let port = try #require(server.port)
        return LoopbackServer(server: server, port: Int(port), events: events)
    }

    /// Runs `body` with a started server, and stops the server afterwards whatever happens.
    static func with(_ body: (LoopbackServer) async throws -> Void) async throws {
        let loopback = try await start()
        do {
            try await body(loopback)
        } catch {
            await loopback.server.stop()
            throw error
        }
        await loopback.server.stop()
    }

    func request(
        _ path: String, query: [HTTPQueryItem] = [], headers: HTTPHeaders = HTTPHeaders(), timeout: Duration? = nil
    ) -> HTTPRequest {
        request(.get, path, query: query, headers: headers, timeout: timeout)
    }

    func request(
        _ method: HTTPMethod, _ path: String, query: [HTTPQueryItem] = [], headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8]? = nil, timeout: Duration? = nil
    ) -> HTTPRequest {
        HTTPRequest(
            method: method, scheme: "http", host: "127.0.0.1", port: port, path: path, queryItems: query,
            headers: headers, body: body, timeout: timeout)
    }

    /// Waits until a request whose path starts with `prefix` reaches the handler.
    func waitForRequest(pathPrefix prefix: String) async {
        for await event in events {
            if case .started(let request) = event, request.rawPath.hasPrefix(prefix) { return }
        }
    }
}

/// The `/echo` route's description of what the server received.
struct Echo {
    let json: JSONValue

    init(_ response: HTTPResponse) throws {
        json = try JSONValue(parsing: response.body)
    }

    var method: String? { json["method"]?.stringValue }
    var query: String? { json["query"]?.stringValue }
    var path: String? { json["path"]?.stringValue }
    var bodyLength: Int? { json["bodyLength"]?.intValue.map { Int($0) } }
    var body: [UInt8]? { json["bodyBase64"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } }

    /// Every value the server received for `name`, ignoring case.
    func headerValues(_ name: String) -> [String] {
        (json["headers"]?.arrayValue ?? []).compactMap { field in
            guard let fieldName = field["name"]?.stringValue, HTTPHeaders.namesMatch(fieldName, name) else {
                return nil
            }
            return field["value"]?.stringValue
        }
    }
}

/// Runs `body` and returns the transport error it throws, recording an issue when it does not.
func transportError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> HTTPResponse
) async -> TransportError? {
    do {
        let response = try await body()
        Issue.record("expected an error, got status \(response.status)", sourceLocation: sourceLocation)
    } catch let error as TransportError {
        return error
    } catch {
        Issue.record("expected a TransportError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
