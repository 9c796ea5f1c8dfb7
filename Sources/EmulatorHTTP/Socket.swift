#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the POSIX socket calls the server needs, with platform differences kept here.
enum Socket {
    #if canImport(Darwin)
        static let streamType = SOCK_STREAM
        static let sendFlags: Int32 = 0
    #else
        static let streamType = Int32(SOCK_STREAM.rawValue)
        static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// The calling thread's `errno`.
    static var lastError: Int32 { errno }

    /// A human-readable description of an `errno` value.
    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text) + " (errno \(code))"
    }

    static func setNonBlocking(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFL, 0)
        guard flags >= 0 else { return false }
        return fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0
    }

    static func setCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Prepares an accepted connection: non-blocking, close-on-exec, no Nagle delay, no SIGPIPE.
    static func configureAccepted(_ fd: Int32) -> Bool {
        setCloseOnExec(fd)
        setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        #if canImport(Darwin)
            setOption(fd, level: SOL_SOCKET, name: SO_NOSIGPIPE, value: 1)
        #endif
        return setNonBlocking(fd)
    }

    /// Creates a non-blocking listening socket bound to `host` (an IPv4 or IPv6 literal, or
    /// `localhost`) and `port`, and returns it with the port actually bound.
    static func makeListener(host: String, port: UInt16, backlog: Int32) throws(HTTPServerError) -> (
        fd: Int32, port: UInt16
    ) {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var address4 = sockaddr_in()
        var address6 = sockaddr_in6()
        let family: Int32
        let trimmed =
            literal.hasPrefix("[") && literal.hasSuffix("]") ? String(literal.dropFirst().dropLast()) : literal
        if inet_pton(AF_INET, trimmed, &address4.sin_addr) == 1 {
            family = AF_INET
            address4.sin_family = sa_family_t(AF_INET)
            address4.sin_port = port.bigEndian
        } else if inet_pton(AF_INET6, trimmed, &address6.sin6_addr) == 1 {
            family = AF_INET6
            address6.sin6_family = sa_family_t(AF_INET6)
            address6.sin6_port = port.bigEndian
        } else {
            throw HTTPServerError(
                code: .invalidAddress, message: "'\(host)' is not an IPv4 or IPv6 address literal nor localhost")
        }
        let fd = socket(family, streamType, 0)
        guard fd >= 0 else {
            throw HTTPServerError(code: .systemCallFailed, message: "socket(): \(describe(lastError))")
        }
        setCloseOnExec(fd)
        setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
        if family == AF_INET6 { setOption(fd, level: Int32(IPPROTO_IPV6), name: IPV6_V6ONLY, value: 1) }
        let bound: Int32
        if family == AF_INET {
            bound = withUnsafePointer(to: &address4) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            bound = withUnsafePointer(to: &address6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard bound == 0 else {
            let code = lastError
            close(fd)
            throw HTTPServerError(code: .bindFailed, message: "bind(\(host):\(port)): \(describe(code))")
        }
        guard listen(fd, backlog) == 0, setNonBlocking(fd) else {
            let code = lastError
            close(fd)
            throw HTTPServerError(code: .systemCallFailed, message: "listen(): \(describe(code))")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = lastError
            close(fd)
            throw HTTPServerError(code: .systemCallFailed, message: "getsockname(): \(describe(code))")
        }
        let boundPort: UInt16 = withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin_port)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                UInt16(bigEndian: $0.pointee.sin6_port)
            }
        }
        return (fd, boundPort)
    }

    /// Shuts down the sending side, so the peer reads end-of-stream after what was sent.
    static func shutdownWrite(_ fd: Int32) {
        #if canImport(Darwin)
            _ = shutdown(fd, SHUT_WR)
        #else
            _ = shutdown(fd, Int32(SHUT_WR))
        #endif
    }

    /// Monotonic time in nanoseconds.
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
