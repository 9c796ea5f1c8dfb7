public import DataSyncModels
public import JSONCore
public import PubNubCore
import Transport

extension PubNubDataSync {
    // MARK: async

    /// Puts a user in a channel by creating a membership (`POST …/memberships`). The class is
    /// always `Membership`; the service assigns it.
    ///
    /// - Parameters:
    ///   - channelId: The channel. An empty id fails locally with `.missingRequiredParameter`.
    ///   - userId: The user. An empty id fails locally with `.missingRequiredParameter`.
    ///   - classVersion: The version of the `Membership` schema the payload follows.
    ///   - id: The membership's id; omitted, the service generates one.
    ///   - status: An application-defined status string.
    ///   - payload: Any `JSONCodable` value.
    ///   - requestConfig: Per-request overrides.
    /// - Throws: `PubNubError` (`.conflict` when the pair already has a membership, …).
    ///
    /// ```swift
    /// let membership = try await pubnub.dataSync.createMembership(
    ///     channelId: "general", userId: "user-1", classVersion: 1, payload: ["role": "owner"])
    /// ```
    public func createMembership(
        channelId: String, userId: String, classVersion: Int, id: String? = nil, status: String? = nil,
        payload: (any JSONCodable)? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncMembership {
        try DataSyncCall.requireNonEmpty(channelId, "channelId")
        try DataSyncCall.requireNonEmpty(userId, "userId")
        let fields: [String: JSONValue] = [
            "channelId": .string(channelId), "userId": .string(userId),
            "relationshipClassVersion": .int(Int64(classVersion)),
        ]
        let call = try DataSyncCall.create(.memberships, fields: fields, id: id, status: status, payload: payload)
        return try await engine.object(PubNubDataSyncMembership.self, call, custom: requestConfig)
    }

    /// Fetches one membership (`GET …/memberships/{id}`).
    ///
    /// - Parameters:
    ///   - id: The membership's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty id, `.resourceNotFound`
    ///   when there is no such membership.
    public func getMembership(
        id: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncMembership {
        try await engine.object(PubNubDataSyncMembership.self, try .get(.memberships, id: id), custom: requestConfig)
    }

    /// Lists memberships, one page at a time (`GET …/memberships`).
    ///
    /// `channelId` and `userId` are independent equality filters, combined with AND; with neither,
    /// every membership the token may read is listed. Filters, sort and limit are sent as given.
    ///
    /// - Parameters:
    ///   - channelId: Only memberships in this channel; `nil` for any channel.
    ///   - userId: Only memberships of this user; `nil` for any user.
    ///   - classVersion: Only objects that follow this version of the class schema; `nil` for any
    ///     version.
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
    /// - Returns: The memberships of this page and where the list stands.
    /// - Throws: `PubNubError`.
    public func getMemberships(
        channelId: String? = nil, userId: String? = nil, classVersion: Int? = nil, cursor: String? = nil,
        limit: Int? = nil, filterFast: String? = nil, filter: String? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (memberships: [PubNubDataSyncMembership], next: PubNubDataSyncPage?) {
        var selection: [HTTPQueryItem] = []
        if let channelId { selection.append(HTTPQueryItem(name: "channel_id", value: channelId)) }
        if let userId { selection.append(HTTPQueryItem(name: "user_id", value: userId)) }
        if let classVersion {
            selection.append(HTTPQueryItem(name: "relationship_class_version", value: String(classVersion)))
        }
        let call = try engine.listCall(
            .memberships, selection: selection, cursor: cursor, limit: limit, filterFast: filterFast, filter: filter,
            sort: sort)
        let (memberships, next) = try await engine.list(PubNubDataSyncMembership.self, call, custom: requestConfig)
        return (memberships: memberships, next: next)
    }

    /// Replaces a membership (`PUT …/memberships/{id}`): the complete object is sent, so a
    /// `status` or `payload` left out is cleared. The channel, user and class cannot change and are
    /// never sent.
    ///
    /// - Parameters:
    ///   - id: The membership's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - classVersion: The version of the class schema the new content follows.
    ///   - status: The new application-defined status; `nil` clears it.
    ///   - payload: The new payload, any `JSONCodable` value; `nil` clears it.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the membership untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`.
    public func setMembership(
        id: String, classVersion: Int, status: String? = nil, payload: (any JSONCodable)? = nil,
        ifMatchesEtag: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncMembership {
        let call = try DataSyncCall.setContent(
            .memberships, id: id, versionKey: "relationshipClassVersion", classVersion: classVersion, status: status,
            payload: payload, ifMatch: ifMatchesEtag)
        return try await engine.object(PubNubDataSyncMembership.self, call, custom: requestConfig)
    }

    /// Changes part of a membership with JSON Patch operations (`PATCH …/memberships/{id}`).
    ///
    /// Paths name stored properties: `/status`, `/payload/<field>`, `/relationshipClassVersion`.
    ///
    /// - Parameters:
    ///   - id: The membership's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - operations: The JSON Patch to apply, in order and all or nothing; an empty list fails
    ///     locally with `.missingRequiredParameter`.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the membership untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty id or operation list.
    public func updateMembership(
        id: String, operations: [PubNubDataSyncPatchOperation], ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncMembership {
        let call = try DataSyncCall.update(.memberships, id: id, operations: operations, ifMatch: ifMatchesEtag)
        return try await engine.object(PubNubDataSyncMembership.self, call, custom: requestConfig)
    }

    /// Deletes a membership (`DELETE …/memberships/{id}`).
    ///
    /// - Parameters:
    ///   - id: The membership's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the membership untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`.
    public func removeMembership(
        id: String, ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        _ = try await engine.send(try .remove(.memberships, id: id, ifMatch: ifMatchesEtag), custom: requestConfig)
    }

    // MARK: completion

    /// Creates a membership; see the `async` form. `completion` runs in the configured context.
    public func createMembership(
        channelId: String, userId: String, classVersion: Int, id: String? = nil, status: String? = nil,
        payload: (any JSONCodable)? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncMembership, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await createMembership(
                channelId: channelId, userId: userId, classVersion: classVersion, id: id, status: status,
                payload: payload, custom: requestConfig)
        }
    }

    /// Fetches one membership; see the `async` form. `completion` runs in the configured context.
    public func getMembership(
        id: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncMembership, any Error>) -> Void)?
    ) {
        engine.complete(completion) { try await getMembership(id: id, custom: requestConfig) }
    }

    /// Lists one page of memberships; see the `async` form. `completion` runs in the configured
    /// context.
    public func getMemberships(
        channelId: String? = nil, userId: String? = nil, classVersion: Int? = nil, cursor: String? = nil,
        limit: Int? = nil, filterFast: String? = nil, filter: String? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (
            @Sendable (Result<(memberships: [PubNubDataSyncMembership], next: PubNubDataSyncPage?), any Error>) -> Void
        )?
    ) {
        engine.complete(completion) {
            try await getMemberships(
                channelId: channelId, userId: userId, classVersion: classVersion, cursor: cursor, limit: limit,
                filterFast: filterFast, filter: filter, sort: sort, custom: requestConfig)
        }
    }

    /// Replaces a membership; see the `async` form. `completion` runs in the configured context.
    public func setMembership(
        id: String, classVersion: Int, status: String? = nil, payload: (any JSONCodable)? = nil,
        ifMatchesEtag: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncMembership, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await setMembership(
                id: id, classVersion: classVersion, status: status, payload: payload, ifMatchesEtag: ifMatchesEtag,
                custom: requestConfig)
        }
    }

    /// Patches a membership; see the `async` form. `completion` runs in the configured context.
    public func updateMembership(
        id: String, operations: [PubNubDataSyncPatchOperation], ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncMembership, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await updateMembership(
                id: id, operations: operations, ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }

    /// Deletes a membership; see the `async` form. `completion` runs in the configured context.
    public func removeMembership(
        id: String, ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await removeMembership(id: id, ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }
}
