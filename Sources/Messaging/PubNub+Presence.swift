public import JSONCore
import PubNubBase
public import PubNubCore

extension PubNub {
    // MARK: async

    /// Who is present on channels and channel groups, or on the whole keyset
    /// (`GET /v2/presence/sub-key/{sub}/channel/{channels}`; the global form
    /// `/v2/presence/sub-key/{sub}` when both lists are empty).
    ///
    /// - Parameters:
    ///   - channels: The channels to ask about; empty with empty `groups` for the global form.
    ///   - groups: Channel groups whose channels to include.
    ///   - includeUUIDs: Whether to list the users (`disable_uuids=0`), or only count them.
    ///   - includeState: Whether to include each user's presence state (`state=1`).
    ///   - limit: The most users listed per channel, 0...1000 (default 1000).
    ///   - offset: Where to start listing users, for paging past `limit`.
    ///   - requestConfig: Per-request overrides.
    /// - Throws: `PubNubError`: `.invalidArguments` for a limit outside 0...1000, a negative offset
    ///   or an empty name (nothing sent); the service's errors; `.malformedResponse` for an answer of
    ///   neither form.
    ///
    /// ```swift
    /// let presence = try await pubnub.hereNow(on: ["room-1"], includeState: true)
    /// let count = presence.channels["room-1"]?.occupancy ?? 0
    /// ```
    public func hereNow(
        on channels: [String] = [], and groups: [String] = [], includeUUIDs: Bool = true, includeState: Bool = false,
        limit: Int = 1000, offset: Int? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubHereNow {
        let call = try MessagingCall.hereNow(
            subscribeKey: configuration.subscribeKey, channels: channels, groups: groups, includeUUIDs: includeUUIDs,
            includeState: includeState, limit: limit, offset: offset)
        let object = try await messagingObject(call, custom: requestConfig)
        let single = channels.count == 1 && groups.isEmpty ? channels.first : nil
        guard let answer = PubNubHereNow(answer: object, singleChannel: single) else {
            throw PubNubError.malformedResponse("a here-now answer has neither form", statusCode: 200)
        }
        return answer
    }

    /// The channels a user is present on (`GET /v2/presence/sub-key/{sub}/uuid/{uuid}`).
    ///
    /// - Parameters:
    ///   - userId: The user; this client's user id when omitted.
    ///   - requestConfig: Per-request overrides.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty user id; the service's
    ///   errors.
    public func whereNow(
        for userId: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> [String] {
        let call = try MessagingCall.whereNow(
            subscribeKey: configuration.subscribeKey, userId: userId ?? configuration.userId)
        let object = try await messagingObject(call, custom: requestConfig)
        return object["payload"]?["channels"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// Sets this client's presence state on channels and groups
    /// (`GET …/channel/{channels}/uuid/{own user id}/data?state=<JSON>`).
    ///
    /// The state is kept by the service while the user is present and sent to `-pnpres`
    /// subscribers as a `state-change` event.
    ///
    /// - Parameters:
    ///   - state: A JSON object (a `JSONValue` object literal or your own `Codable` struct).
    ///   - channels: The channels the state is for.
    ///   - groups: Channel groups the state is for.
    ///   - requestConfig: Per-request overrides.
    /// - Returns: The state as the service stored it.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` without channels and groups,
    ///   `.invalidArguments` when the state is not a JSON object (nothing sent); the service's
    ///   errors (`.badRequest` with "No state specified.").
    public func setPresence(
        state: any JSONCodable, on channels: [String], and groups: [String] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> JSONValue {
        let call = try MessagingCall.setState(
            subscribeKey: configuration.subscribeKey, userId: configuration.userId, state: state, channels: channels,
            groups: groups)
        let object = try await messagingObject(call, custom: requestConfig)
        return object["payload"] ?? .object([:])
    }

    /// A user's presence state on channels and groups, by channel
    /// (`GET …/channel/{channels}/uuid/{uuid}`).
    ///
    /// - Parameters:
    ///   - userId: The user; this client's user id when omitted.
    ///   - channels: The channels to read.
    ///   - groups: Channel groups whose channels to read.
    ///   - requestConfig: Per-request overrides.
    /// - Returns: Each channel's state; a channel where the user has none may be missing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` without channels and groups or for an
    ///   empty user id; the service's errors.
    public func getPresenceState(
        for userId: String? = nil, on channels: [String], and groups: [String] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> [String: JSONValue] {
        let call = try MessagingCall.getState(
            subscribeKey: configuration.subscribeKey, userId: userId ?? configuration.userId, channels: channels,
            groups: groups)
        let object = try await messagingObject(call, custom: requestConfig)
        guard let payload = object["payload"] else { return [:] }
        if let byChannel = payload["channels"]?.objectValue { return byChannel.dictionary }
        if channels.count == 1, groups.isEmpty, let channel = channels.first { return [channel: payload] }
        return [:]
    }

    // MARK: completion

    /// Who is present; see the `async` form. `completion` runs in the configured context.
    public func hereNow(
        on channels: [String] = [], and groups: [String] = [], includeUUIDs: Bool = true, includeState: Bool = false,
        limit: Int = 1000, offset: Int? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubHereNow, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.hereNow(
                on: channels, and: groups, includeUUIDs: includeUUIDs, includeState: includeState, limit: limit,
                offset: offset, custom: requestConfig)
        }
    }

    /// Where a user is present; see the `async` form. `completion` runs in the configured context.
    public func whereNow(
        for userId: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<[String], any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.whereNow(for: userId, custom: requestConfig) }
    }

    /// Sets this client's presence state; see the `async` form. `completion` runs in the
    /// configured context.
    public func setPresence(
        state: any JSONCodable, on channels: [String], and groups: [String] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<JSONValue, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.setPresence(state: state, on: channels, and: groups, custom: requestConfig)
        }
    }

    /// A user's presence state; see the `async` form. `completion` runs in the configured context.
    public func getPresenceState(
        for userId: String? = nil, on channels: [String], and groups: [String] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<[String: JSONValue], any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.getPresenceState(for: userId, on: channels, and: groups, custom: requestConfig)
        }
    }
}
