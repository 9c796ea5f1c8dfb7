/// A failure to exchange a request and its response.
///
/// ``code-swift.property`` can grow: match the codes you handle and keep a default branch.
/// ``isRetryable`` says whether resending the same request could succeed. ``underlying`` keeps the
/// backend's own error (a `URLError`, a ``LibcurlError``) when there is one.
///
/// Two transport errors are equal when code, message and retryability agree; ``underlying`` is
/// not compared.
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
    /// The backend's error this one was made from (`URLError` from URLSession, ``LibcurlError``
    /// from libcurl), when there was one.
    public let underlying: (any Error)?

    /// Creates an error; `isRetryable` defaults to what the code implies.
    public init(code: Code, message: String, isRetryable: Bool? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.isRetryable = isRetryable ?? Self.defaultRetryable(code)
        self.underlying = underlying
    }

    /// Compares code, message and retryability.
    public static func == (lhs: TransportError, rhs: TransportError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.isRetryable == rhs.isRetryable
    }

    /// Hashes code, message and retryability.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(isRetryable)
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

/// A libcurl result code (`CURLcode`) and libcurl's text for it: the ``TransportError/underlying``
/// error of a failed transfer on ``CurlHTTPClient``.
public struct LibcurlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `CURLcode` value, such as 7 (`CURLE_COULDNT_CONNECT`) or 28 (`CURLE_OPERATION_TIMEDOUT`).
    public let code: Int
    /// libcurl's description of the code (`curl_easy_strerror`).
    public let reason: String

    /// Wraps a libcurl result; ``CurlHTTPClient`` makes these, and tests make them to check how a
    /// code is reported.
    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `libcurl error 7: Couldn't connect to server`.
    public var description: String { "libcurl error \(code): \(reason)" }
}
