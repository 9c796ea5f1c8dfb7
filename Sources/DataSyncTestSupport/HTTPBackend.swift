public import Transport

/// The HTTP backends this package ships, for tests that must pass on each of them:
/// `@Test(arguments: HTTPBackend.allCases)`.
///
/// The backends differ where apps notice (connection reuse, how a reset or a timeout surfaces), so
/// an integration test that runs on one only proves half of what users get.
public enum HTTPBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// ``CurlHTTPClient``: libcurl, loaded at run time.
    case curl
    /// ``URLSessionHTTPClient``: Foundation's `URLSession`.
    case urlSession

    /// `curl` or `urlSession`, as test arguments are shown.
    public var description: String { rawValue }

    /// A new client of this backend.
    ///
    /// - Throws: ``TransportError`` when the backend cannot start (libcurl missing, or a
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

/// Polls `condition` until it holds, yielding between polls, and returns whether it held.
///
/// It gives up when the calling task is cancelled (a Swift Testing `.timeLimit` cancels the test)
/// or, as a backstop for a test without a limit, after `limit` of monotonic time: never after a
/// count of polls, which would be a hidden time bound that a loaded machine can exhaust. Reading
/// the clock here never makes a test wait on it: the test waits on `condition`.
package func eventually(
    limit: Duration = .seconds(120), _ condition: @Sendable () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    while !Task.isCancelled, clock.now < deadline {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}
