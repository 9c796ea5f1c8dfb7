package import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the executables that run an emulator until Ctrl-C (`datasync-emulator`, `datasync
/// emulator`) hear SIGINT and SIGTERM.
package enum StopSignals {
    /// Turns off the default action of SIGINT and SIGTERM and delivers each as an element of the
    /// returned stream. Dispatch sources on a queue of their own receive them, so no thread of the
    /// cooperative pool ever waits for a signal. Cancel the sources once the stream is no longer
    /// read.
    package static func stream() -> (signals: AsyncStream<Int32>, sources: [any DispatchSourceSignal]) {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let (stream, continuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(4))
        let queue = DispatchQueue(label: "datasync-emulator.signals")
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { @Sendable in continuation.yield(number) }
            source.resume()
            return source
        }
        return (stream, sources)
    }
}
