import Auth
import BuildInfo
public import PubNubBase
import Transport

/// The PubNub client: one identity's configuration, its request pipeline and the background work
/// it owns.
///
/// The features extend it: `import DataSync` adds `pubnub.dataSync` (users, channels, memberships,
/// entities, relationships); the real-time features add subscribing and publishing the same way.
/// Create one client per identity and keep it for the life of your app; it is safe to use from any
/// task or thread.
///
/// ```swift
/// let pubnub = try PubNub(validating: PubNubConfiguration(
///     publishKey: nil, subscribeKey: "sub-c-…", userId: "user-42", authToken: token))
/// let user = try await pubnub.dataSync.getUser(id: "user-42")
/// ```
///
/// Releasing the last reference stops everything the client runs in the background (such as a
/// subscribe loop); requests already in flight finish or fail on their own.
public final class PubNub: Sendable {
    /// The SDK's name as sent in `pnsdk`.
    public static let sdkName = "PubNub-Swift-DataSync"
    /// The SDK's version as sent in `pnsdk`.
    public static let sdkVersion = PackageVersion.current
    /// The `pnsdk` query value every request carries: `PubNub-Swift-DataSync/0.1.0`.
    public static var pnsdk: String { sdkName + "/" + sdkVersion }

    /// The configuration the client was created with.
    public let configuration: PubNubConfiguration
    /// What every feature sends through: origin, identity stamping, auth, middlewares, retry,
    /// error mapping.
    package let pipeline: ServicePipeline
    /// The long-lived parts features attach to this client (a subscribe loop, …), shut down
    /// with it.
    package let components: PubNubComponents
    private let tokenStore: TokenStore

    /// The transport's `HTTPClient/taskExecutor`: the executor of the libcurl backend's transfer
    /// thread, `nil` for a transport without one. What a task that prefers it gains, and what it
    /// must never do there, is on `CurlHTTPClient.taskExecutor`.
    ///
    /// ```swift
    /// let ids = ["user-1", "user-2", "user-3"]
    /// let users = try await withTaskExecutorPreference(pubnub.taskExecutor) {
    ///     var users: [PubNubDataSyncUser] = []
    ///     for id in ids { users.append(try await pubnub.dataSync.getUser(id: id)) }
    ///     return users
    /// }
    /// ```
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    public var taskExecutor: (any TaskExecutor)? {
        guard case .success(let transport) = pipeline.transport else { return nil }
        return transport.taskExecutor
    }

    /// Creates a client without checking the configuration first.
    ///
    /// Nothing is sent until you call an operation. A configuration that cannot produce requests
    /// (a malformed origin, no usable transport) makes every operation fail with
    /// `.invalidConfiguration`; use ``init(validating:)`` to hear about it here instead.
    public convenience init(configuration: PubNubConfiguration) {
        let origin = Result { () throws(PubNubError) in try configuration.parsedOrigin() }
        self.init(configuration: configuration, origin: origin)
    }

    /// Creates a client after checking the configuration with
    /// ``PubNubConfiguration/validate()`` and making its transport.
    ///
    /// - Throws: `PubNubError` with reason `.invalidConfiguration` for a malformed origin, an
    ///   empty subscribe key or user id, or when no HTTP transport can be created.
    public convenience init(validating configuration: PubNubConfiguration) throws(PubNubError) {
        try configuration.validate()
        let origin = Result { () throws(PubNubError) in try configuration.parsedOrigin() }
        self.init(configuration: configuration, origin: origin)
        _ = try pipeline.transport.get()
    }

    private init(configuration: PubNubConfiguration, origin: Result<PubNubOrigin, PubNubError>) {
        self.configuration = configuration
        let tokenStore = TokenStore(token: configuration.authToken)
        self.tokenStore = tokenStore
        pipeline = ServicePipeline(configuration: configuration, origin: origin, tokenStore: tokenStore)
        components = PubNubComponents()
        if case .success(let parsed) = origin {
            for warning in PubNubWarning.warnings(for: parsed) {
                configuration.warningHandler?(warning)
                configuration.logger?.log(.warning, .network, warning.description)
            }
        }
    }

    deinit {
        components.shutDownAll()
    }

    /// Replaces the Access Manager token; every later request carries the new one, and a subscribe
    /// loop stopped by an access denial resumes with it.
    ///
    /// Safe to call from any thread, at any time, including while requests are in flight.
    ///
    /// ```swift
    /// pubnub.set(token: tokenFromYourServer)
    /// ```
    public func set(token: String) {
        tokenStore.set(token: token)
        components.notifyTokenChanged()
    }
}
