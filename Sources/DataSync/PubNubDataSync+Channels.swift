public import DataSyncModels
public import JSONCore
public import PubNubCore

extension PubNubDataSync {
    // MARK: async

    /// Creates a channel (`POST …/channels`).
    ///
    /// - Parameters:
    ///   - className: `Channel` (the service's default when omitted) or a subclass such as `PrivateChannel`.
    ///   - classVersion: The version of the class schema the payload follows.
    ///   - classLevel: Where the class is registered; omitted, the service resolves the name.
    ///   - id: The new channel's id; omitted, the service generates one. An empty id fails locally
    ///     with `.missingRequiredParameter`.
    ///   - status: An application-defined status string.
    ///   - payload: Any `JSONCodable` value, including your own `Codable` structs.
    ///   - requestConfig: Per-request overrides.
    /// - Returns: The channel as stored, with its timestamps and `eTag`.
    /// - Throws: `PubNubError` (`.conflict` for an existing id, `.forbidden`, …).
    ///
    /// ```swift
    /// let channel = try await pubnub.dataSync.createChannel(
    ///     classVersion: 1, id: "general", status: "active", payload: ["name": "General"])
    /// ```
    public func createChannel(
        className: String? = nil, classVersion: Int, classLevel: PubNubDataSyncClassLevel? = nil, id: String? = nil,
        status: String? = nil, payload: (any JSONCodable)? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncChannel {
        let call = try DataSyncCall.createEntity(
            .channels, className: className, classVersion: classVersion, classLevel: classLevel, id: id, status: status,
            payload: payload)
        return try await engine.object(PubNubDataSyncChannel.self, call, custom: requestConfig)
    }

    /// Fetches one channel (`GET …/channels/{id}`).
    ///
    /// - Parameters:
    ///   - id: The channel's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty id, `.resourceNotFound`
    ///   when there is no such channel.
    public func getChannel(
        id: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncChannel {
        try await engine.object(PubNubDataSyncChannel.self, try .get(.channels, id: id), custom: requestConfig)
    }

    /// Lists channels, one page at a time (`GET …/channels`).
    ///
    /// Without `className` the whole `Channel` family is listed, subclasses included. `filterFast`
    /// (strongly consistent, condition-capped), `filter` (eventually consistent, full grammar),
    /// `sort` and `limit` are sent as given and validated by the service.
    ///
    /// - Parameters:
    ///   - className: Only this class (`Channel` or a subclass); `nil` lists the whole `Channel`
    ///     family, subclasses included.
    ///   - classVersion: Only objects that follow this version of the class schema; `nil` for any
    ///     version.
    ///   - classLevel: Where the class is registered (`.global`, `.subKey`, `.account`); `nil` lets
    ///     the service resolve the name.
    ///   - cursor: Where to continue: the `cursor` of the previous call's page; `nil` starts at the
    ///     beginning.
    ///   - limit: The page size, 1 to 100; `nil` sends none and the service returns 20.
    ///   - filterFast: A strongly consistent filter over properties declared `simple` or `full`,
    ///     sent as `filter_fast`; `nil` for none. Pass at most one of the two filters.
    ///   - filter: An eventually consistent filter in the full language, over properties declared
    ///     `full`; `nil` for none.
    ///   - sort: Sort keys, most significant first, sent as one `sort` parameter; empty leaves the
    ///     order to the service.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra query
    ///     items and headers); the default changes nothing.
    /// - Returns: The channels of this page and where the list stands; pass `next?.cursor` as
    ///   `cursor` for the next page while `next?.hasNext` is `true`.
    /// - Throws: `PubNubError`.
    public func getChannels(
        className: String? = nil, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: String? = nil, filter: String? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (channels: [PubNubDataSyncChannel], next: PubNubDataSyncPage?) {
        let call = try engine.listCall(
            .channels,
            selection: DataSyncFields.entitySelection(
                className: className, classVersion: classVersion, classLevel: classLevel),
            cursor: cursor, limit: limit, filterFast: filterFast, filter: filter, sort: sort)
        let (channels, next) = try await engine.list(PubNubDataSyncChannel.self, call, custom: requestConfig)
        return (channels: channels, next: next)
    }

    /// Replaces a channel (`PUT …/channels/{id}`): the complete object is sent, so a `status` or
    /// `payload` left out is cleared. The class and id are never sent; they cannot change.
    ///
    /// - Parameters:
    ///   - id: The channel's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - classVersion: The version of the class schema the new content follows.
    ///   - status: The new application-defined status; `nil` clears it.
    ///   - payload: The new payload, any `JSONCodable` value; `nil` clears it.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the channel untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`.
    public func setChannel(
        id: String, classVersion: Int, status: String? = nil, payload: (any JSONCodable)? = nil,
        ifMatchesEtag: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncChannel {
        let call = try DataSyncCall.setContent(
            .channels, id: id, versionKey: "entityClassVersion", classVersion: classVersion, status: status,
            payload: payload, ifMatch: ifMatchesEtag)
        return try await engine.object(PubNubDataSyncChannel.self, call, custom: requestConfig)
    }

    /// Changes part of a channel with JSON Patch operations (`PATCH …/channels/{id}`), atomically.
    ///
    /// Paths name stored properties: `/status`, `/payload/<field>`, `/entityClassVersion`.
    ///
    /// - Parameters:
    ///   - id: The channel's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - operations: The JSON Patch to apply, in order and all or nothing; an empty list fails
    ///     locally with `.missingRequiredParameter`.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the channel untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty id or operation list,
    ///   `.conflict` when a `test` operation fails, `.preconditionFailed` for a stale eTag.
    public func updateChannel(
        id: String, operations: [PubNubDataSyncPatchOperation], ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncChannel {
        let call = try DataSyncCall.update(.channels, id: id, operations: operations, ifMatch: ifMatchesEtag)
        return try await engine.object(PubNubDataSyncChannel.self, call, custom: requestConfig)
    }

    /// Deletes a channel (`DELETE …/channels/{id}`); the service also removes its memberships.
    ///
    /// - Parameters:
    ///   - id: The channel's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the channel untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`.
    public func removeChannel(
        id: String, ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        _ = try await engine.send(try .remove(.channels, id: id, ifMatch: ifMatchesEtag), custom: requestConfig)
    }

    // MARK: completion

    /// Creates a channel; see the `async` form. `completion` runs in the configured context.
    public func createChannel(
        className: String? = nil, classVersion: Int, classLevel: PubNubDataSyncClassLevel? = nil, id: String? = nil,
        status: String? = nil, payload: (any JSONCodable)? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncChannel, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await createChannel(
                className: className, classVersion: classVersion, classLevel: classLevel, id: id, status: status,
                payload: payload, custom: requestConfig)
        }
    }

    /// Fetches one channel; see the `async` form. `completion` runs in the configured context.
    public func getChannel(
        id: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncChannel, any Error>) -> Void)?
    ) {
        engine.complete(completion) { try await getChannel(id: id, custom: requestConfig) }
    }

    /// Lists one page of channels; see the `async` form. `completion` runs in the configured context.
    public func getChannels(
        className: String? = nil, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: String? = nil, filter: String? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (
            @Sendable (Result<(channels: [PubNubDataSyncChannel], next: PubNubDataSyncPage?), any Error>) -> Void
        )?
    ) {
        engine.complete(completion) {
            try await getChannels(
                className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor, limit: limit,
                filterFast: filterFast, filter: filter, sort: sort, custom: requestConfig)
        }
    }

    /// Replaces a channel; see the `async` form. `completion` runs in the configured context.
    public func setChannel(
        id: String, classVersion: Int, status: String? = nil, payload: (any JSONCodable)? = nil,
        ifMatchesEtag: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncChannel, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await setChannel(
                id: id, classVersion: classVersion, status: status, payload: payload,
                ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }

    /// Patches a channel; see the `async` form. `completion` runs in the configured context.
    public func updateChannel(
        id: String, operations: [PubNubDataSyncPatchOperation], ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncChannel, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await updateChannel(id: id, operations: operations, ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }

    /// Deletes a channel; see the `async` form. `completion` runs in the configured context.
    public func removeChannel(
        id: String, ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await removeChannel(id: id, ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }
}
