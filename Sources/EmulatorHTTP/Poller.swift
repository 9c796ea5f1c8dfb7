internal import CEpoll

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which readiness mechanism the server's event loop uses.
package enum EventBackend: Sendable, Hashable {
    /// epoll where available (Linux), otherwise `poll(2)`.
    case automatic
    /// `poll(2)` everywhere; kept for platforms without epoll and for side-by-side measurement.
    case poll
}

/// Readiness notification over a set of descriptors, each tagged with a token. Event bits are
/// `poll(2)`'s (`POLLIN`, `POLLOUT`, `POLLERR`, `POLLHUP`, and ``Poller/readHangUp``).
/// Level-triggered, so a report repeats until the condition is handled. Loop-thread only.
///
/// Package access so the benchmarks' load generator can wait on ten thousand client sockets
/// the way the server does; one thread owns an instance.
package final class Poller {
    package struct Ready {
        package var token: UInt64
        package var events: Int16
    }

    /// `POLLRDHUP` (the peer shut down its side) on Linux; Glibc does not export it to Swift.
    #if os(Linux)
        package static let readHangUp: Int16 = 0x2000
    #else
        package static let readHangUp: Int16 = 0
    #endif

    private let epollFD: Int32
    /// The poll(2) backend's registrations: descriptor → (token, events).
    private var registrations: [Int32: (token: UInt64, events: Int16)] = [:]
    private var pollSet: [pollfd] = []
    private var pollTokens: [UInt64] = []
    private var tokens = [UInt64](repeating: 0, count: 256)
    private var eventBits = [UInt32](repeating: 0, count: 256)

    package init(backend: EventBackend) throws(HTTPServerError) {
        if backend == .automatic && cepoll_is_available() == 1 {
            let fd = cepoll_create()
            guard fd >= 0 else {
                throw HTTPServerError(
                    code: .systemCallFailed, message: "epoll_create1(): \(Socket.describe(Socket.lastError))")
            }
            epollFD = fd
        } else {
            epollFD = -1
        }
    }

    deinit {
        if epollFD >= 0 { close(epollFD) }
    }

    var usesEpoll: Bool { epollFD >= 0 }

    package func add(_ fd: Int32, token: UInt64, events: Int16) {
        if epollFD >= 0 {
            _ = cepoll_add(epollFD, fd, UInt32(UInt16(bitPattern: events)), token)
        } else {
            registrations[fd] = (token, events)
        }
    }

    package func modify(_ fd: Int32, token: UInt64, events: Int16) {
        if epollFD >= 0 {
            _ = cepoll_modify(epollFD, fd, UInt32(UInt16(bitPattern: events)), token)
        } else {
            registrations[fd] = (token, events)
        }
    }

    /// Unregisters `fd`; call before closing it.
    package func remove(_ fd: Int32) {
        if epollFD >= 0 {
            _ = cepoll_remove(epollFD, fd)
        } else {
            registrations[fd] = nil
        }
    }

    /// Waits up to `timeout` milliseconds (-1: no limit) and fills `ready`. Returns false on an
    /// unrecoverable error (an interrupted wait returns true with nothing ready).
    package func wait(timeout: Int32, into ready: inout [Ready]) -> Bool {
        ready.removeAll(keepingCapacity: true)
        if epollFD >= 0 {
            let count = tokens.withUnsafeMutableBufferPointer { tokenBuffer in
                eventBits.withUnsafeMutableBufferPointer { eventBuffer in
                    cepoll_wait(
                        epollFD, tokenBuffer.baseAddress, eventBuffer.baseAddress, Int32(tokenBuffer.count), timeout)
                }
            }
            if count < 0 { return Socket.lastError == EINTR }
            for index in 0..<Int(count) {
                ready.append(Ready(token: tokens[index], events: Int16(truncatingIfNeeded: eventBits[index])))
            }
            return true
        }
        pollSet.removeAll(keepingCapacity: true)
        pollTokens.removeAll(keepingCapacity: true)
        for (fd, registration) in registrations {
            pollSet.append(pollfd(fd: fd, events: registration.events, revents: 0))
            pollTokens.append(registration.token)
        }
        let count = poll(&pollSet, nfds_t(pollSet.count), timeout)
        if count < 0 { return Socket.lastError == EINTR }
        for index in pollSet.indices where pollSet[index].revents != 0 {
            ready.append(Ready(token: pollTokens[index], events: pollSet[index].revents))
        }
        return true
    }
}
