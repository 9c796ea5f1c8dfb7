public import DataSyncModels
public import JSONCore
public import PubNubCore

extension PubNubDataSync {
    // MARK: async

    /// Creates a user (`POST …/users`).
    ///
    /// - Parameters:
    ///   - className: `User` (the service's default when omitted) or a subclass such as `Employee`.
    ///   - classVersion: The version of the class schema the payload follows.
    ///   - classLevel: Where the class is registered; omitted, the service resolves the name.
    ///   - id: The new user's id; omitted, the service generates one. An empty id fails locally
    ///     with `.missingRequiredParameter`.
    ///   - status: An application-defined status string.
    ///   - payload: Any `JSONCodable` value, including your own `Codable` structs.
    ///   - requestConfig: Per-request overrides.
    /// - Returns: The user as stored, with its timestamps and `eTag`.
    /// - Throws: `PubNubError` (`.conflict` for an existing id, `.forbidden`, …).
    ///
    /// ```swift
    /// let user = try await pubnub.dataSync.createUser(
    ///     classVersion: 1, id: "user-1", status: "active", payload: ["firstName": "Ada"])
    /// ```
    public func createUser(
        className: String? = nil, classVersion: Int, classLevel: PubNubDataSyncClassLevel? = nil, id: String? = nil,
        status: String? = nil, payload: (any JSONCodable)? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncUser {
        let call = try DataSyncCall.createEntity(
            .users, className: className, classVersion: classVersion, classLevel: classLevel, id: id, status: status,
            payload: payload)
        return try await engine.object(PubNubDataSyncUser.self, call, custom: requestConfig)
    }

    /// Fetches one user (`GET …/users/{id}`).
    ///
    /// - Parameters:
    ///   - id: The user's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty id, `.resourceNotFound`
    ///   when there is no such user.
    public func getUser(
        id: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncUser {
        try await engine.object(PubNubDataSyncUser.self, try .get(.users, id: id), custom: requestConfig)
    }

    /// Lists users, one page at a time (`GET …/users`).
    ///
    /// Without `className` the whole `User` family is listed, subclasses included. `filterFast`
    /// (strongly consistent, condition-capped), `filter` (eventually consistent, full grammar),
    /// `sort` and `limit` are sent as given and validated by the service.
    ///
    /// - Parameters:
    ///   - className: Only this class (`User` or a subclass); `nil` lists the whole `User`
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
    /// - Returns: The users of this page and where the list stands; pass `next?.cursor` as
    ///   `cursor` for the next page while `next?.hasNext` is `true`.
    /// - Throws: `PubNubError`.
    public func getUsers(
        className: String? = nil, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: String? = nil, filter: String? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (users: [PubNubDataSyncUser], next: PubNubDataSyncPage?) {
        let call = try engine.listCall(
            .users,
            selection: DataSyncFields.entitySelection(
                className: className, classVersion: classVersion, classLevel: classLevel),
            cursor: cursor, limit: limit, filterFast: filterFast, filter: filter, sort: sort)
        let (users, next) = try await engine.list(PubNubDataSyncUser.self, call, custom: requestConfig)
        return (users: users, next: next)
    }

    /// Replaces a user (`PUT …/users/{id}`): the complete object is sent, so a `status` or
    /// `payload` left out is cleared. The class and id are never sent; they cannot change.
    ///
    /// - Parameters:
    ///   - id: The user's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - classVersion: The version of the class schema the new content follows.
    ///   - status: The new application-defined status; `nil` clears it.
    ///   - payload: The new payload, any `JSONCodable` value; `nil` clears it.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the user untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`.
    public func setUser(
        id: String, classVersion: Int, status: String? = nil, payload: (any JSONCodable)? = nil,
        ifMatchesEtag: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncUser {
        let call = try DataSyncCall.setContent(
            .users, id: id, versionKey: "entityClassVersion", classVersion: classVersion, status: status,
            payload: payload, ifMatch: ifMatchesEtag)
        return try await engine.object(PubNubDataSyncUser.self, call, custom: requestConfig)
    }

    /// Changes part of a user with JSON Patch operations (`PATCH …/users/{id}`), atomically.
    ///
    /// Paths name stored properties: `/status`, `/payload/<field>`, `/entityClassVersion`.
    ///
    /// - Parameters:
    ///   - id: The user's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - operations: The JSON Patch to apply, in order and all or nothing; an empty list fails
    ///     locally with `.missingRequiredParameter`.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the user untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty id or operation list,
    ///   `.conflict` when a `test` operation fails, `.preconditionFailed` for a stale eTag.
    public func updateUser(
        id: String, operations: [PubNubDataSyncPatchOperation], ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncUser {
        let call = try DataSyncCall.update(.users, id: id, operations: operations, ifMatch: ifMatchesEtag)
        return try await engine.object(PubNubDataSyncUser.self, call, custom: requestConfig)
    }

    /// Deletes a user (`DELETE …/users/{id}`); the service also removes the user's memberships.
    ///
    /// - Parameters:
    ///   - id: The user's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the user untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`.
    public func removeUser(
        id: String, ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        _ = try await engine.send(try .remove(.users, id: id, ifMatch: ifMatchesEtag), custom: requestConfig)
    }

    // MARK: completion

    /// Creates a user; see the `async` form. `completion` runs in the configured context.
    public func createUser(
        className: String? = nil, classVersion: Int, classLevel: PubNubDataSyncClassLevel? = nil, id: String? = nil,
        status: String? = nil, payload: (any JSONCodable)? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncUser, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await createUser(
                className: className, classVersion: classVersion, classLevel: classLevel, id: id, status: status,
                payload: payload, custom: requestConfig)
        }
    }

    /// Fetches one user; see the `async` form. `completion` runs in the configured context.
    public func getUser(
        id: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncUser, any Error>) -> Void)?
    ) {
        engine.complete(completion) { try await getUser(id: id, custom: requestConfig) }
    }

    /// Lists one page of users; see the `async` form. `completion` runs in the configured context.
    public func getUsers(
        className: String? = nil, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: String? = nil, filter: String? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<(users: [PubNubDataSyncUser], next: PubNubDataSyncPage?), any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await getUsers(
                className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor, limit: limit,
                filterFast: filterFast, filter: filter, sort: sort, custom: requestConfig)
        }
    }

    /// Replaces a user; see the `async` form. `completion` runs in the configured context.
    public func setUser(
        id: String, classVersion: Int, status: String? = nil, payload: (any JSONCodable)? = nil,
        ifMatchesEtag: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncUser, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await setUser(
                id: id, classVersion: classVersion, status: status, payload: payload,
                ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }

    /// Patches a user; see the `async` form. `completion` runs in the configured context.
    public func updateUser(
        id: String, operations: [PubNubDataSyncPatchOperation], ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncUser, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await updateUser(id: id, operations: operations, ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }

    /// Deletes a user; see the `async` form. `completion` runs in the configured context.
    public func removeUser(
        id: String, ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await removeUser(id: id, ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }
}
