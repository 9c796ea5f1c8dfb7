package import JSONCore
public import PubNubCore

extension PubNub {
    // MARK: async

    /// Adds channels to a channel group, creating the group when it does not exist
    /// (`GET /v1/channel-registration/sub-key/{sub}/channel-group/{group}?add=…`).
    ///
    /// - Parameters:
    ///   - channels: The channels to add: 1 to 200 names, none empty or holding `,`.
    ///   - group: The group's name.
    ///   - requestConfig: Per-request overrides.
    /// - Throws: `PubNubError`, before sending: `.missingRequiredParameter` for an empty group
    ///   or channel list, `.invalidArguments` for an empty name or one holding `,`,
    ///   `.channelGroupLimitExceeded` for more than 200 channels. From the service:
    ///   `.channelGroupLimitExceeded` (`"Maximum channel group count exceeded."`),
    ///   `.reservedCharacter`, `.forbidden`, or the reason of the HTTP status.
    ///
    /// ```swift
    /// try await pubnub.add(channels: ["news", "sport"], to: "feeds")
    /// ```
    public func add(
        channels: [String], to group: String,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        let call = try MessagingCall.changeGroup(
            subscribeKey: configuration.subscribeKey, group: group, adding: true, channels: channels)
        _ = try await messagingObject(call, custom: requestConfig)
    }

    /// Removes channels from a channel group (`…/channel-group/{group}?remove=…`).
    ///
    /// - Throws: `PubNubError` as ``add(channels:to:custom:)``.
    public func remove(
        channels: [String], from group: String,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        let call = try MessagingCall.changeGroup(
            subscribeKey: configuration.subscribeKey, group: group, adding: false, channels: channels)
        _ = try await messagingObject(call, custom: requestConfig)
    }

    /// The channels of a channel group (`…/channel-group/{group}`); empty for an unknown group.
    ///
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty group name, the service's
    ///   errors, `.malformedResponse` for an answer that is not a JSON object.
    public func listChannels(
        for group: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> [String] {
        let call = try MessagingCall.listGroup(subscribeKey: configuration.subscribeKey, group: group)
        let object = try await messagingObject(call, custom: requestConfig)
        return object["payload"]?["channels"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The channel groups of the keyset (`…/channel-group`).
    ///
    /// - Throws: `PubNubError`: the service's errors, `.malformedResponse`.
    public func listChannelGroups(
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> [String] {
        let call = MessagingCall.listGroups(subscribeKey: configuration.subscribeKey)
        let object = try await messagingObject(call, custom: requestConfig)
        return object["payload"]?["groups"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// Deletes a channel group (`…/channel-group/{group}/remove`).
    ///
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty group name, the service's
    ///   errors.
    public func remove(
        channelGroup group: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        let call = try MessagingCall.deleteGroup(subscribeKey: configuration.subscribeKey, group: group)
        _ = try await messagingObject(call, custom: requestConfig)
    }

    // MARK: completion

    /// Adds channels to a group; see the `async` form. `completion` runs in the configured context.
    public func add(
        channels: [String], to group: String,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.add(channels: channels, to: group, custom: requestConfig) }
    }

    /// Removes channels from a group; see the `async` form. `completion` runs in the configured
    /// context.
    public func remove(
        channels: [String], from group: String,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.remove(channels: channels, from: group, custom: requestConfig)
        }
    }

    /// Lists a group's channels; see the `async` form. `completion` runs in the configured context.
    public func listChannels(
        for group: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<[String], any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.listChannels(for: group, custom: requestConfig) }
    }

    /// Lists the keyset's groups; see the `async` form. `completion` runs in the configured context.
    public func listChannelGroups(
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<[String], any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.listChannelGroups(custom: requestConfig) }
    }

    /// Deletes a group; see the `async` form. `completion` runs in the configured context.
    public func remove(
        channelGroup group: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.remove(channelGroup: group, custom: requestConfig) }
    }

    // MARK: shared

    /// Sends a presence or channel-registry call and returns its JSON object.
    package func messagingObject(
        _ call: ServicePipeline.Call, custom requestConfig: PubNub.RequestConfiguration
    ) async throws(PubNubError) -> JSONObject {
        try MessagingResponse.object(try await pipeline.exchange(call, custom: requestConfig))
    }
}
