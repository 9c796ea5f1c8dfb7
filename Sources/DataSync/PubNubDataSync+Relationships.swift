public import DataSyncModels
public import JSONCore
public import PubNubCore
import Transport

extension PubNubDataSync {
    // MARK: async

    /// Links two entities by creating a relationship of a class you registered
    /// (`POST …/relationships`).
    ///
    /// - Parameters:
    ///   - className: The relationship class. An empty name fails locally with
    ///     `.missingRequiredParameter`.
    ///   - classVersion: The version of the class schema the payload follows.
    ///   - entityAId: The entity on the A side. An empty id fails locally.
    ///   - entityBId: The entity on the B side. An empty id fails locally.
    ///   - id: The relationship's id; omitted, the service generates one.
    ///   - status: An application-defined status string.
    ///   - payload: Any `JSONCodable` value.
    ///   - requestConfig: Per-request overrides.
    /// - Throws: `PubNubError` (`.conflict` for a duplicate id or a cardinality rule, …).
    ///
    /// ```swift
    /// let link = try await pubnub.dataSync.createRelationship(
    ///     className: "RequestedBy", classVersion: 1, entityAId: "quote-1", entityBId: "customer-7")
    /// ```
    public func createRelationship(
        className: String, classVersion: Int, entityAId: String, entityBId: String, id: String? = nil,
        status: String? = nil, payload: (any JSONCodable)? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncRelationship {
        try DataSyncCall.requireNonEmpty(className, "className")
        try DataSyncCall.requireNonEmpty(entityAId, "entityAId")
        try DataSyncCall.requireNonEmpty(entityBId, "entityBId")
        let fields: [String: JSONValue] = [
            "relationshipClass": .string(className), "relationshipClassVersion": .int(Int64(classVersion)),
            "entityAId": .string(entityAId), "entityBId": .string(entityBId),
        ]
        let call = try DataSyncCall.create(.relationships, fields: fields, id: id, status: status, payload: payload)
        return try await engine.object(PubNubDataSyncRelationship.self, call, custom: requestConfig)
    }

    /// Fetches one relationship (`GET …/relationships/{id}`).
    ///
    /// - Parameters:
    ///   - id: The relationship's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty id, `.resourceNotFound`
    ///   when there is no such relationship.
    public func getRelationship(
        id: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncRelationship {
        try await engine.object(
            PubNubDataSyncRelationship.self, try .get(.relationships, id: id), custom: requestConfig)
    }

    /// Lists relationships of one class, one page at a time (`GET …/relationships`).
    ///
    /// `className` is required; an empty name fails locally with `.missingRequiredParameter`.
    /// `entityAId` and `entityBId` are independent equality filters, combined with AND. Filters,
    /// sort and limit are sent as given.
    ///
    /// - Parameters:
    ///   - className: The class to list; an empty name fails locally with
    ///     `.missingRequiredParameter`.
    ///   - classVersion: Only objects that follow this version of the class schema; `nil` for any
    ///     version.
    ///   - entityAId: Only relationships whose A side is this entity; `nil` for any.
    ///   - entityBId: Only relationships whose B side is this entity; `nil` for any.
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
    /// - Returns: The relationships of this page and where the list stands.
    /// - Throws: `PubNubError`.
    public func getRelationships(
        className: String, classVersion: Int? = nil, entityAId: String? = nil, entityBId: String? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: String? = nil, filter: String? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (relationships: [PubNubDataSyncRelationship], next: PubNubDataSyncPage?) {
        try DataSyncCall.requireNonEmpty(className, "className")
        var selection: [HTTPQueryItem] = [HTTPQueryItem(name: "relationship_class", value: className)]
        if let classVersion {
            selection.append(HTTPQueryItem(name: "relationship_class_version", value: String(classVersion)))
        }
        if let entityAId { selection.append(HTTPQueryItem(name: "entity_a_id", value: entityAId)) }
        if let entityBId { selection.append(HTTPQueryItem(name: "entity_b_id", value: entityBId)) }
        let call = try engine.listCall(
            .relationships, selection: selection, cursor: cursor, limit: limit, filterFast: filterFast,
            filter: filter, sort: sort)
        let (relationships, next) = try await engine.list(PubNubDataSyncRelationship.self, call, custom: requestConfig)
        return (relationships: relationships, next: next)
    }

    /// Replaces a relationship (`PUT …/relationships/{id}`): the complete object is sent, so a
    /// `status` or `payload` left out is cleared. The linked entities and the class cannot change
    /// and are never sent.
    ///
    /// - Parameters:
    ///   - id: The relationship's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - classVersion: The version of the class schema the new content follows.
    ///   - status: The new application-defined status; `nil` clears it.
    ///   - payload: The new payload, any `JSONCodable` value; `nil` clears it.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the relationship untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`.
    public func setRelationship(
        id: String, classVersion: Int, status: String? = nil, payload: (any JSONCodable)? = nil,
        ifMatchesEtag: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncRelationship {
        let call = try DataSyncCall.setContent(
            .relationships, id: id, versionKey: "relationshipClassVersion", classVersion: classVersion, status: status,
            payload: payload, ifMatch: ifMatchesEtag)
        return try await engine.object(PubNubDataSyncRelationship.self, call, custom: requestConfig)
    }

    /// Changes part of a relationship with JSON Patch operations (`PATCH …/relationships/{id}`).
    ///
    /// Paths name stored properties: `/status`, `/payload/<field>`, `/relationshipClassVersion`.
    ///
    /// - Parameters:
    ///   - id: The relationship's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - operations: The JSON Patch to apply, in order and all or nothing; an empty list fails
    ///     locally with `.missingRequiredParameter`.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the relationship untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty id or operation list.
    public func updateRelationship(
        id: String, operations: [PubNubDataSyncPatchOperation], ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubDataSyncRelationship {
        let call = try DataSyncCall.update(.relationships, id: id, operations: operations, ifMatch: ifMatchesEtag)
        return try await engine.object(PubNubDataSyncRelationship.self, call, custom: requestConfig)
    }

    /// Deletes a relationship (`DELETE …/relationships/{id}`).
    ///
    /// - Parameters:
    ///   - id: The relationship's id; an empty id fails locally with `.missingRequiredParameter`.
    ///   - ifMatchesEtag: The `eTag` of the version you last read, sent verbatim as `If-Match`; a
    ///     stale value fails with `.preconditionFailed` and leaves the relationship untouched. `nil`
    ///     writes whatever the stored version is.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra
    ///     query items and headers); the default changes nothing.
    /// - Throws: `PubNubError`.
    public func removeRelationship(
        id: String, ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        _ = try await engine.send(try .remove(.relationships, id: id, ifMatch: ifMatchesEtag), custom: requestConfig)
    }

    // MARK: completion

    /// Creates a relationship; see the `async` form. `completion` runs in the configured context.
    public func createRelationship(
        className: String, classVersion: Int, entityAId: String, entityBId: String, id: String? = nil,
        status: String? = nil, payload: (any JSONCodable)? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncRelationship, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await createRelationship(
                className: className, classVersion: classVersion, entityAId: entityAId, entityBId: entityBId, id: id,
                status: status, payload: payload, custom: requestConfig)
        }
    }

    /// Fetches one relationship; see the `async` form. `completion` runs in the configured context.
    public func getRelationship(
        id: String, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncRelationship, any Error>) -> Void)?
    ) {
        engine.complete(completion) { try await getRelationship(id: id, custom: requestConfig) }
    }

    /// Lists one page of relationships; see the `async` form. `completion` runs in the configured
    /// context.
    public func getRelationships(
        className: String, classVersion: Int? = nil, entityAId: String? = nil, entityBId: String? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: String? = nil, filter: String? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (
            @Sendable (Result<(relationships: [PubNubDataSyncRelationship], next: PubNubDataSyncPage?), any Error>)
                -> Void
        )?
    ) {
        engine.complete(completion) {
            try await getRelationships(
                className: className, classVersion: classVersion, entityAId: entityAId, entityBId: entityBId,
                cursor: cursor, limit: limit, filterFast: filterFast, filter: filter, sort: sort,
                custom: requestConfig)
        }
    }

    /// Replaces a relationship; see the `async` form. `completion` runs in the configured context.
    public func setRelationship(
        id: String, classVersion: Int, status: String? = nil, payload: (any JSONCodable)? = nil,
        ifMatchesEtag: String? = nil, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncRelationship, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await setRelationship(
                id: id, classVersion: classVersion, status: status, payload: payload, ifMatchesEtag: ifMatchesEtag,
                custom: requestConfig)
        }
    }

    /// Patches a relationship; see the `async` form. `completion` runs in the configured context.
    public func updateRelationship(
        id: String, operations: [PubNubDataSyncPatchOperation], ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubDataSyncRelationship, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await updateRelationship(
                id: id, operations: operations, ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }

    /// Deletes a relationship; see the `async` form. `completion` runs in the configured context.
    public func removeRelationship(
        id: String, ifMatchesEtag: String? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        engine.complete(completion) {
            try await removeRelationship(id: id, ifMatchesEtag: ifMatchesEtag, custom: requestConfig)
        }
    }
}
