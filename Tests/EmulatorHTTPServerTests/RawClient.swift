import EmulatorHTTP
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a raw-socket operation failed.
struct RawClientError: Error, CustomStringConvertible {
    var description: String
}

/// Runs blocking socket calls on a thread of their own, so tests never block Swift's cooperative
/// threads (which the server's handlers need).
enum Blocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.start()
        }
    }
}

/// One response as read off the wire.
struct RawResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A deliberately dumb HTTP/1.1 client over a raw TCP socket: it sends exactly the bytes a test
/// gives it and reads responses byte-exactly, so tests can send malformed input and observe framing.
actor RawClient {
    nonisolated let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false
    /// How long a single read waits before the test fails instead of hanging.
    static let readTimeoutMilliseconds: Int32 = 20_000

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        if !closed { Glibc.close(fd) }
    }

    /// Connects and, when `initialBytes` is not empty, sends them right after connecting on the
    /// same thread (so they arrive well within any idle timeout).
    static func connect(
        port: UInt16, host: String = "127.0.0.1", sending initialBytes: String = "", receiveBuffer: Int32? = nil
    ) async throws -> RawClient {
        let fd = try await Blocking.run {
            let fd = try openSocket(port: port, host: host, receiveBuffer: receiveBuffer)
            if !initialBytes.isEmpty { try writeAll(fd, Array(initialBytes.utf8)) }
            return fd
        }
        return RawClient(fd: fd)
    }

    /// Opens a connected, blocking TCP socket.
    static func openSocket(port: UInt16, host: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws -> Int32 {
        let isV6 = host.contains(":")
        let fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError(description: "socket() failed: \(errno)") }
        if var size = receiveBuffer {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var result: Int32
        if isV6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw RawClientError(description: "connect() failed: errno \(code)")
        }
        return fd
    }

    /// Writes all of `bytes` on a blocking socket.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw RawClientError(description: "send() failed: errno \(errno)") }
            offset += written
        }
    }

    /// Reads what is available (waiting up to the read timeout); an empty result means end of stream.
    static func readSome(_ fd: Int32, timeoutMilliseconds: Int32 = readTimeoutMilliseconds) throws -> [UInt8] {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        guard ready > 0 else { throw RawClientError(description: "read timed out") }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            // A reset counts as the end of the stream for these tests.
            if errno == ECONNRESET { return [] }
            throw RawClientError(description: "recv() failed: errno \(errno)")
        }
        return Array(chunk[0..<count])
    }

    func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) async throws {
        let fd = self.fd
        try await Blocking.run { try RawClient.writeAll(fd, bytes) }
    }

    /// Reads more bytes into the buffer; returns false at end of stream.
    private func fill() async throws -> Bool {
        let fd = self.fd
        let chunk = try await Blocking.run { try RawClient.readSome(fd) }
        buffer += chunk
        return !chunk.isEmpty
    }

    /// Reads one response. `method` tells whether a body follows (not for `HEAD`).
    func response(to method: String = "GET") async throws -> RawResponse {
        while true {
            if let (response, consumed) = try Self.parse(buffer, method: method, atEnd: false) {
                buffer.removeFirst(consumed)
                return response
            }
            guard try await fill() else {
                if let (response, consumed) = try Self.parse(buffer, method: method, atEnd: true) {
                    buffer.removeFirst(consumed)
                    return response
                }
                throw RawClientError(
                    description: "connection closed before a complete response (\(buffer.count) bytes)")
            }
        }
    }

    /// Reads everything until the server closes the connection; returns the bytes not yet consumed.
    func readUntilClosed() async throws -> [UInt8] {
        while try await fill() {}
        let rest = buffer
        buffer = []
        return rest
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// Parses one response from the front of `bytes`, or returns nil when more bytes are needed.
    static func parse(_ bytes: [UInt8], method: String, atEnd: Bool) throws -> (RawResponse, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = bytes.firstRange(of: separator)?.upperBound else { return nil }
        let headText = String(decoding: bytes[0..<(headEnd - 4)], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw RawClientError(description: "bad status line in \(headText)")
        }
        let headers = lines.map { line -> (name: String, value: String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : "")
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) {
            return (response, headEnd)
        }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            var index = headEnd
            while true {
                guard let lineEnd = bytes[index...].firstRange(of: [13, 10])?.lowerBound else { return nil }
                let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else {
                    throw RawClientError(description: "bad chunk size \(sizeText)")
                }
                index = lineEnd + 2
                if size == 0 {
                    guard bytes.count >= index + 2 else { return nil }
                    return (response, index + 2)
                }
                guard bytes.count >= index + size + 2 else { return nil }
                response.body += bytes[index..<(index + size)]
                index += size + 2
            }
        }
        if let lengthText = response.header("Content-Length") {
            guard let length = Int(lengthText) else { throw RawClientError(description: "bad Content-Length") }
            guard bytes.count >= headEnd + length else { return nil }
            response.body = Array(bytes[headEnd..<(headEnd + length)])
            return (response, headEnd + length)
        }
        guard atEnd else { return nil }
        response.body = Array(bytes[headEnd...])
        return (response, bytes.count)
    }
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
    do {
        let port = try #require(server.port)
        try await body(server, port)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
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
