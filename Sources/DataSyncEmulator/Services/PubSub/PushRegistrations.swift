import JSONCore

/// One device as the push service knows it: the gateway (`type`), the device token, and for
/// APNs2 (token authentication) the app's topic and the APNs environment. The same token
/// registered for two topics, or for development and production, is two registrations, as on
/// the service.
struct PushDevice: Hashable, Sendable, Comparable {
    /// `apns`, `gcm`, `fcm` or `mpns` (the `/v1/push` routes), or `apns2` (`/v2/push`).
    var type: String
    var token: String
    /// The bundle id; APNs2 only.
    var topic: String?
    /// `development` or `production`; APNs2 only.
    var environment: String?

    static func < (lhs: PushDevice, rhs: PushDevice) -> Bool {
        (lhs.type, lhs.token, lhs.topic ?? "", lhs.environment ?? "")
            < (rhs.type, rhs.token, rhs.topic ?? "", rhs.environment ?? "")
    }

    /// The device as the admin route and the console show it.
    func json(channels: [String]) -> JSONValue {
        var fields: [String: JSONValue] = [
            "type": .string(type), "token": .string(token), "channels": .array(channels.map(JSONValue.string)),
        ]
        if let topic { fields["topic"] = .string(topic) }
        if let environment { fields["environment"] = .string(environment) }
        return .object(fields)
    }
}

/// A keyset's push registrations: device → the channels whose publishes it would be notified
/// of. A value type kept in the bus's keyset state (and so in its state file); no notification
/// is ever sent from it.
struct PushRegistrations: Sendable {
    /// Channels of each device, sorted, never empty (a device without channels is not kept).
    private(set) var devices: [PushDevice: [String]] = [:]

    var isEmpty: Bool { devices.isEmpty }
    var count: Int { devices.count }

    /// The channels `device` is registered on, sorted; empty for an unknown device.
    func channels(of device: PushDevice) -> [String] { devices[device] ?? [] }

    /// The channels `device` would have after adding `added` and then removing `removed`.
    func channels(of device: PushDevice, adding added: [String], removing removed: [String]) -> [String] {
        var channels = Set(devices[device] ?? [])
        channels.formUnion(added)
        channels.subtract(removed)
        return channels.sorted()
    }

    /// Sets the channels of `device`; an empty list forgets the device.
    mutating func set(_ device: PushDevice, channels: [String]) {
        devices[device] = channels.isEmpty ? nil : channels.sorted()
    }
}
