import PubNubBase
public import PubNubCore
public import PubNubCrypto

extension PubNub {
    /// Settings of the publish family that `PubNubConfiguration` does not hold: the size limits
    /// checked before sending, and a crypto module that overrides `PubNubConfiguration.cryptoModule`
    /// for publishing only.
    ///
    /// Set it once, right after creating the client, with `PubNub/set(messagingConfiguration:)`;
    /// every later publish, fire and signal reads it when it is called. Encryption belongs in
    /// `PubNubConfiguration.cryptoModule`, which the subscribe loop reads too.
    ///
    /// ```swift
    /// var configuration = PubNubConfiguration(publishKey: "pub-c-…", subscribeKey: "sub-c-…", userId: "me")
    /// configuration.cryptoModule = try CryptoModule.aesCbcCryptoModule(cipherKey: "secret")
    /// let pubnub = PubNub(configuration: configuration)
    /// pubnub.set(messagingConfiguration: PubNub.MessagingConfiguration(messageSizeLimit: 65_536))
    /// ```
    public struct MessagingConfiguration: Sendable {
        /// Encrypts every published and fired message when set (the wire then carries the base64
        /// ciphertext as a JSON string), in place of `PubNubConfiguration.cryptoModule`. `nil` (the
        /// default) uses the configuration's module, or sends messages as they are when that is
        /// `nil` too. Signals are never encrypted. Received messages are decrypted with the
        /// configuration's module only, so prefer setting that one.
        public var cryptoModule: CryptoModule?
        /// The largest publish or fire, in bytes, counting the channel name and the message as it
        /// travels (percent-encoded in a GET path, the body of a POST, gzip-compressed when
        /// compressed). Larger messages fail with `.messageTooLarge` before anything is sent.
        /// Default 32 768 (32 KiB), the service's default; raise it only if PubNub raised your
        /// keyset's limit.
        public var messageSizeLimit: Int
        /// The largest signal payload, in bytes of its JSON text. Larger signals fail with
        /// `.signalTooLarge` before anything is sent. Default 64, the service's default.
        public var signalSizeLimit: Int

        /// The service's default publish limit: 32 KiB.
        public static let defaultMessageSizeLimit = 32_768
        /// The service's default signal limit: 64 bytes.
        public static let defaultSignalSizeLimit = 64

        /// Creates settings; the defaults leave encryption to `PubNubConfiguration.cryptoModule` and
        /// check the service's default limits.
        public init(
            cryptoModule: CryptoModule? = nil, messageSizeLimit: Int = MessagingConfiguration.defaultMessageSizeLimit,
            signalSizeLimit: Int = MessagingConfiguration.defaultSignalSizeLimit
        ) {
            self.cryptoModule = cryptoModule
            self.messageSizeLimit = messageSizeLimit
            self.signalSizeLimit = signalSizeLimit
        }
    }

    /// The publish-family settings in effect; ``MessagingConfiguration/init(cryptoModule:messageSizeLimit:signalSizeLimit:)``
    /// defaults until ``set(messagingConfiguration:)`` is called.
    public var messagingConfiguration: MessagingConfiguration {
        messagingSettings.value
    }

    /// Replaces the publish-family settings. Safe from any thread; calls already started keep the
    /// settings they read when they began.
    public func set(messagingConfiguration: MessagingConfiguration) {
        messagingSettings.set(messagingConfiguration)
    }

    private var messagingSettings: MessagingSettings {
        components.component { MessagingSettings() }
    }
}

/// Where a client keeps its `PubNub/MessagingConfiguration`: a component, because a feature
/// module cannot add stored properties to the client.
final class MessagingSettings: PubNubComponent {
    private let state = Locked(PubNub.MessagingConfiguration())

    var value: PubNub.MessagingConfiguration { state.withLock { $0 } }

    func set(_ configuration: PubNub.MessagingConfiguration) {
        state.withLock { $0 = configuration }
    }

    func shutDown() {}
}
