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
}
