public import Transport

extension PubNub {
    /// Per-request overrides, passed as the `custom` argument of every REST method (DataSync now,
    /// publish and presence calls later).
    ///
    /// ```swift
    /// let slow = PubNub.RequestConfiguration(timeout: .seconds(60))
    /// let user = try await pubnub.dataSync.getUser(id: "u1", custom: slow)
    /// ```
    public struct RequestConfiguration: Sendable {
        /// Sends this request through another HTTP client (the configured middlewares, auth and
        /// retry still apply); `nil` uses the client's transport.
        public var transport: (any HTTPClient)?
        /// How long this request may take; `nil` uses the configuration's `requestTimeout`.
        public var timeout: Duration?
        /// When this request is resent; `nil` uses the configuration's `retryPolicy`.
        public var retryPolicy: RetryPolicy?
        /// The longest this call may take, attempts and retry waits included; `nil` uses the
        /// configuration's `deadline`.
        public var deadline: Duration?
        /// Extra query parameters appended to the request, in order.
        public var queryParameters: [HTTPQueryItem]
        /// Extra headers added to the request.
        public var headers: HTTPHeaders

        /// Creates overrides; the defaults change nothing.
        ///
        /// - Parameters:
        ///   - transport: Another HTTP client for this request (middlewares, auth and retry still
        ///     apply); `nil` uses the client's.
        ///   - timeout: How long one attempt may take; `nil` uses the configuration's `requestTimeout`.
        ///   - retryPolicy: When this request is resent, `.none` for never; `nil` uses the
        ///     configuration's.
        ///   - queryParameters: Query items appended after the operation's own, in order; empty adds
        ///     none.
        ///   - headers: Headers added to the request; empty adds none.
        ///   - deadline: The longest the whole call may take, attempts and waits included; `nil` uses
        ///     the configuration's `deadline`.
        public init(
            transport: (any HTTPClient)? = nil, timeout: Duration? = nil, retryPolicy: RetryPolicy? = nil,
            queryParameters: [HTTPQueryItem] = [],
            headers: HTTPHeaders = HTTPHeaders(), deadline: Duration? = nil
        ) {
            self.deadline = deadline
            self.transport = transport
            self.timeout = timeout
            self.retryPolicy = retryPolicy
            self.queryParameters = queryParameters
            self.headers = headers
        }
    }
}
