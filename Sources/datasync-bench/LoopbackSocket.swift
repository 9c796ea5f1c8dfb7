import Foundation

/// Blocking loopback client sockets for the server benchmarks, which measure the emulator's
/// server without any HTTP client library in between.
enum LoopbackSocket {
    /// Runs blocking socket work on a thread of its own, never on a cooperative thread.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// A loopback port that was free a moment ago: bound to port 0, read back, released. Good
    /// enough for handing a child process a port in a benchmark.
    static func freePort() throws -> UInt16 {
        let fd = try makeSocket()
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound, address.sin_port != 0 else { throw BenchFailure(message: "no free loopback port") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// A connected TCP socket to `127.0.0.1:port`, with Nagle's algorithm off.
    static func connect(port: UInt16) throws -> Int32 {
        let fd = try makeSocket()
        var noDelay: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw BenchFailure(message: "connect() failed")
        }
        return fd
    }

    /// A new IPv4 TCP socket.
    private static func makeSocket() throws -> Int32 {
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw BenchFailure(message: "socket() failed") }
        return fd
    }

    /// `127.0.0.1:port`.
    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        _ = inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        return address
    }

    /// Sends every byte of `bytes`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return send(fd, base + offset, raw.count - offset, 0)
            }
            guard written > 0 else { throw BenchFailure(message: "send() failed") }
            offset += written
        }
    }

    /// Reads what is available into `buffer` and returns it; throws when the peer closed.
    static func readSome(_ fd: Int32, into buffer: inout [UInt8]) throws -> ArraySlice<UInt8> {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw BenchFailure(message: "connection closed") }
        return buffer[0..<count]
    }

    /// A keep-alive `GET` of `target`, as the bytes to send.
    static func getRequest(_ target: String) -> [UInt8] {
        Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    }

    /// Reads one `Content-Length` framed response from a blocking socket and returns its body.
    static func readResponse(_ fd: Int32) throws -> String {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let (length, bodyStart) = ResponseFrame.bodyBounds(data), data.count - bodyStart >= length {
                return String(decoding: data[bodyStart..<bodyStart + length], as: UTF8.self)
            }
            data += try readSome(fd, into: &buffer)
        }
    }

    /// The timetoken of the cursor a subscribe answer ends with (`{"t":{"t":"…"`).
    static func subscribeCursor(in answer: String) throws -> UInt64 {
        guard let range = answer.range(of: "{\"t\":{\"t\":\"") else {
            throw BenchFailure(message: "no cursor: \(answer.prefix(200))")
        }
        let digits = answer[range.upperBound...].prefix { $0.isNumber }
        guard let value = UInt64(digits) else { throw BenchFailure(message: "bad cursor") }
        return value
    }
}

/// Where a `Content-Length` framed response's body starts and how long it is, once its head is in.
enum ResponseFrame {
    /// A plain byte loop: `firstRange(of:)` through Foundation's generic `DataProtocol` path took
    /// a sixth of the load generator's time in a profile, enough to delay the answers it timed.
    static func bodyBounds(_ data: [UInt8]) -> (length: Int, bodyStart: Int)? {
        data.withUnsafeBufferPointer { bytes -> (length: Int, bodyStart: Int)? in
            let count = bytes.count
            guard count >= 4 else { return nil }
            var end = -1
            var index = 0
            while index + 3 < count {
                if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                    end = index
                    break
                }
                index += 1
            }
            guard end >= 0 else { return nil }
            // Header names compared lowercased; only Content-Length matters here.
            let name: [UInt8] = Array("content-length:".utf8)
            var length = 0
            var lineStart = 0
            while lineStart < end {
                var lineEnd = lineStart
                while lineEnd < end, bytes[lineEnd] != 13 { lineEnd += 1 }
                if lineEnd - lineStart > name.count {
                    var same = true
                    for offset in 0..<name.count where bytes[lineStart + offset] | 0x20 != name[offset] {
                        if bytes[lineStart + offset] != name[offset] { same = false }
                    }
                    if same {
                        length = 0
                        for position in (lineStart + name.count)..<lineEnd {
                            let byte = bytes[position]
                            if byte >= 0x30 && byte <= 0x39 { length = length * 10 + Int(byte - 0x30) }
                        }
                    }
                }
                lineStart = lineEnd + 2
            }
            return (length, end + 4)
        }
    }
}
