import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes text lines to a file descriptor (standard output, a log file, a pipe) from a thread of
/// its own, so whoever logs never waits for whoever reads.
///
/// ``write(_:)`` only appends the line to a bounded in-memory buffer and returns; it never makes
/// a system call and never blocks. A dedicated writer thread drains the buffer with ordinary
/// (blocking) writes, so only that thread waits when the reader is slow. When the buffer is full
/// the line is **dropped and counted**; once the writer catches up it writes
/// `[log] N lines dropped (the output was not being read)` before the next line, so a reader
/// sees where lines are missing. Lines are written in batches: the writer thread is woken by the
/// first line after a quiet spell, by a buffer a quarter full, or by ``flush(timeout:)``, and
/// otherwise looks for new lines every ``batchInterval`` while lines keep coming, so a busy
/// server does not wake it once per line. When the output is closed (`EPIPE`, or any other write error)
/// every later line is dropped and counted, and nothing else happens: no signal, no exit.
///
/// The descriptor is written as it is: its blocking mode is not changed, because it is usually
/// shared with whoever started the process (a terminal, a shell's pipe), and making it
/// non-blocking would change it for them too. `SIGPIPE` is blocked on the writer thread, so a
/// closed pipe is an `EPIPE` error there even when the process has not ignored the signal.
///
/// ```swift
/// let output = LineWriter(fileDescriptor: STDOUT_FILENO)
/// output.write("GET /time/0 -> 200 (0.1 ms)")      // returns at once, whatever the reader does
/// _ = output.flush(timeout: .seconds(1))             // before exit: wait a little, not forever
/// ```
public final class LineWriter: Sendable {
    /// Counters of a writer.
    public struct Statistics: Sendable, Hashable {
        /// Lines written to the descriptor.
        public var writtenLines = 0
        /// Lines dropped because the buffer was full or the output was closed.
        public var droppedLines = 0
        /// Whether a write failed (the reader closed the pipe): every later line is dropped.
        public var outputClosed = false

        /// Creates zeroed counters.
        public init() {}
    }

    /// The longest line kept whole, in bytes; longer lines are cut there and end with `…`.
    public static let maximumLineBytes = 64 * 1024
    /// How long a line may wait for the writer while lines keep coming: at most this much later
    /// than written, it is on its way to the descriptor.
    public static let batchInterval: Duration = .milliseconds(20)

    private let shared: Shared

    /// Starts a writer thread for `fileDescriptor`, which stays open and owned by the caller.
    ///
    /// - Parameters:
    ///   - fileDescriptor: where lines go, for example `STDOUT_FILENO`.
    ///   - capacityBytes: how many bytes of lines may wait for the writer before new lines are
    ///     dropped. Default 1 MiB (several thousand request-log lines).
    public init(fileDescriptor: Int32, capacityBytes: Int = 1 << 20) {
        shared = Shared(fileDescriptor: fileDescriptor, capacity: max(1, capacityBytes))
        let shared = shared
        let thread = Thread { shared.run() }
        thread.name = "EmulatorHTTP.LineWriter"
        thread.start()
    }

    deinit {
        shared.stop()
    }

    /// Queues `line` (a newline is added) and returns at once. Drops it, counting it, when the
    /// buffer is full or the output is closed.
    public func write(_ line: String) {
        shared.enqueue(line)
    }

    /// Waits until every queued line is written, or `timeout` passes, or the output is closed.
    /// Returns whether the buffer was emptied. Call it from a plain thread or the main code of
    /// an executable, not from a task that must stay responsive.
    @discardableResult
    public func flush(timeout: Duration) -> Bool {
        shared.flush(timeout: timeout)
    }

    /// The writer's counters.
    public var statistics: Statistics { shared.statistics }

    /// The state both sides share, behind one condition lock. `@unchecked Sendable` is safe:
    /// every mutable property is read and written only while `condition` is locked.
    private final class Shared: @unchecked Sendable {
        let fileDescriptor: Int32
        let capacity: Int
        let condition = NSCondition()
        /// The queued lines' bytes, each ending in a newline: one buffer, so queueing a line
        /// copies it once and allocates nothing once the buffer has grown.
        var queue: [UInt8] = []
        /// How many lines `queue` holds.
        var queuedLines = 0
        /// Dropped since the last notice was written.
        var unreported = 0
        var writing = false
        var stopping = false
        /// Whether the writer waits without a timeout (after a quiet interval): the next line
        /// must wake it. Otherwise it looks again within `batchInterval` by itself.
        var writerAsleep = false
        /// Whether someone waits in `flush`: the writer must not hold lines back.
        var flushWaiters = 0
        var statistics = Statistics()

        init(fileDescriptor: Int32, capacity: Int) {
            self.fileDescriptor = fileDescriptor
            self.capacity = capacity
        }

