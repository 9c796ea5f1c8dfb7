public import PubNubCore
import Transport

extension PubNub {
    // MARK: async

    /// Registers a device for mobile push on channels: from now on, a message published on one
    /// of them with `pn_apns` or `pn_fcm` sections (Messaging's `PubNubPushPayload`) is turned
    /// by the service into a notification for this device.
    ///
    /// `GET /v1/push/sub-key/{sub}/devices/{token}?type=…&add=…`, or for APNs2
    /// `/v2/push/sub-key/{sub}/devices-apns2/{token}?topic=…&environment=…&add=…`. Adding a
    /// channel the device already has changes nothing.
    ///
    /// - Parameters:
    ///   - channels: The channels (names without commas).
    ///   - device: The registration: token, gateway and, for APNs2, topic and environment.
    ///   - requestConfig: Per-request overrides.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for no channels, an empty token or an
    ///   APNs2 device without a topic, `.invalidArguments` for an empty channel name or one with
    ///   a comma (nothing sent); the service's errors (`.badRequest` for a token or topic it
    ///   refuses or too many channels on the device, `.forbidden` without read access to a
    ///   channel).
    ///
    /// ```swift
    /// let device = PubNubPushDevice.apns2(deviceToken: token, topic: "com.example.chat")
    /// try await pubnub.addPushChannels(["room-1", "room-2"], for: device)
    /// ```
    public func addPushChannels(
        _ channels: [String], for device: PubNubPushDevice,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        let call = try PushCall.call(.add(channels), device: device, subscribeKey: configuration.subscribeKey)
        try PushCall.acknowledged(try await pipeline.exchange(call, custom: requestConfig))
    }

    /// Stops pushes to a device for some channels; its other channels stay. Removing a channel
    /// the device does not have changes nothing.
    ///
    /// - Throws: as ``addPushChannels(_:for:custom:)``.
    public func removePushChannels(
        _ channels: [String], from device: PubNubPushDevice,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        let call = try PushCall.call(.remove(channels), device: device, subscribeKey: configuration.subscribeKey)
        try PushCall.acknowledged(try await pipeline.exchange(call, custom: requestConfig))
    }

    /// The channels a device is registered on (empty for a device never registered).
    ///
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty token or an APNs2 device
    ///   without a topic (nothing sent); the service's errors; `.malformedResponse` when the
    ///   answer is not a list of names.
    ///
    /// ```swift
    /// let channels = try await pubnub.listPushChannels(for: .fcm(token: registrationToken))
    /// ```
    public func listPushChannels(
        for device: PubNubPushDevice, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> [String] {
        let call = try PushCall.call(.list, device: device, subscribeKey: configuration.subscribeKey)
        return try PushCall.channels(try await pipeline.exchange(call, custom: requestConfig))
    }

    /// Removes a device from every channel (`…/{token}/remove`), as an app does when its user
    /// signs out or turns notifications off.
    ///
    /// - Throws: as ``listPushChannels(for:custom:)``.
    public func removeAllPushChannels(
        for device: PubNubPushDevice, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        let call = try PushCall.call(.removeDevice, device: device, subscribeKey: configuration.subscribeKey)
        try PushCall.acknowledged(try await pipeline.exchange(call, custom: requestConfig))
    }

    // MARK: completion

    /// Registers a device on channels; see the `async` form. `completion` runs in the configured
    /// context.
    public func addPushChannels(
        _ channels: [String], for device: PubNubPushDevice,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.addPushChannels(channels, for: device, custom: requestConfig) }
    }

    /// Removes channels from a device; see the `async` form. `completion` runs in the configured
    /// context.
    public func removePushChannels(
        _ channels: [String], from device: PubNubPushDevice,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.removePushChannels(channels, from: device, custom: requestConfig)
        }
    }

    /// Lists a device's channels; see the `async` form. `completion` runs in the configured context.
    public func listPushChannels(
        for device: PubNubPushDevice, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<[String], any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.listPushChannels(for: device, custom: requestConfig) }
    }

    /// Removes a device from every channel; see the `async` form. `completion` runs in the
    /// configured context.
    public func removeAllPushChannels(
        for device: PubNubPushDevice, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.removeAllPushChannels(for: device, custom: requestConfig) }
    }
}
