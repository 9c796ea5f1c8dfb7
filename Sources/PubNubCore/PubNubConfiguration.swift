public import Auth
public import PubNubBase
public import PubNubCrypto
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
    /// The publish key, needed only to publish, signal and fire; DataSync calls do not use it.
    public var publishKey: String?
    /// The subscribe key every request path is scoped to.
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
    /// The HTTP client requests go through, or `nil` for the platform's default backend
    /// (`PlatformHTTPClient`: libcurl on Linux, URLSession on Apple platforms).
    public var transport: (any HTTPClient)?
    /// When a failed request is resent. Only idempotent methods (GET, PUT, DELETE) are ever
    /// resent, and only after a retryable transport failure or a 429, 500, 502, 503 or 504.
    /// The default, ``defaultRetryPolicy``, waits 1 s, 2 s, 4 s (plus up to 0.5 s of jitter) for
    /// at most 3 retries; `.none` turns retries off.
    public var retryPolicy: RetryPolicy
    /// The one clock everything that waits uses: retry backoff today, and the subscribe loop's
    /// reconnection delays, presence heartbeats and token expiry as they arrive. Inject a manual
    /// clock in tests (`DataSyncTestSupport.ManualClock`) so they never sleep.
    public var clock: any Clock<Duration>
    /// Extra middlewares run for every request (outermost first), inside retry and auth handling:
    /// for example a logging middleware.
    public var middlewares: [any HTTPMiddleware]
    /// How long one attempt of a REST call (a DataSync read or write, a publish, a heartbeat) may
    /// take, connecting included: 10 s by default (``defaultRequestTimeout``), so a call sent on a
    /// connection that died silently fails in time for an interactive app (and is retried under
    /// ``retryPolicy``) instead of hanging for the transport's 60 s. `nil` leaves it to the
    /// transport's default. The subscribe long-poll keeps its own ``subscribeTimeout``, and its
    /// handshake ``handshakeTimeout``; a call's `custom.timeout` overrides this one.
    public var requestTimeout: Duration?
    /// The longest one REST call may take, all attempts and retry waits included (measured on
    /// ``clock``); `nil` for no overall bound. Default 60 s (``defaultDeadline``): a call with a
    /// 2 s timeout and the default retry then fails within the deadline, not after every attempt.
    /// The subscribe long-poll is not bound by it.
    public var deadline: Duration? = PubNubConfiguration.defaultDeadline
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

    /// Encrypts published messages and decrypts received ones when set; `nil` (the default) sends
    /// and delivers messages as they are.
    ///
    /// The Messaging module encrypts what `publish` and `fire` send (never signals) and the
    /// Realtime subscribe loop decrypts messages and file events it receives (never signals,
    /// presence or DataSync events). A received message that cannot be decrypted is delivered as it
    /// arrived, with a `decryptionError` status.
    ///
    /// ```swift
    /// var configuration = PubNubConfiguration(publishKey: "pub-c-…", subscribeKey: "sub-c-…", userId: "me")
    /// configuration.cryptoModule = try CryptoModule.aesCbcCryptoModule(cipherKey: "my-cipher-key")
    /// ```
    public var cryptoModule: CryptoModule?

    /// Receives the SDK's log records (`PubNubLogger`): HTTP requests and answers (`network`),
    /// the subscribe loop's statuses (`subscribe`), heartbeats (`presence`), decryption failures
    /// (`crypto`), gaps and incomplete events (`datasync`). `nil`, the default, logs nothing and
    /// formats nothing. Records never hold a key or a token.
    ///
    /// ```swift
    /// configuration.logger = StandardErrorLogger(minimumLevel: .debug)
    /// ```
    public var logger: (any PubNubLogger)?

    /// Receives each ``PubNubWarning`` once, when a client with this configuration is created:
    /// today that is ``PubNubWarning/Code/insecureConnection`` for plain HTTP to a host that is not
    /// this machine. By default ``PubNubWarning/standardErrorHandler`` writes one line to standard
    /// error; `nil` silences warnings.
    public var warningHandler: (@Sendable (PubNubWarning) -> Void)? = PubNubWarning.standardErrorHandler

    /// The overall deadline of a REST call when none is set: 60 seconds.
    public static let defaultDeadline: Duration = .seconds(60)
    /// The default ``requestTimeout``: 10 s for one attempt of a REST call.
    public static let defaultRequestTimeout: Duration = .seconds(10)

    // MARK: Real-time settings (read by the `Realtime` module's subscribe loop)
    //
    // Settable properties with defaults rather than initializer parameters, so the initializer
    // above stays source-compatible and REST-only apps never see them.

    /// How the subscribe loop reconnects after a network error, a timeout, a 429 or a 5xx: by
    /// default ``SubscribeReconnectionPolicy/default`` (exponential from 2 s to 150 s with up to
    /// 1 s of jitter, attempts unlimited). Separate from ``retryPolicy``, which only REST calls use.
    public var subscribeReconnectionPolicy: SubscribeReconnectionPolicy = .default
    /// Whether a reconnected subscribe loop catches up on what it missed, by resuming from the
    /// last timetoken it received (`true` by default). When `false`, a reconnect starts from now.
    public var restore: Bool = true
    /// How long the service keeps this user present on a channel without a subscribe request or a
    /// heartbeat, sent as `heartbeat`; 300 s by default, at least 20 s.
    public var presenceTimeout: Duration = .seconds(300)
    /// How often presence heartbeats are sent while subscribed; `nil` (the default) derives it from
    /// ``presenceTimeout`` as `presenceTimeout / 2 − 1 s` (149 s for 300 s), and `.zero` turns
    /// separate heartbeats off (subscribe requests still keep the user present).
    public var heartbeatInterval: Duration?
    /// When `true`, unsubscribing sends no `leave` and others see a `timeout` later instead.
    public var suppressLeaveEvents: Bool = false
    /// A message filter the service applies to subscribe answers, sent as `filter-expr`
    /// (for example `uuid != 'me'`); `nil` for none.
    public var filterExpression: String?
    /// Whether the presence state given to `subscribe(…clientState:)` is kept and sent again with
    /// every handshake and heartbeat (`true` by default).
    public var maintainPresenceState: Bool = true
    /// The number of messages in one subscribe answer at or above which a
    /// `requestMessageCountExceeded` status is reported; 0 (the default) never reports. When set,
    /// it is also taken as the size of the service's message queue for this keyset: a catch-up
    /// whose first answer holds that many raises a DataSync gap (without it, the service's default
    /// queue of 100 is assumed). See Documentation/DataSyncRealtime.md.
    public var requestMessageCountThreshold: Int = 0
    /// How long one subscribe long-poll may take before it counts as timed out: 310 s by default,
    /// longer than the service's hold of about 280 s.
    public var subscribeTimeout: Duration = .seconds(310)
    /// How long a subscribe handshake (`tt=0`) may take: 10 s by default. The service answers a
    /// handshake at once, so it needs none of the long-poll's ``subscribeTimeout``: a handshake
    /// sent just before an outage ends is given up and retried in seconds, not minutes.
    public var handshakeTimeout: Duration = .seconds(10)

    /// How often the subscribe loop asks the origin for its time (`/time/0`, with this as its
    /// timeout too) while it waits to reconnect after it lost the connection: 2 s by default, `nil`
    /// for never.
    ///
    /// Any answer ends the wait at once (with up to 250 ms of jitter), so once the network heals
    /// the loop is back within about one interval plus a round trip, however long the
    /// ``subscribeReconnectionPolicy`` made the wait. Probes are sent only during waits longer than
    /// the interval that follow a failure to connect, a lost connection or a timeout, never after an
    /// error answer (a 5xx or a 429 keeps its full delay), and they stop when the loop reconnects,
    /// is stopped or the client is released. See "Recovering after an outage" in
    /// Documentation/Realtime.md.
    public var reconnectionProbeInterval: Duration? = .seconds(2)

    /// What tells the subscribe loop that the device's network path changed: on Apple platforms a
    /// `SystemNetworkPathMonitor` by default, elsewhere `nil`.
    ///
    /// When the path is lost, a held long-poll is given up at once (the status stream says
    /// `unexpectedDisconnect` rather than staying "connected" until the subscribe timeout); when
    /// it comes back or the interfaces change, the loop reconnects from its cursor within a short
    /// jitter instead of waiting out its backoff. Set `nil` to rely on timeouts, keep-alive and
    /// ``reconnectionProbeInterval`` only. See "Recovering after an outage" in
    /// Documentation/Realtime.md.
    public var networkPathMonitor: (any NetworkPathMonitor)? = PubNubConfiguration.defaultNetworkPathMonitor()

    /// A new `SystemNetworkPathMonitor` where the Network framework exists, otherwise `nil`.
    public static func defaultNetworkPathMonitor() -> (any NetworkPathMonitor)? {
        #if canImport(Network)
            return SystemNetworkPathMonitor()
        #else
            return nil
        #endif
    }

    /// The heartbeat interval in force: ``heartbeatInterval`` or the one derived from
    /// ``presenceTimeout``; `.zero` when heartbeats are off.
    public var effectiveHeartbeatInterval: Duration {
        if let heartbeatInterval { return max(.zero, heartbeatInterval) }
        return max(.seconds(1), effectivePresenceTimeout / 2 - .seconds(1))
    }

    /// ``presenceTimeout`` raised to the service's minimum of 20 s.
    public var effectivePresenceTimeout: Duration { max(.seconds(20), presenceTimeout) }

    /// The retry policy used when none is given: exponential from 1 s, at most 3 retries.
    public static let defaultRetryPolicy = RetryPolicy.exponential(
        minimumDelay: .seconds(1), maximumDelay: .seconds(32), maximumRetries: 3, maximumJitter: .milliseconds(500))

    /// Creates a configuration. Every setting after `useSecureConnections` has a default.
    public init(
        publishKey: String?, subscribeKey: String, userId: String, authToken: String? = nil,
        origin: String = "ps.pndsn.com", useSecureConnections: Bool = true, transport: (any HTTPClient)? = nil,
        retryPolicy: RetryPolicy = PubNubConfiguration.defaultRetryPolicy,
        clock: any Clock<Duration> = ContinuousClock(),
        middlewares: [any HTTPMiddleware] = [], requestTimeout: Duration? = PubNubConfiguration.defaultRequestTimeout,
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
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.middlewares = middlewares
        self.requestTimeout = requestTimeout
        self.completionContext = completionContext
        self.tokenProvider = tokenProvider
        self.validatesFiltersLocally = validatesFiltersLocally
    }

    /// The origin parsed and checked, or the reason it cannot be used.
    ///
    /// - Throws: `PubNubError` with reason `.invalidConfiguration` for a malformed
    ///   ``origin``.
    public func parsedOrigin() throws(PubNubError) -> PubNubOrigin {
        try PubNubOrigin(origin, secure: useSecureConnections)
    }

    /// Checks what can be checked before anything is sent: the origin parses, and the subscribe
    /// key and user id are not empty.
    ///
    /// ``PubNub/init(validating:)`` calls it; call it yourself to report a bad setting where the
    /// configuration is assembled (from a file, from the environment).
    ///
    /// - Throws: `PubNubError` with reason `.invalidConfiguration` naming the first bad setting.
    public func validate() throws(PubNubError) {
        _ = try parsedOrigin()
        if subscribeKey.isEmpty {
            throw PubNubError(reason: .invalidConfiguration, message: "the subscribe key is empty")
        }
        if userId.isEmpty {
            throw PubNubError(reason: .invalidConfiguration, message: "the user id is empty")
        }
    }
}
