public import DataSyncModels
public import JSONCore
public import PubNubCore

extension PubNubDataSync {
    // MARK: async

    /// Creates an entity (`POST …/entities`).
    ///
    /// - Parameters:
    ///   - className: The entity's class, registered on the subscribe key. An empty name fails
    ///     locally with `.missingRequiredParameter`.
    ///   - classVersion: The version of the class schema the payload follows.
    ///   - classLevel: Where the class is registered; omitted, the service resolves the name.
    ///   - id: The new entity's id; omitted, the service generates one. An empty id fails locally
    ///     with `.missingRequiredParameter`.
    ///   - status: An application-defined status string.
    ///   - payload: Any `JSONCodable` value, including your own `Codable` structs.
    ///   - requestConfig: Per-request overrides.
    /// - Returns: The entity as stored, with its timestamps and `eTag`.
    /// - Throws: `PubNubError` (`.conflict` for an existing id, `.forbidden`, …).
    ///
    /// ```swift
    /// let product = try await pubnub.dataSync.createEntity(
    ///     className: "Product", classVersion: 1, id: "sku-1", payload: ["price": 99.5])
    /// ```
    public func createEntity(
        className: String, classVersion: Int, classLevel: PubNubDataSyncClassLevel? = nil, id: String? = nil,
        status: String? = nil, payload: (any JSONCodable)? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncEntity {
        try DataSyncCall.requireNonEmpty(className, "className")
        let call = try DataSyncCall.createEntity(
            .entities, className: className, classVersion: classVersion, classLevel: classLevel, id: id, status: status,
            payload: payload)
        return try await engine.object(PubNubDataSyncEntity.self, call, custom: requestConfig)
    }

    /// Fetches one entity (`GET …/entities/{id}`).
    ///
    /// - Parameters:
    ///   - id: The entity's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty id, `.resourceNotFound`
    ///   when there is no such entity.
    public func getEntity(
        id: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncEntity {
        try await engine.object(PubNubDataSyncEntity.self, try .get(.entities, id: id), custom: requestConfig)
    }

    /// Lists entities, one page at a time (`GET …/entities`).
    ///
    /// `className` is required; an empty name fails locally with `.missingRequiredParameter`.
    /// `filterFast` (strongly consistent, condition-capped), `filter` (eventually consistent, full
    /// grammar), `sort` and `limit` are sent as given and validated by the service.
    ///
    /// - Parameters:
    ///   - className: The class to list; an empty name fails locally with
    ///     `.missingRequiredParameter`.
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
    /// - Returns: The entities of this page and where the list stands; pass `next?.cursor` as
    ///   `cursor` for the next page while `next?.hasNext` is `true`.
    /// - Throws: `PubNubError`.
    public func getEntities(
        className: String, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: String? = nil, filter: String? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (entities: [PubNubDataSyncEntity], next: PubNubDataSyncPage?) {
        try DataSyncCall.requireNonEmpty(className, "className")
        let call = try engine.listCall(
            .entities,
            selection: DataSyncFields.entitySelection(
                className: className, classVersion: classVersion, classLevel: classLevel),
            cursor: cursor, limit: limit, filterFast: filterFast, filter: filter, sort: sort)
        let (entities, next) = try await engine.list(PubNubDataSyncEntity.self, call, custom: requestConfig)
        return (entities: entities, next: next)
    }

    /// Replaces an entity (`PUT …/entities/{id}`): the complete object is sent, so a `status` or
    /// `payload` left out is cleared. The class and id are never sent; they cannot change.
    ///
    /// - Parameters:
    ///   - id: The entity's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - classVersion: The version of the class schema the new content follows.
    ///   - status: The new application-defined status; `nil` clears it.
    ///   - payload: The new payload, any `JSONCodable` value; `nil` clears it.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the entity untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`.
    public func setEntity(
        id: String, classVersion: Int, status: String? = nil, payload: (any JSONCodable)? = nil,
        ifMatchesEtag: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncEntity {
        let call = try DataSyncCall.setContent(
            .entities, id: id, versionKey: "entityClassVersion", classVersion: classVersion, status: status,
            payload: payload, ifMatch: ifMatchesEtag)
        return try await engine.object(PubNubDataSyncEntity.self, call, custom: requestConfig)
    }

    /// Changes part of an entity with JSON Patch operations (`PATCH …/entities/{id}`), atomically.
    ///
    /// Paths name stored properties: `/status`, `/payload/<field>`, `/entityClassVersion`.
    ///
    /// - Parameters:
    ///   - id: The entity's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - operations: The JSON Patch to apply, in order and all or nothing; an empty list fails
    ///     locally with `.missingRequiredParameter`.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the entity untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty id or operation list,
    ///   `.conflict` when a `test` operation fails, `.preconditionFailed` for a stale eTag.
    public func updateEntity(
        id: String, operations: [PubNubDataSyncPatchOperation], ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncEntity {
        let call = try DataSyncCall.update(.entities, id: id, operations: operations, ifMatch: ifMatchesEtag)
        return try await engine.object(PubNubDataSyncEntity.self, call, custom: requestConfig)
    }

    /// Deletes an entity (`DELETE …/entities/{id}`).
    ///
    /// - Parameters:
    ///   - id: The entity's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the entity untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`.
    public func removeEntity(
        id: String, ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        _ = try await engine.send(try .remove(.entities, id: id, ifMatch: ifMatchesEtag), custom: requestConfig)
    }

    // MARK: completion

    /// Creates an entity; see the `async` form. `completion` runs in the configured context.
    public func createEntity(
        className: String, classVersion: Int, classLevel: PubNubDataSyncClassLevel? = nil, id: String? = nil,
        status: String? = nil, payload: (any JSONCodable)? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncEntity, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await createEntity(
                className: className, classVersion: classVersion, classLevel: classLevel, id: id, status: status,
                payload: payload, custom: requestConfig)
        }
    }

    /// Fetches one entity; see the `async` form. `completion` runs in the configured context.
    public func getEntity(
        id: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncEntity, any Error>) -> Void)?
    ) {
        engine.complete(completion) { try await getEntity(id: id, custom: requestConfig) }
    }

    /// Lists one page of entities; see the `async` form. `completion` runs in the configured context.
    public func getEntities(
        className: String, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: String? = nil, filter: String? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (
            @Sendable (Result<(entities: [PubNubDataSyncEntity], next: PubNubDataSyncPage?), any Error>) -> Void
        )?
    ) {
        engine.complete(completion) {
            try await getEntities(
                className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor, limit: limit,
                filterFast: filterFast, filter: filter, sort: sort, custom: requestConfig)
        }
    }

    /// Replaces an entity; see the `async` form. `completion` runs in the configured context.
    public func setEntity(
        id: String, classVersion: Int, status: String? = nil, payload: (any JSONCodable)? = nil,
        ifMatchesEtag: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncEntity, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await setEntity(
                id: id, classVersion: classVersion, status: status, payload: payload,
                ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }

    /// Patches an entity; see the `async` form. `completion` runs in the configured context.
    public func updateEntity(
        id: String, operations: [PubNubDataSyncPatchOperation], ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncEntity, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await updateEntity(id: id, operations: operations, ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }

    /// Deletes an entity; see the `async` form. `completion` runs in the configured context.
    public func removeEntity(
        id: String, ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await removeEntity(id: id, ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }
}
