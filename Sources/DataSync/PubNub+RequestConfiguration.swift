public import DataSyncModels
public import Transport

extension PubNub {
    /// Per-request overrides, passed as the `custom` argument of every DataSync method.
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
        /// Extra query parameters appended to the request, in order.
        public var queryParameters: [HTTPQueryItem]
        /// Extra headers added to the request.
        public var headers: HTTPHeaders

        /// Creates overrides; the defaults change nothing.
        public init(
            transport: (any HTTPClient)? = nil, timeout: Duration? = nil, queryParameters: [HTTPQueryItem] = [],
            headers: HTTPHeaders = HTTPHeaders()
        ) {
            self.transport = transport
            self.timeout = timeout
            self.queryParameters = queryParameters
            self.headers = headers
        }
    }

    /// One key of a list ordering; see ``PubNubDataSyncSortField``.
    public typealias DataSyncSortField = PubNubDataSyncSortField
}
