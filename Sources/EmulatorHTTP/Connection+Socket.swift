#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// A connection's non-blocking socket: the readiness events its phase calls for, and moving bytes
// between the socket and the connection's buffers; what to do with them is the event loop's.
extension Connection {
    enum TransferOutcome {
        /// Everything available was read, or everything pending was written.
        case done
        /// The socket cannot take more output now; the rest waits for writability.
        case wouldBlock
        /// The client shut down its side (reading).
        case endOfInput
        /// The socket failed.
        case failed
    }

    /// The events to watch in the current phase. While the request is handled, reading stops
    /// once `handlingInputCap` pipelined bytes are buffered here or when the server's buffer
    /// budget is spent (`overBudget`), and only a hang-up is watched.
    func interest(handlingInputCap: Int, overBudget: Bool) -> Int16 {
        switch phase {
        case .reading:
            // The hang-up bit as while handling: a connection going back and forth between the
            // two (every held long-poll, every answer) then needs no `epoll_ctl` for it.
            return hasPendingOutput ? Int16(POLLIN | POLLOUT) | Poller.readHangUp : Int16(POLLIN) | Poller.readHangUp
        case .handling:
            let buffered = input.count - readIndex
            return buffered < handlingInputCap && !overBudget ? Int16(POLLIN) | Poller.readHangUp : Poller.readHangUp
        case .writing:
            return Int16(POLLOUT)
        case .lingering:
            return Int16(POLLIN)
        }
    }

    /// Reads what the socket holds, in up to four rounds of `scratch`'s size, appending it to
    /// `input` (or dropping it while lingering).
    func receive(using scratch: inout [UInt8]) -> TransferOutcome {
        var rounds = 0
        while rounds < 4 {
            rounds += 1
            let count = scratch.withUnsafeMutableBytes { buffer in recv(fd, buffer.baseAddress, buffer.count, 0) }
            if count > 0 {
                if phase != .lingering { input.append(contentsOf: scratch[0..<count]) }
                if count < scratch.count { break }
            } else if count == 0 {
                return .endOfInput
            } else {
                let code = Socket.lastError
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { break }
                return .failed
            }
        }
        return .done
    }

    /// Writes pending output until it is all out (then empties `output`) or the socket would
    /// block; while writing a response, each write moves `phaseClock` to `now`.
    func sendPending(now: UInt64) -> TransferOutcome {
        while hasPendingOutput {
            let written = output.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return send(fd, base + outputIndex, buffer.count - outputIndex, Socket.sendFlags)
            }
            if written > 0 {
                outputIndex += written
                if phase == .writing { phaseClock = now }
                continue
            }
            let code = Socket.lastError
            if written < 0 && code == EINTR { continue }
            if written < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return .wouldBlock }
            return .failed
        }
        output = []
        outputIndex = 0
        return .done
    }
}
