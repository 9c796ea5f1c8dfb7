public import Auth
public import Transport

/// Everything a ``PubNub`` client needs: keys, identity, where the service is, and how requests
/// travel. A value type: change a copy and create another client to use it.
///
/// ```swift
/// let configuration = PubNubConfiguration(
///     publishKey: "pub-c-…", subscribeKey: "sub-c-…", userId: "user-42", authToken: token)
/// let pubnub = PubNub(configuration: configuration)
///
/// // Against a local emulator over plain HTTP:
/// let local = PubNubConfiguration(
///     publishKey: nil, subscribeKey: "demo", userId: "tester",
///     origin: "127.0.0.1:8090", useSecureConnections: false)
/// ```
public struct PubNubConfiguration: Sendable {
    /// The publish key, needed only to publish; DataSync calls do not use it.
    public var publishKey: String?
    /// The subscribe key every DataSync path is scoped to.
    public var subscribeKey: String
    /// This client's user id, sent as `uuid` on every request.
    public var userId: String
    /// The Access Manager token to start with; change it later with ``PubNub/set(token:)``.
    public var authToken: String?
    /// The service's host, optionally with a port: `ps.pndsn.com`, `127.0.0.1:8090`, `[::1]:8090`.
    /// No scheme: choose it with ``useSecureConnections``.
    public var origin: String
    /// `https` when `true` (the default), plain `http` otherwise (for a local emulator).
    public var useSecureConnections: Bool
    /// The HTTP client requests go through, or `nil` for the platform's default backend.
    public var transport: (any HTTPClient)?
    /// Extra middlewares run for every request (outermost first), inside retry and auth handling:
    /// for example a logging middleware.
    public var middlewares: [any HTTPMiddleware]
    /// How long one request may take; `nil` leaves it to the transport's default.
    public var requestTimeout: Duration?
    /// Where completion closures run; ``PubNub/CompletionContext/immediate`` by default.
    public var completionContext: PubNub.CompletionContext
    /// Asked for a token when none is set, and once more when the service says the token expired
    /// (the failed request is then resent once); `nil` never asks.
    public var tokenProvider: (any TokenProvider)?
    /// Whether `filterFast`, `filter` and `sort` are checked with the FilterExpression module
    /// before a list request is sent (`false` by default: the service validates them).
    ///
    /// When on, a syntax error, a rule violation (a pattern on a non-string, `null` with an
    /// ordering operator, more than 10 conditions in `filterFast`), an invalid sort field, or both
    /// filters in one call fail with `.invalidFilterExpression` and nothing is sent. No class
    /// schema is known to the client, so property names are not checked against declarations.
    public var validatesFiltersLocally: Bool

    /// Creates a configuration. Every setting after `useSecureConnections` has a default.
    public init(
        publishKey: String?, subscribeKey: String, userId: String, authToken: String? = nil,
        origin: String = "ps.pndsn.com", useSecureConnections: Bool = true, transport: (any HTTPClient)? = nil,
        middlewares: [any HTTPMiddleware] = [], requestTimeout: Duration? = nil,
        completionContext: PubNub.CompletionContext = .immediate, tokenProvider: (any TokenProvider)? = nil,
        validatesFiltersLocally: Bool = false
    ) {
        self.publishKey = publishKey
        self.subscribeKey = subscribeKey
        self.userId = userId
        self.authToken = authToken
        self.origin = origin
        self.useSecureConnections = useSecureConnections
        self.transport = transport
        self.middlewares = middlewares
        self.requestTimeout = requestTimeout
        self.completionContext = completionContext
        self.tokenProvider = tokenProvider
        self.validatesFiltersLocally = validatesFiltersLocally
    }
}
