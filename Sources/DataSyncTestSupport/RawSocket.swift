import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a test's raw-socket operation failed.
package struct RawSocketError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// Runs blocking calls on a thread of their own, so no cooperative thread (which in-process
/// servers need for their handlers) ever blocks on a socket.
package func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// One HTTP response as read off the wire.
package struct RawHTTPResponse: Sendable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first field named `name`, compared without case.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    package var text: String { String(decoding: body, as: UTF8.self) }
}

/// The one raw HTTP/1.1 client of the tests: a blocking TCP connection that sends exactly the bytes
/// a test gives it and reads responses byte-exactly (fixed length, chunked, or up to the close), so
/// tests can send malformed input and observe framing. Reads and writes time out so a test fails
/// instead of hanging; call it from a thread of its own (``onThread(_:)``).
///
/// `@unchecked Sendable`: a test hands it between threads but uses it from one at a time; nothing
/// in it is shared while a call runs.
package final class RawSocket: @unchecked Sendable {
    /// The connected descriptor.
    package let fd: Int32
    private var buffer: [UInt8] = []
    private var isClosed = false

    /// Connects to `host:port` (IPv4, or IPv6 when `host` has a colon). Reads give up after
    /// `timeout` seconds, and so do writes unless `sendTimeout` says otherwise (0: a write waits
    /// as long as the server does not read). The default is generous because these tests check
    /// answers, not their speed, and on a loaded 2-core machine an answer has taken over 20 s.
    package init(
        port: UInt16, host: String = "127.0.0.1", timeout: Int = 180, sendTimeout: Int? = nil,
        receiveBuffer: Int32? = nil
    ) throws {
        let isV6 = host.contains(":")
        #if canImport(Darwin)
            fd = socket(isV6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)
        #else
            fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw RawSocketError("socket() failed: errno \(errno)") }
        var interval = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        var sendInterval = timeval(tv_sec: sendTimeout ?? timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendInterval, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let connected: Int32
        if isV6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            connected = Self.open(fd, to: &address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, host, &address.sin_addr)
            connected = Self.open(fd, to: &address)
        }
        guard connected == 0 else {
            let code = errno
            Self.closeDescriptor(fd)
            throw RawSocketError("connect() to \(host) port \(port) failed: errno \(code)")
        }
    }

    deinit { close() }

    /// `connect(2)` with an IPv4 or IPv6 address.
    private static func open<Address>(_ fd: Int32, to address: inout Address) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
    }

    package func close() {
        guard !isClosed else { return }
        isClosed = true
        Self.closeDescriptor(fd)
    }

    private static func closeDescriptor(_ fd: Int32) {
        #if canImport(Darwin)
            _ = Darwin.close(fd)
        #elseif canImport(Musl)
            _ = Musl.close(fd)
        #else
            _ = Glibc.close(fd)
        #endif
    }

    package func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let start = raw.baseAddress else { return 0 }
                #if canImport(Darwin)
                    return Darwin.send(fd, start + offset, raw.count - offset, 0)
                #elseif canImport(Musl)
                    return Musl.send(fd, start + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    return Glibc.send(fd, start + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #endif
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw RawSocketError("send() failed: errno \(errno)") }
            offset += written
        }
    }

    package func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends a request with a `Host` field, the given headers and body; returns its response.
    @discardableResult
    package func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> RawHTTPResponse {
        try send(Self.requestBytes(method, target, host: "127.0.0.1", headers: headers, body: body))
        return try response(to: method)
    }

    /// Reads one response. `method` tells whether a body follows (not for `HEAD`).
    package func response(to method: String = "GET") throws -> RawHTTPResponse {
        while true {
            if let (response, consumed) = try Self.parse(buffer, method: method, atEnd: false) {
                buffer.removeFirst(consumed)
                return response
            }
            guard try fill() else {
                if let (response, consumed) = try Self.parse(buffer, method: method, atEnd: true) {
                    buffer.removeFirst(consumed)
                    return response
                }
                throw RawSocketError("connection closed before a complete response (\(buffer.count) bytes)")
            }
        }
    }

    /// Reads everything until the server closes the connection; returns the bytes not yet consumed.
    package func readUntilClosed() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Whether the server closed the connection (reads the end of the stream within the timeout).
    package func readsEndOfStream() throws -> Bool {
        while try fill() { buffer.removeAll() }
        return true
    }

    /// The next `count` bytes (for framings other than HTTP's, such as a websocket's).
    package func read(exactly count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else {
                throw RawSocketError("the connection closed after \(buffer.count) of \(count) bytes")
            }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[0..<count])
    }

    /// The bytes up to and including the first `marker`.
    package func read(through marker: [UInt8]) throws -> [UInt8] {
        while true {
            if let range = buffer.firstRange(of: marker) {
                defer { buffer.removeFirst(range.upperBound) }
                return Array(buffer[..<range.upperBound])
            }
            guard try fill() else { throw RawSocketError("the connection closed before \(marker)") }
        }
    }

    /// Reads more bytes into the buffer; false at the end of the stream (a reset counts as one).
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[0..<count]
                return true
            }
            if count == 0 { return false }
            // A signal (a child process of another test ending) interrupts a recv with a timeout set.
            if errno == EINTR { continue }
            if errno == ECONNRESET { return false }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw RawSocketError("no answer in time") }
            throw RawSocketError("recv() failed: errno \(errno)")
        }
    }

    /// One request on a connection of its own with `Connection: close`, read to the end: the target
    /// is sent byte for byte, so a test controls every `+` and `%`. Runs on a thread of its own.
    package static func exchange(
        port: UInt16, _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        host: String? = nil, timeout: Int = 180
    ) async throws -> RawHTTPResponse {
        let bytes = requestBytes(
            method, target, host: host ?? "127.0.0.1:\(port)", headers: [("Connection", "close")] + headers,
            body: body)
        return try await exchange(port: port, bytes, method: method, timeout: timeout)
    }

    /// Sends `request` as it is on a connection of its own and reads up to the close. A body cut
    /// short by the close is returned as it came (a test of a truncating fault reads it); nothing
    /// but a missing or unreadable head throws.
    package static func exchange(
        port: UInt16, _ request: [UInt8], method: String = "GET", timeout: Int = 180
    ) async throws -> RawHTTPResponse {
        try await onThread {
            let socket = try RawSocket(port: port, timeout: timeout)
            try socket.send(request)
            let bytes = try socket.readUntilClosed()
            guard let (response, _) = try parse(bytes, method: method, atEnd: true, allowsShortBody: true) else {
                throw RawSocketError("no complete response in the \(bytes.count) bytes before the close")
            }
            return response
        }
    }

    private static func requestBytes(
        _ method: String, _ target: String, host: String, headers: [(String, String)], body: [UInt8]
    ) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
            head += "Content-Length: \(body.count)\r\n"
        }
        return Array((head + "\r\n").utf8) + body
    }

    /// Parses one response from the front of `bytes`, or returns nil when more bytes are needed.
    /// At the end of the stream, `allowsShortBody` takes a `Content-Length` body cut short as it is.
    package static func parse(
        _ bytes: [UInt8], method: String, atEnd: Bool, allowsShortBody: Bool = false
    ) throws -> (RawHTTPResponse, Int)? {
        guard let headEnd = bytes.firstRange(of: [13, 10, 13, 10])?.upperBound else { return nil }
        let headText = String(decoding: bytes[0..<(headEnd - 4)], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw RawSocketError("bad status line in \(headText)")
        }
        let headers = lines.map { line -> (name: String, value: String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts.first ?? ""), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        var response = RawHTTPResponse(status: status, headers: headers, body: [])
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) {
            return (response, headEnd)
        }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            var index = headEnd
            while true {
                guard let lineEnd = bytes[index...].firstRange(of: [13, 10])?.lowerBound else { return nil }
                let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else {
                    throw RawSocketError("bad chunk size \(sizeText)")
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
            guard let length = Int(lengthText) else { throw RawSocketError("bad Content-Length") }
            if atEnd, allowsShortBody, bytes.count < headEnd + length {
                response.body = Array(bytes[headEnd...])
                return (response, bytes.count)
            }
            guard bytes.count >= headEnd + length else { return nil }
            response.body = Array(bytes[headEnd..<(headEnd + length)])
            return (response, headEnd + length)
        }
        guard atEnd else { return nil }
        response.body = Array(bytes[headEnd...])
        return (response, bytes.count)
    }
}
