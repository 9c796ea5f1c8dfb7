/// The PubNub client: holds the configuration and the shared wiring (transport, retry, auth),
/// and gives access to the DataSync API through ``dataSync``.
///
/// Create one client per identity and keep it for the life of your app; it is safe to use from
/// any task or thread.
///
/// ```swift
/// let pubnub = PubNub(configuration: PubNubConfiguration(
///     publishKey: nil, subscribeKey: "sub-c-…", userId: "user-42", authToken: token))
/// let user = try await pubnub.dataSync.getUser(id: "user-42")
/// ```
public final class PubNub: Sendable {
    /// The SDK's name as sent in `pnsdk`.
    public static let sdkName = "PubNub-Swift-DataSync"
    /// The SDK's version as sent in `pnsdk`.
    public static let sdkVersion = "0.1.0"
    /// The `pnsdk` query value every request carries: `PubNub-Swift-DataSync/0.1.0`.
    public static var pnsdk: String { sdkName + "/" + sdkVersion }

    /// The configuration the client was created with.
    public let configuration: PubNubConfiguration
    /// The DataSync API: users, channels, memberships, entities and relationships.
    public let dataSync: PubNubDataSync
    let wiring: PubNubWiring

    /// Creates a client. Nothing is sent until you call an operation; a configuration that cannot
    /// produce requests (a malformed origin, no usable transport) makes every operation fail with
    /// `.invalidConfiguration`.
    public init(configuration: PubNubConfiguration) {
        self.configuration = configuration
        let wiring = PubNubWiring(configuration: configuration)
        self.wiring = wiring
        self.dataSync = PubNubDataSync(engine: wiring.engine)
    }
}
