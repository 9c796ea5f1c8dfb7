public import JSONCore

/// The mobile push sections of a published message: `pn_apns` (Apple, with its `aps`
/// dictionary and `pn_push` targets) and `pn_fcm` (Firebase Cloud Messaging), built step by step
/// and merged into the message by `publish(…, payloads:)` or the builders' `payloads(_:)`.
///
/// A value type: every method returns a changed copy.
///
/// ```swift
/// let push = PubNubPushPayload()
///     .apns(title: "Order shipped", body: "Arrives Tuesday", badge: 1, sound: "default")
///     .apns2(topic: "com.example.shop", environment: .production)
///     .fcm(title: "Order shipped", body: "Arrives Tuesday", data: ["orderId": "o-17"])
/// let timetoken = try await pubnub.publish(
///     channel: "orders.o-17", message: ["text": "shipped"], payloads: push)
/// ```
///
/// Merging: when the message is a JSON object, the push sections are added to it as top-level
/// keys (replacing keys of the same name); any other message (a string, a number, an array) is
/// kept under `pn_other` beside them, so subscribers still receive it.
public struct PubNubPushPayload: Sendable, Hashable {
    /// Where an APNs push goes: Apple's sandbox or production servers.
    public struct APNSEnvironment: RawRepresentable, Sendable, Hashable {
        /// The value sent as the target's `environment`.
        public let rawValue: String
        /// Creates an environment from its wire name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `development`: the APNs sandbox, for debug builds.
        public static let development = APNSEnvironment(rawValue: "development")
        /// `production`: the APNs production servers.
        public static let production = APNSEnvironment(rawValue: "production")
    }

    /// `pn_apns` as built so far, or `nil` when no APNs part was added.
    public private(set) var apns: [String: JSONValue]?
    /// `pn_fcm` as built so far, or `nil` when no FCM part was added.
    public private(set) var fcm: [String: JSONValue]?

    /// An empty payload: no push sections.
    public init() {}

    /// Adds or replaces the APNs `aps` dictionary.
    ///
    /// - Parameters:
    ///   - title: `aps.alert.title`.
    ///   - body: `aps.alert.body`.
    ///   - badge: `aps.badge`.
    ///   - sound: `aps.sound` (`"default"` for the system sound).
    ///   - contentAvailable: `aps.content-available = 1` for a background update.
    ///   - extra: Further `aps` keys (`category`, `thread-id`, `mutable-content`, …), written as given.
    public func apns(
        title: String? = nil, body: String? = nil, badge: Int? = nil, sound: String? = nil,
        contentAvailable: Bool = false, extra: [String: JSONValue] = [:]
    ) -> PubNubPushPayload {
        var aps = extra
        var alert: [String: JSONValue] = [:]
        if let title { alert["title"] = .string(title) }
        if let body { alert["body"] = .string(body) }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if let badge { aps["badge"] = .int(Int64(badge)) }
        if let sound { aps["sound"] = .string(sound) }
        if contentAvailable { aps["content-available"] = 1 }
        var copy = self
        copy.apns = (apns ?? [:]).merging(["aps": .object(aps)]) { _, new in new }
        return copy
    }

    /// Adds an APNs2 (token authentication) target to `pn_apns.pn_push`: the app's bundle id and
    /// the APNs environment the devices were registered with. Call it once per topic.
    public func apns2(topic: String, environment: APNSEnvironment = .development) -> PubNubPushPayload {
        let target: JSONValue = [
            "push_type": "apns2", "auth_method": "token", "version": "v2",
            "targets": [["environment": .string(environment.rawValue), "topic": .string(topic)]],
        ]
        var section = apns ?? [:]
        section["pn_push"] = .array((section["pn_push"]?.arrayValue ?? []) + [target])
        var copy = self
        copy.apns = section
        return copy
    }

    /// Adds custom keys to `pn_apns`, beside `aps`: the data your app reads from the notification.
    public func apnsData(_ data: [String: JSONValue]) -> PubNubPushPayload {
        var copy = self
        copy.apns = (apns ?? [:]).merging(data) { _, new in new }
        return copy
    }

    /// Adds or replaces the FCM notification and data.
    ///
    /// - Parameters:
    ///   - title: `pn_fcm.notification.title`.
    ///   - body: `pn_fcm.notification.body`.
    ///   - data: `pn_fcm.data`: string values your app reads (FCM requires strings there).
    ///   - extra: Further `pn_fcm` keys (`android`, `pn_exceptions`, …), written as given.
    public func fcm(
        title: String? = nil, body: String? = nil, data: [String: String] = [:], extra: [String: JSONValue] = [:]
    ) -> PubNubPushPayload {
        var section = extra
        var notification: [String: JSONValue] = [:]
        if let title { notification["title"] = .string(title) }
        if let body { notification["body"] = .string(body) }
        if !notification.isEmpty { section["notification"] = .object(notification) }
        if !data.isEmpty { section["data"] = .object(data.mapValues { .string($0) }) }
        var copy = self
        copy.fcm = (fcm ?? [:]).merging(section) { _, new in new }
        return copy
    }

    /// Whether no push section was added.
    public var isEmpty: Bool { apns == nil && fcm == nil }

    /// The push sections as one JSON object: `{"pn_apns": …, "pn_fcm": …}` (absent parts left out).
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        if let apns { object["pn_apns"] = .object(apns) }
        if let fcm { object["pn_fcm"] = .object(fcm) }
        return .object(object)
    }

    /// `message` with the push sections merged in (see the type's discussion); the push sections
    /// alone when `message` is `nil`.
    public func merged(into message: JSONValue?) -> JSONValue {
        guard case .object(var sections) = jsonValue else { return message ?? .null }
        switch message {
        case nil:
            return .object(sections)
        case .object(let fields)?:
            return .object(fields.merging(sections) { _, push in push })
        case let other?:
            sections["pn_other"] = other
            return .object(sections)
        }
    }
}
