/// Creates the recommended ``HTTPClient`` for the platform the program runs on.
///
/// - Linux: ``CurlHTTPClient`` (libcurl loaded at run time), falling back to
///   ``URLSessionHTTPClient`` when libcurl cannot be loaded.
/// - Apple platforms: ``URLSessionHTTPClient``, or ``CurlHTTPClient`` when the configuration names
///   a custom certificate authority (which only the libcurl backend supports).
///
/// ```swift
/// let client = try PlatformHTTPClient.make()
/// let response = try await client.send(HTTPRequest(host: "ps.pndsn.com", path: "/time/0"))
/// ```
public enum PlatformHTTPClient {
    /// The backends ``make(configuration:)`` chooses between.
    public enum Backend: Sendable, Hashable, CustomStringConvertible {
        /// ``CurlHTTPClient``.
        case curl
        /// ``URLSessionHTTPClient``.
        case urlSession

        /// `curl` or `URLSession`.
        public var description: String {
            switch self {
            case .curl: return "curl"
            case .urlSession: return "URLSession"
            }
        }
    }

    /// The backend preferred on this platform, before any fallback.
    public static var preferredBackend: Backend {
        #if canImport(Darwin)
            return .urlSession
        #else
            return .curl
        #endif
    }

    /// Creates the platform's default client.
    ///
    /// - Throws: ``TransportError`` with code ``TransportError/Code-swift.struct/unavailable`` when
    ///   no backend can serve `configuration`.
    public static func make(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws
        -> any HTTPClient
    {
        try makeWithBackend(configuration: configuration).client
    }

    /// Creates the platform's default client and says which backend it is.
    public static func makeWithBackend(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws
        -> (client: any HTTPClient, backend: Backend)
    {
        let needsCurl = configuration.certificateAuthorityFile != nil
        if preferredBackend == .curl || needsCurl {
            do {
                return (try CurlHTTPClient(configuration: configuration), .curl)
            } catch let error as TransportError where needsCurl {
                throw error
            } catch {
                // libcurl is missing: URLSession still works, only slower on Linux.
            }
        }
        return (try URLSessionHTTPClient(configuration: configuration), .urlSession)
    }
}
