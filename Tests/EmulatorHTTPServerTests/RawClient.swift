import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

typealias RawResponse = RawHTTPResponse

/// A ``RawSocket`` used from async tests: each call runs on a thread of its own, so tests never
/// block Swift's cooperative threads (which the server's handlers need). Reads fail after 20 s
/// instead of hanging.
actor RawClient {
    private let socket: RawSocket
    nonisolated var fd: Int32 { socket.fd }

    private init(_ socket: RawSocket) { self.socket = socket }

    /// Connects and, when `initialBytes` is not empty, sends them right after connecting on the
    /// same thread (so they arrive well within any idle timeout).
    static func connect(
        port: UInt16, host: String = "127.0.0.1", sending initialBytes: String = "", receiveBuffer: Int32? = nil
    ) async throws -> RawClient {
        let socket = try await onThread {
            let socket = try RawSocket(
                port: port, host: host, timeout: 20, sendTimeout: 0, receiveBuffer: receiveBuffer)
            if !initialBytes.isEmpty { try socket.send(initialBytes) }
            return socket
        }
        return RawClient(socket)
    }

    func send(_ text: String) async throws { try await send(Array(text.utf8)) }

    /// Sends a plain `GET target` (HTTP/1.1, `Host: x`, then `headers`, each ending in CRLF) and
    /// reads its response: the request most tests use to see that a connection still works.
    func get(_ target: String, headers: String = "") async throws -> RawResponse {
        try await send("GET \(target) HTTP/1.1\r\nHost: x\r\n\(headers)\r\n")
        return try await response()
    }

    func send(_ bytes: [UInt8]) async throws {
        let socket = self.socket
        try await onThread { try socket.send(bytes) }
    }

    /// Reads one response. `method` tells whether a body follows (not for `HEAD`).
    func response(to method: String = "GET") async throws -> RawResponse {
        let socket = self.socket
        return try await onThread { try socket.response(to: method) }
    }

    /// Reads everything until the server closes the connection; returns the bytes not yet consumed.
    func readUntilClosed() async throws -> [UInt8] {
        let socket = self.socket
        return try await onThread { try socket.readUntilClosed() }
    }

    func close() { socket.close() }
}

/// Raises this process's open-file limit to at least `count` (up to the hard limit), so tests
/// holding a thousand connections (two descriptors each, in one process) also run where the
/// default soft limit is 1,024.
func raiseOpenFileLimit(to count: Int) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
    limit.rlim_cur = min(rlim_t(count), limit.rlim_max)
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

/// Starts a server on an ephemeral loopback port, runs `body`, and always stops the server.
func withServer(
    _ configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
    handler: any ServerHandler = HTTPTestingHandler(),
    _ body: (HTTPServer, UInt16) async throws -> Void
) async throws {
    let server = HTTPServer(configuration: configuration, handler: handler)
    try await server.start()
    try await runThenStop({ try await body(server, try #require(server.port)) }, stop: { await server.stop() })
}

/// Both event loops the server can run on, for the tests whose behaviour must not depend on it.
let eventBackends: [EventBackend] = [.automatic, .poll]

/// Starts a server like ``withServer(_:handler:_:)`` and hands `body` one open connection to it.
func withConnection(
    _ configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
    handler: any ServerHandler = HTTPTestingHandler(),
    _ body: (HTTPServer, RawClient) async throws -> Void
) async throws {
    try await withServer(configuration, handler: handler) { server, port in
        try await body(server, try await RawClient.connect(port: port))
    }
}

/// The default server configuration with `change` applied.
func serverConfiguration(_ change: (inout HTTPServer.Configuration) -> Void) -> HTTPServer.Configuration {
    var configuration = HTTPServer.Configuration()
    change(&configuration)
    return configuration
}

/// Collects a handler's events and lets a test wait (without sleeping) until enough have arrived.
final class EventRecorder: Sendable {
    let stream: AsyncStream<HTTPTestingHandler.Event>
    private let continuation: AsyncStream<HTTPTestingHandler.Event>.Continuation
    let handler: HTTPTestingHandler

    init() {
        let (stream, continuation) = AsyncStream<HTTPTestingHandler.Event>.makeStream()
        self.stream = stream
        self.continuation = continuation
        self.handler = HTTPTestingHandler { continuation.yield($0) }
    }

    /// Waits until `count` events matching `predicate` have arrived; returns them.
    func wait(
        for count: Int, where predicate: @Sendable (HTTPTestingHandler.Event) -> Bool
    ) async -> [HTTPTestingHandler.Event] {
        var matched: [HTTPTestingHandler.Event] = []
        guard count > 0 else { return matched }
        for await event in stream where predicate(event) {
            matched.append(event)
            if matched.count == count { break }
        }
        return matched
    }
}

extension HTTPTestingHandler.Event {
    var isStarted: Bool {
        if case .started = self { return true }
        return false
    }

    var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }
}
