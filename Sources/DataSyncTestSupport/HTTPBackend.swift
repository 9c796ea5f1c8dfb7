public import Transport

/// The HTTP backends this package ships, for tests that must pass on each of them:
/// `@Test(arguments: HTTPBackend.allCases)`.
///
/// The backends differ where apps notice (connection reuse, how a reset or a timeout surfaces), so
/// an integration test that runs on one only proves half of what users get.
public enum HTTPBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `CurlHTTPClient`: libcurl, loaded at run time.
    case curl
    /// `URLSessionHTTPClient`: Foundation's `URLSession`.
    case urlSession

    /// `curl` or `urlSession`, as test arguments are shown.
    public var description: String { rawValue }

    /// A new client of this backend.
    ///
    /// - Throws: `TransportError` when the backend cannot start (libcurl missing, or a
    ///   configuration the backend refuses).
    public func makeClient(_ configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws
        -> any HTTPClient
    {
        switch self {
        case .curl: return try CurlHTTPClient(configuration: configuration)
        case .urlSession: return try URLSessionHTTPClient(configuration: configuration)
        }
    }
}

/// Polls `condition` until it holds, yielding between the first polls and then pausing a few
/// milliseconds between later ones, and returns whether it held.
///
/// It gives up when the calling task is cancelled (a Swift Testing `.timeLimit` cancels the test)
/// or, as a backstop for a test without a limit, after `limit` of monotonic time: never after a
/// count of polls, which would be a hidden time bound that a loaded machine can exhaust. The pauses
/// only space the polls: the test waits on `condition`, never on an amount of time.
package func eventually(
    limit: Duration = .seconds(120), _ condition: @Sendable () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    var polls = 0
    while !Task.isCancelled, clock.now < deadline {
        if condition() { return true }
        polls += 1
        if polls <= 64 {
            await Task.yield()
        } else {
            // A condition that takes longer is usually waiting for I/O or another process: poll
            // every few milliseconds instead of spinning, so a dozen waiting tests on a two-core
            // machine leave the CPU to the work they wait for.
            try? await Task.sleep(for: .milliseconds(min(10, polls / 64)))
        }
    }
    return condition()
}

/// Suspends until the calling task is cancelled: for a stand-in (a transport that never answers,
/// a timeout that never fires) that only cancellation may end. No timer and no spinning: an
/// `AsyncStream` nobody yields to ends its iteration when the waiting task is cancelled.
package func suspendUntilCancelled() async {
    let (stream, continuation) = AsyncStream<Never>.makeStream()
    for await _ in stream {}
    continuation.finish()
}
