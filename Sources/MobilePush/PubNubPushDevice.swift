/// The push gateway a device token belongs to, as the push service names it (`type=` on the
/// `/v1/push` routes; `apns2` selects the `/v2/push` routes).
///
/// A `RawRepresentable` struct rather than a closed enum, so a gateway the service adds later can
/// be named without a new SDK release.
public struct PubNubPushType: RawRepresentable, Sendable, Hashable {
    /// The wire name: `fcm`, `gcm`, `apns`, `apns2`, `mpns`.
    public let rawValue: String
    /// Creates a gateway from its wire name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Firebase Cloud Messaging.
    public static let fcm = PubNubPushType(rawValue: "fcm")
    /// Google Cloud Messaging, FCM's predecessor; the service keeps its registrations apart from
    /// `fcm` ones.
    public static let gcm = PubNubPushType(rawValue: "gcm")
    /// APNs with certificate authentication (the older gateway; prefer ``apns2``).
    public static let apns = PubNubPushType(rawValue: "apns")
    /// APNs with token authentication: registrations are per app topic and APNs environment.
    public static let apns2 = PubNubPushType(rawValue: "apns2")
    /// Microsoft Push Notification Service.
    public static let mpns = PubNubPushType(rawValue: "mpns")
}

/// The APNs servers an APNs2 registration targets: the sandbox for debug builds, production for
/// App Store and TestFlight builds. Same wire values as the environment of Messaging's
/// `PubNubPushPayload.apns2(topic:environment:)`, which must match the registration for the
/// service to deliver.
public struct PubNubPushEnvironment: RawRepresentable, Sendable, Hashable {
    /// The wire name: `development` or `production`.
    public let rawValue: String
    /// Creates an environment from its wire name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `development`: the APNs sandbox.
    public static let development = PubNubPushEnvironment(rawValue: "development")
    /// `production`: the APNs production servers.
    public static let production = PubNubPushEnvironment(rawValue: "production")
}

/// One device registration as the push service keys it: a token on a gateway and, for APNs2,
/// the app's topic (bundle id) and the APNs environment. The same token under another gateway,
/// topic or environment is a different registration with its own channels.
///
/// ```swift
/// let android = PubNubPushDevice.fcm(token: registrationToken)
/// let iPhone = PubNubPushDevice.apns2(
///     deviceToken: tokenData, topic: "com.example.chat", environment: .production)
/// try await pubnub.addPushChannels(["room-1"], for: iPhone)
/// ```
public struct PubNubPushDevice: Sendable, Hashable {
    /// The device token (APNs tokens as lowercase hexadecimal).
    public var token: String
    /// The gateway.
    public var pushType: PubNubPushType
    /// The app's bundle id; required for ``PubNubPushType/apns2``, ignored otherwise.
    public var topic: String?
    /// The APNs environment for ``PubNubPushType/apns2`` (`nil` means development); ignored
    /// otherwise.
    public var environment: PubNubPushEnvironment?

    /// Creates a registration key. The calls check it before sending: an empty token, or
    /// ``PubNubPushType/apns2`` without a topic, fails with `.missingRequiredParameter`.
    public init(
        token: String, pushType: PubNubPushType, topic: String? = nil, environment: PubNubPushEnvironment? = nil
    ) {
        self.token = token
        self.pushType = pushType
        self.topic = topic
        self.environment = environment
    }

    /// A Firebase Cloud Messaging registration token.
    public static func fcm(token: String) -> PubNubPushDevice {
        PubNubPushDevice(token: token, pushType: .fcm)
    }

    /// An APNs2 (token authentication) registration of a token already written as hexadecimal.
    public static func apns2(
        token: String, topic: String, environment: PubNubPushEnvironment = .development
    ) -> PubNubPushDevice {
        PubNubPushDevice(token: token, pushType: .apns2, topic: topic, environment: environment)
    }

    /// An APNs2 registration of the token bytes iOS hands to
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)` (a `Data` fits), written
    /// as lowercase hexadecimal as the service expects.
    public static func apns2(
        deviceToken: some Sequence<UInt8>, topic: String, environment: PubNubPushEnvironment = .development
    ) -> PubNubPushDevice {
        apns2(token: hexadecimal(deviceToken), topic: topic, environment: environment)
    }

    /// Lowercase hexadecimal, two digits per byte.
    static func hexadecimal(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
