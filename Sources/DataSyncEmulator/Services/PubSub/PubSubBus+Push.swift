import JSONCore

// Mobile push registrations on the bus's actor: they live in the keyset's state beside its
// channel groups, so a keyset reset drops them and the state file (PubSubJournal) keeps them.
extension PubSubBus {
    enum PushFailure: Error, Sendable, Equatable {
        /// The device would be registered on more channels than a registration holds.
        case tooManyChannels(limit: Int)
        /// The keyset already holds as many registrations as it may.
        case tooManyDevices(limit: Int)
        /// The state file could not record the change (nothing changed).
        case notSaved
    }

    /// Adds `added` to and then removes `removed` from `device`'s channels, all or nothing.
    func changePushChannels(
        subscribeKey: String, device: PushDevice, adding added: [String], removing removed: [String],
        channelLimit: Int
    ) -> PushFailure? {
        let current = readKeyset(subscribeKey)?.push ?? PushRegistrations()
        let channels = current.channels(of: device, adding: added, removing: removed)
        if channels == current.channels(of: device) { return nil }
        if channels.count > channelLimit { return .tooManyChannels(limit: channelLimit) }
        let limit = configuration.maximumPushRegistrations
        if current.channels(of: device).isEmpty, !channels.isEmpty, current.count >= limit {
            return .tooManyDevices(limit: limit)
        }
        guard savePush(subscribeKey, device: device, channels: channels) else { return .notSaved }
        mutateKeyset(subscribeKey) { $0.push.set(device, channels: channels) }
        return nil
    }

    /// Forgets `device` and all its channels.
    func removePushDevice(subscribeKey: String, device: PushDevice) -> PushFailure? {
        guard readKeyset(subscribeKey)?.push.channels(of: device).isEmpty == false else { return nil }
        guard savePush(subscribeKey, device: device, channels: []) else { return .notSaved }
        mutateKeyset(subscribeKey) { $0.push.set(device, channels: []) }
        return nil
    }

    /// The channels `device` is registered on, sorted.
    func pushChannels(subscribeKey: String, device: PushDevice) -> [String] {
        readKeyset(subscribeKey)?.push.channels(of: device) ?? []
    }

    /// Every keyset's registrations for the admin export (only `subscribeKeys` when given), each
    /// as the admin route shows a device; keysets without registrations are left out.
    func pushExport(_ subscribeKeys: [String]?) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for key in subscribeKeys ?? keysetKeys().sorted() {
            guard let push = readKeyset(key)?.push, !push.isEmpty else { continue }
            result[key] = .array(push.devices.keys.sorted().map { $0.json(channels: push.channels(of: $0)) })
        }
        return result
    }

    /// Replaces `subscribeKey`'s registrations with `registrations` (an admin import, after the
    /// keyset was reset); each is saved to the state file as a route's change would be.
    func importPush(subscribeKey: String, _ registrations: [(PushDevice, [String])]) -> PushFailure? {
        let limit = configuration.maximumPushRegistrations
        if registrations.count > limit { return .tooManyDevices(limit: limit) }
        for (device, channels) in registrations {
            guard savePush(subscribeKey, device: device, channels: channels) else { return .notSaved }
            mutateKeyset(subscribeKey) { $0.push.set(device, channels: channels) }
        }
        return nil
    }

    /// The admin view of a keyset's registrations (`GET /_emulator/v1/keysets/{sub}/push`):
    /// every device, sorted by type, token, topic and environment, with its channels.
    func pushConsoleJSON(_ subscribeKey: String) -> JSONValue {
        let push = readKeyset(subscribeKey)?.push ?? PushRegistrations()
        return [
            "subscribeKey": .string(subscribeKey),
            // Said on every answer so nobody waits for a notification that never comes.
            "notificationsSent": false,
            "registrations": .array(push.devices.keys.sorted().map { $0.json(channels: push.channels(of: $0)) }),
        ]
    }
}
