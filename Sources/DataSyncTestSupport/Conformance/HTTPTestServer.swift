public import EmulatorHTTP
import Foundation
import JSONCore
public import Transport

/// The emulator's HTTP server with its testing routes (`/echo`, `/status/N`, `/bytes/N`, `/delay/MS`,
/// `/hold`, `/drop`, `/truncate/N`; see `HTTPTestingHandler`) on an ephemeral loopback port.
///
/// The ``HTTPClientConformance`` suite runs against it; use it directly to test a middleware or a
/// transport of your own against real sockets.
///
/// ```swift
/// try await HTTPTestServer.with { server in
///     let response = try await myClient.send(server.request("/status/503"))
///     // response.status == 503
/// }
/// ```
public struct HTTPTestServer: Sendable {
    /// The running server; read its `statistics` to see connections and requests.
    public let server: HTTPServer
    /// The loopback port it listens on.
    public let port: Int
    /// Every request that reached the handler, in order.
    public let events: AsyncStream<HTTPTestingHandler.Event>

    /// Starts a server on `127.0.0.1` and an ephemeral port. Stop it with `server.stop()`, or use
    /// ``with(_:)``.
    ///
    /// - Throws: the server's error when it cannot listen.
    public static func start() async throws -> HTTPTestServer {
        let (events, continuation) = AsyncStream<HTTPTestingHandler.Event>.makeStream()
        let server = HTTPServer(handler: HTTPTestingHandler { continuation.yield($0) })
        try await server.start()
        guard let port = server.port else {
            await server.stop()
            throw TransportError(code: .cannotConnect, message: "the test server has no port after starting")
        }
        return HTTPTestServer(server: server, port: Int(port), events: events)
    }

    /// Runs `body` with a started server and stops the server afterwards, whatever happens.
    public static func with<T>(_ body: (HTTPTestServer) async throws -> T) async throws -> T {
        let running = try await start()
        do {
            let result = try await body(running)
            await running.server.stop()
            return result
        } catch {
            await running.server.stop()
            throw error
        }
    }

    /// A GET request to `path` on this server.
    public func request(
        _ path: String, query: [HTTPQueryItem] = [], headers: HTTPHeaders = HTTPHeaders(), timeout: Duration? = nil
    ) -> HTTPRequest {
        request(.get, path, query: query, headers: headers, timeout: timeout)
    }

    /// A request with any method and body to `path` on this server.
    public func request(
        _ method: HTTPMethod, _ path: String, query: [HTTPQueryItem] = [], headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8]? = nil, timeout: Duration? = nil
    ) -> HTTPRequest {
        HTTPRequest(
            method: method, scheme: "http", host: "127.0.0.1", port: port, path: path, queryItems: query,
            headers: headers, body: body, timeout: timeout)
    }

    /// Waits until a request whose path starts with `prefix` reaches the handler.
    public func waitForRequest(pathPrefix prefix: String) async {
        for await event in events {
            if case .started(let request) = event, request.rawPath.hasPrefix(prefix) { return }
        }
    }

    /// Waits until a request whose path starts with `prefix` reaches the handler, for at most
    /// `timeout` of real time (the request travels over real sockets).
    ///
    /// - Returns: `true` when the request arrived, `false` when the time ran out first.
    public func waitForRequest(pathPrefix prefix: String, timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await waitForRequest(pathPrefix: prefix)
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

/// The `/echo` route's description of what the server received.
struct EchoReply {
    let json: JSONValue

    init(_ response: HTTPResponse) throws {
        json = try JSONValue(parsing: response.body)
    }

    var method: String? { json["method"]?.stringValue }
    var query: String? { json["query"]?.stringValue }
    var path: String? { json["path"]?.stringValue }
    var bodyLength: Int? { json["bodyLength"]?.intValue.map { Int($0) } }
    var body: [UInt8]? { json["bodyBase64"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } }
    var bodyChecksum: Int? { json["bodyCRC32"]?.intValue }

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
