/// A failure to exchange a request and its response.
///
/// ``code-swift.property`` can grow: match the codes you handle and keep a default branch.
/// ``isRetryable`` says whether resending the same request could succeed.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The request or the whole exchange took longer than its timeout.
        public static let timedOut = Code(rawValue: "timedOut")
        /// No connection could be made (refused, unreachable).
        public static let cannotConnect = Code(rawValue: "cannotConnect")
        /// The host name could not be resolved.
        public static let cannotResolveHost = Code(rawValue: "cannotResolveHost")
        /// The connection closed before the response was complete.
        public static let connectionLost = Code(rawValue: "connectionLost")
        /// The calling task was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// TLS negotiation or certificate verification failed.
        public static let tls = Code(rawValue: "tls")
        /// The server's answer was not valid HTTP, or could not be decoded.
        public static let invalidResponse = Code(rawValue: "invalidResponse")
        /// The response exceeded the client's size limit.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// The request could not be built (bad URL, unsupported scheme, …).
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// The backend could not be used at all (for example libcurl could not be loaded).
        public static let unavailable = Code(rawValue: "unavailable")
        /// Anything else.
        public static let other = Code(rawValue: "other")
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence for people.
    public let message: String
    /// Whether sending the same request again could succeed.
    public let isRetryable: Bool

    /// Creates an error; `isRetryable` defaults to what the code implies.
    public init(code: Code, message: String, isRetryable: Bool? = nil) {
        self.code = code
        self.message = message
        self.isRetryable = isRetryable ?? Self.defaultRetryable(code)
    }

    /// The codes retryable by default: timeouts, connection failures, lost connections and host
    /// resolution (which is often transient on mobile networks).
    public static func defaultRetryable(_ code: Code) -> Bool {
        switch code {
        case .timedOut, .cannotConnect, .connectionLost, .cannotResolveHost: return true
        default: return false
        }
    }

    /// The code and message.
    public var description: String { "transport error (\(code)): \(message)" }
}