        func enqueue(_ line: String) {
            let utf8 = line.utf8
            let cut = utf8.count > LineWriter.maximumLineBytes
            let ellipsis = "…".utf8
            let size = (cut ? LineWriter.maximumLineBytes + ellipsis.count : utf8.count) + 1
            condition.lock()
            defer { condition.unlock() }
            guard !statistics.outputClosed, !stopping, queue.count + size <= capacity else {
                statistics.droppedLines += 1
                unreported += 1
                return
            }
            if cut {
                queue.append(contentsOf: utf8.prefix(LineWriter.maximumLineBytes))
                queue.append(contentsOf: ellipsis)
            } else {
                queue.append(contentsOf: utf8)
            }
            queue.append(10)
            queuedLines += 1
            let queuedBytes = queue.count
            // Wake the writer only when it sleeps for good, or the buffer is filling up; while
            // lines keep coming it collects them every `batchInterval` by itself.
            if writerAsleep || queuedBytes >= capacity / 4 {
                writerAsleep = false
                condition.signal()
            }
        }

        func stop() {
            condition.lock()
            stopping = true
            condition.broadcast()
            condition.unlock()
        }

        var isDrained: Bool { queue.isEmpty && !writing }

        /// With `condition` locked: returns once there are lines to write and the batch interval
        /// has passed since the writer started waiting for them (sooner when the buffer is a
        /// quarter full or someone flushes), or once the writer stops. With nothing queued it
        /// waits without a timeout (`writerAsleep`) until the next line wakes it.
        func waitForLines() {
            let interval = LineWriter.batchInterval.components
            let seconds = Double(interval.seconds) + Double(interval.attoseconds) / 1e18
            while !stopping {
                if queue.isEmpty {
                    writerAsleep = true
                    condition.wait()
                    continue
                }
                if flushWaiters > 0 || queue.count >= capacity / 4 { return }
                // Let more lines join this batch for one interval, then write what is there.
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
                if !queue.isEmpty { return }
            }
        }

        func flush(timeout: Duration) -> Bool {
            let (seconds, attoseconds) = timeout.components
            let deadline = Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18)
            condition.lock()
            defer { condition.unlock() }
            flushWaiters += 1
            defer { flushWaiters -= 1 }
            condition.broadcast()
            while !isDrained && !statistics.outputClosed {
                if !condition.wait(until: deadline) { break }
            }
            return isDrained
        }

        func run() {
            Self.blockPipeSignal()
            // The bytes being written; swapped with `queue`, so both buffers keep their capacity.
            var batch: [UInt8] = []
            while true {
                condition.lock()
                waitForLines()
                if queue.isEmpty && stopping {
                    condition.unlock()
                    return
                }
                batch.removeAll(keepingCapacity: true)
                if unreported > 0 {
                    batch += Array("[log] \(unreported) lines dropped (the output was not being read)\n".utf8)
                    unreported = 0
                    batch += queue
                    queue.removeAll(keepingCapacity: true)
                } else {
                    swap(&batch, &queue)
                }
                let lines = queuedLines
                queuedLines = 0
                writing = true
                condition.unlock()

                let succeeded = writeAll(batch)

                condition.lock()
                writing = false
                if succeeded {
                    statistics.writtenLines += lines
                } else {
                    statistics.outputClosed = true
                    statistics.droppedLines += lines + queuedLines
                    queue.removeAll()
                    queuedLines = 0
                }
                condition.broadcast()
                let closed = statistics.outputClosed
                condition.unlock()
                if closed { return }
            }
        }

        /// Writes everything, waiting for the descriptor when it is non-blocking and full.
        /// Returns false when the output is closed or broken.
        private func writeAll(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { buffer -> Int in
                    guard let base = buffer.baseAddress else { return 0 }
                    #if canImport(Darwin)
                        return Darwin.write(fileDescriptor, base + offset, buffer.count - offset)
                    #else
                        return Glibc.write(fileDescriptor, base + offset, buffer.count - offset)
                    #endif
                }
                if written > 0 {
                    offset += written
                    continue
                }
                let code = errno
                if written < 0 && code == EINTR { continue }
                if written < 0 && (code == EAGAIN || code == EWOULDBLOCK) {
                    var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, 1000)
                    continue
                }
                if code == EPIPE { Self.discardPendingPipeSignal() }
                return false
            }
            return true
        }

        /// Blocks `SIGPIPE` on the calling (writer) thread: a write to a closed pipe then fails
        /// with `EPIPE` instead of killing the process.
        private static func blockPipeSignal() {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &set, nil)
        }

        /// Takes the `SIGPIPE` left pending on this thread by a failed write, if any.
        private static func discardPendingPipeSignal() {
            var pending = sigset_t()
            sigemptyset(&pending)
            guard sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 else { return }
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            var taken: Int32 = 0
            _ = sigwait(&set, &taken)
        }
    }
}
