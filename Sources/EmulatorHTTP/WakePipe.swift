#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The pipe that wakes an event loop from its wait: another thread writes a byte, the loop
/// watches the read end and drains it. Both ends are non-blocking and close on exec.
struct WakePipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws(HTTPServerError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let code = Socket.lastError
            throw HTTPServerError(code: .systemCallFailed, message: "pipe(): \(Socket.describe(code))")
        }
        for end in ends {
            Socket.setCloseOnExec(end)
            _ = Socket.setNonBlocking(end)
        }
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    /// Wakes the loop (a full pipe already will).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Reads every byte written so far.
    func drain() {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(readEnd, &sink, sink.count) > 0 {}
    }

    /// Closes both ends.
    func closeBoth() {
        close(readEnd)
        close(writeEnd)
    }
}
