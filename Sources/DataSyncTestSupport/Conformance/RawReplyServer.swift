import Foundation
import Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback TCP server that answers every connection with fixed bytes (which need not be HTTP)
/// and closes it: the misbehaving peers the HTTP server cannot imitate, such as a reply that is
/// not HTTP at all.
final class RawReplyServer: LoopbackTestPort, @unchecked Sendable {
    // @unchecked Sendable: `listener` is written once in `init` and closed once in `stop()`; the
    // accept thread only reads it.
    let port: Int
    private let listener: Int32

    init(reply: [UInt8]) throws {
        let (fd, port) = try boundLoopbackSocket()
        guard listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        self.port = port
        listener = fd
        let thread = Thread {
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(connection, &buffer, buffer.count)
                _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                close(connection)
            }
        }
        thread.start()
    }

    /// Stops accepting; the accept thread ends.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// A loopback port that refuses every connection while this value lives: a TCP socket is bound to
/// it and never listens. The port of a stopped server would do the same, until another server of
/// the process (tests run in parallel) is given that port and answers.
final class RefusingPort: LoopbackTestPort, @unchecked Sendable {
    // @unchecked Sendable: `socket` is written once in `init` and closed once in `close()`.
    let port: Int
    private let socket: Int32

    init() throws {
        (socket, port) = try boundLoopbackSocket()
    }

    /// Releases the port.
    func close() {
        #if canImport(Glibc)
            _ = Glibc.close(socket)
        #else
            _ = Darwin.close(socket)
        #endif
    }
}

/// A loopback port the raw conformance cases send to.
protocol LoopbackTestPort {
    var port: Int { get }
}

extension LoopbackTestPort {
    /// A GET request for `path` on `127.0.0.1` at ``port``.
    func request(_ path: String, timeout: Duration) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "http", host: "127.0.0.1", port: port, path: path, timeout: timeout)
    }
}

/// A TCP socket bound to `127.0.0.1` and a port the system picks, with that port.
private func boundLoopbackSocket() throws -> (Int32, Int) {
    #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard bound == 0 else {
        close(fd)
        throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
