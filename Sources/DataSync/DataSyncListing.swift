public import DataSyncModels
public import PubNubCore

/// The five list calls of the DataSync API in their string form, one page per call: what every
/// other way of listing is built from.
///
/// ``PubNubDataSync`` conforms, and the calls built on these five come from this protocol's
/// extension, so they behave the same on any conformer: the paging sequences (`users(…)`,
/// `channels(…)`, …), the typed-filter forms (`getUsers(filterFast: Employee.FastFilters.level >= 3)`)
/// and the `Filter`-builder forms. A test double of the five calls therefore answers those too.
///
/// A conformer must:
/// - return the objects of the one page the arguments select and, as `next`, where the list
///   stands (`nil` when the answer carries no page information);
/// - treat `cursor` as the `cursor` of a previous call's `next`, and `nil` as the first page;
/// - be safe to call from any task at once (the protocol is `Sendable`).
///
/// The requirements take every argument; default values are the conformer's choice (the
/// facade's are `nil`, `[]` and an empty `PubNub.RequestConfiguration()`).
///
/// ```swift
/// struct CannedUsers: DataSyncListing {
///     let users: [PubNubDataSyncUser]
///
///     func getUsers(
///         className: String?, classVersion: Int?, classLevel: PubNubDataSyncClassLevel?, cursor: String?,
///         limit: Int?, filterFast: String?, filter: String?, sort: [PubNub.DataSyncSortField],
///         custom requestConfig: PubNub.RequestConfiguration
///     ) async throws -> (users: [PubNubDataSyncUser], next: PubNubDataSyncPage?) {
///         (users: users, next: nil)
///     }
///     // getChannels, getEntities, getMemberships and getRelationships alike.
/// }
/// ```
public protocol DataSyncListing: Sendable {
    /// Lists one page of users (`GET …/users`); see
    /// ``PubNubDataSync/getUsers(className:classVersion:classLevel:cursor:limit:filterFast:filter:sort:custom:)-(_,_,_,_,_,String?,_,_,_)``.
    func getUsers(
        className: String?, classVersion: Int?, classLevel: PubNubDataSyncClassLevel?, cursor: String?, limit: Int?,
        filterFast: String?, filter: String?, sort: [PubNub.DataSyncSortField],
        custom requestConfig: PubNub.RequestConfiguration
    ) async throws -> (users: [PubNubDataSyncUser], next: PubNubDataSyncPage?)

    /// Lists one page of channels (`GET …/channels`); see
    /// ``PubNubDataSync/getChannels(className:classVersion:classLevel:cursor:limit:filterFast:filter:sort:custom:)-(_,_,_,_,_,String?,_,_,_)``.
    func getChannels(
        className: String?, classVersion: Int?, classLevel: PubNubDataSyncClassLevel?, cursor: String?, limit: Int?,
        filterFast: String?, filter: String?, sort: [PubNub.DataSyncSortField],
        custom requestConfig: PubNub.RequestConfiguration
    ) async throws -> (channels: [PubNubDataSyncChannel], next: PubNubDataSyncPage?)

    /// Lists one page of entities of one class (`GET …/entities`); see
    /// ``PubNubDataSync/getEntities(className:classVersion:classLevel:cursor:limit:filterFast:filter:sort:custom:)-(_,_,_,_,_,String?,_,_,_)``.
    func getEntities(
        className: String, classVersion: Int?, classLevel: PubNubDataSyncClassLevel?, cursor: String?, limit: Int?,
        filterFast: String?, filter: String?, sort: [PubNub.DataSyncSortField],
        custom requestConfig: PubNub.RequestConfiguration
    ) async throws -> (entities: [PubNubDataSyncEntity], next: PubNubDataSyncPage?)

    /// Lists one page of memberships (`GET …/memberships`); see
    /// ``PubNubDataSync/getMemberships(channelId:userId:classVersion:cursor:limit:filterFast:filter:sort:custom:)-(_,_,_,_,_,String?,_,_,_)``.
    func getMemberships(
        channelId: String?, userId: String?, classVersion: Int?, cursor: String?, limit: Int?, filterFast: String?,
        filter: String?, sort: [PubNub.DataSyncSortField], custom requestConfig: PubNub.RequestConfiguration
    ) async throws -> (memberships: [PubNubDataSyncMembership], next: PubNubDataSyncPage?)

    /// Lists one page of relationships of one class (`GET …/relationships`); see
    /// ``PubNubDataSync/getRelationships(className:classVersion:entityAId:entityBId:cursor:limit:filterFast:filter:sort:custom:)-(_,_,_,_,_,_,String?,_,_,_)``.
    func getRelationships(
        className: String, classVersion: Int?, entityAId: String?, entityBId: String?, cursor: String?, limit: Int?,
        filterFast: String?, filter: String?, sort: [PubNub.DataSyncSortField],
        custom requestConfig: PubNub.RequestConfiguration
    ) async throws -> (relationships: [PubNubDataSyncRelationship], next: PubNubDataSyncPage?)
}

extension PubNubDataSync: DataSyncListing {}

// The paging sequences: each fetches its pages through the conformer's one-page call.
extension DataSyncListing {
    /// Every user matching the arguments, fetched page after page of `pageSize` as you iterate.
    ///
    /// Arguments are as for ``getUsers(className:classVersion:classLevel:cursor:limit:filterFast:filter:sort:custom:)-(_,_,_,_,_,String?,_,_,_)``;
    /// nothing is sent until iteration starts.
    ///
    /// - Parameters:
    ///   - className: Only this class (`User` or a subclass); `nil` lists the whole `User`
    ///     family, subclasses included.
    ///   - classVersion: Only objects that follow this version of the class schema; `nil` for any
    ///     version.
    ///   - classLevel: Where the class is registered (`.global`, `.subKey`, `.account`); `nil` lets
    ///     the service resolve the name.
    ///   - pageSize: How many objects each request fetches, 1 to 100; `nil` sends none and the
    ///     service returns 20 per page.
    ///   - filterFast: A strongly consistent filter over properties declared `simple` or `full`,
    ///     sent as `filter_fast`; `nil` for none. Pass at most one of the two filters.
    ///   - filter: An eventually consistent filter in the full language, over properties declared
    ///     `full`; `nil` for none.
    ///   - sort: Sort keys, most significant first, sent as one `sort` parameter; empty leaves the
    ///     order to the service.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra query
    ///     items and headers); the default changes nothing.
    public func users(
        className: String? = nil, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        pageSize: Int? = nil, filterFast: String? = nil, filter: String? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncUser> {
        PubNubDataSyncObjectSequence { cursor in
            try await getUsers(
                className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor,
                limit: pageSize, filterFast: filterFast, filter: filter, sort: sort, custom: requestConfig)
        }
    }

    /// Every channel matching the arguments, fetched page after page of `pageSize` as you iterate.
    ///
    /// Arguments are as for ``getChannels(className:classVersion:classLevel:cursor:limit:filterFast:filter:sort:custom:)-(_,_,_,_,_,String?,_,_,_)``;
    /// nothing is sent until iteration starts.
    ///
    /// - Parameters:
    ///   - className: Only this class (`Channel` or a subclass); `nil` lists the whole `Channel`
    ///     family, subclasses included.
    ///   - classVersion: Only objects that follow this version of the class schema; `nil` for any
    ///     version.
    ///   - classLevel: Where the class is registered (`.global`, `.subKey`, `.account`); `nil` lets
    ///     the service resolve the name.
    ///   - pageSize: How many objects each request fetches, 1 to 100; `nil` sends none and the
    ///     service returns 20 per page.
    ///   - filterFast: A strongly consistent filter over properties declared `simple` or `full`,
    ///     sent as `filter_fast`; `nil` for none. Pass at most one of the two filters.
    ///   - filter: An eventually consistent filter in the full language, over properties declared
    ///     `full`; `nil` for none.
    ///   - sort: Sort keys, most significant first, sent as one `sort` parameter; empty leaves the
    ///     order to the service.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra query
    ///     items and headers); the default changes nothing.
    public func channels(
        className: String? = nil, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        pageSize: Int? = nil, filterFast: String? = nil, filter: String? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncChannel> {
        PubNubDataSyncObjectSequence { cursor in
            try await getChannels(
                className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor,
                limit: pageSize, filterFast: filterFast, filter: filter, sort: sort, custom: requestConfig)
        }
    }

    /// Every entity matching the arguments, fetched page after page of `pageSize` as you iterate.
    ///
    /// Arguments are as for ``getEntities(className:classVersion:classLevel:cursor:limit:filterFast:filter:sort:custom:)-(_,_,_,_,_,String?,_,_,_)``;
    /// nothing is sent until iteration starts.
    ///
    /// - Parameters:
    ///   - className: The class to list; an empty name fails locally with
    ///     `.missingRequiredParameter`.
    ///   - classVersion: Only objects that follow this version of the class schema; `nil` for any
    ///     version.
    ///   - classLevel: Where the class is registered (`.global`, `.subKey`, `.account`); `nil` lets
    ///     the service resolve the name.
    ///   - pageSize: How many objects each request fetches, 1 to 100; `nil` sends none and the
    ///     service returns 20 per page.
    ///   - filterFast: A strongly consistent filter over properties declared `simple` or `full`,
    ///     sent as `filter_fast`; `nil` for none. Pass at most one of the two filters.
    ///   - filter: An eventually consistent filter in the full language, over properties declared
    ///     `full`; `nil` for none.
    ///   - sort: Sort keys, most significant first, sent as one `sort` parameter; empty leaves the
    ///     order to the service.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra query
    ///     items and headers); the default changes nothing.
    public func entities(
        className: String, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        pageSize: Int? = nil, filterFast: String? = nil, filter: String? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncEntity> {
        PubNubDataSyncObjectSequence { cursor in
            try await getEntities(
                className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor,
                limit: pageSize, filterFast: filterFast, filter: filter, sort: sort, custom: requestConfig)
        }
    }

    /// Every membership matching the arguments, fetched page after page as you iterate.
    ///
    /// Arguments are as for
    /// ``getMemberships(channelId:userId:classVersion:cursor:limit:filterFast:filter:sort:custom:)-(_,_,_,_,_,String?,_,_,_)``.
    ///
    /// - Parameters:
    ///   - channelId: Only memberships in this channel; `nil` for any channel.
    ///   - userId: Only memberships of this user; `nil` for any user.
    ///   - classVersion: Only objects that follow this version of the class schema; `nil` for any
    ///     version.
    ///   - pageSize: How many objects each request fetches, 1 to 100; `nil` sends none and the
    ///     service returns 20 per page.
    ///   - filterFast: A strongly consistent filter over properties declared `simple` or `full`,
    ///     sent as `filter_fast`; `nil` for none. Pass at most one of the two filters.
    ///   - filter: An eventually consistent filter in the full language, over properties declared
    ///     `full`; `nil` for none.
    ///   - sort: Sort keys, most significant first, sent as one `sort` parameter; empty leaves the
    ///     order to the service.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra query
    ///     items and headers); the default changes nothing.
    public func memberships(
        channelId: String? = nil, userId: String? = nil, classVersion: Int? = nil, pageSize: Int? = nil,
        filterFast: String? = nil, filter: String? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncMembership> {
        PubNubDataSyncObjectSequence { cursor in
            try await getMemberships(
                channelId: channelId, userId: userId, classVersion: classVersion, cursor: cursor, limit: pageSize,
                filterFast: filterFast, filter: filter, sort: sort, custom: requestConfig)
        }
    }

    /// Every relationship matching the arguments, fetched page after page as you iterate.
    ///
    /// Arguments are as for
    /// ``getRelationships(className:classVersion:entityAId:entityBId:cursor:limit:filterFast:filter:sort:custom:)-(_,_,_,_,_,_,String?,_,_,_)``.
    ///
    /// - Parameters:
    ///   - className: The class to list; an empty name fails locally with
    ///     `.missingRequiredParameter`.
    ///   - classVersion: Only objects that follow this version of the class schema; `nil` for any
    ///     version.
    ///   - entityAId: Only relationships whose A side is this entity; `nil` for any.
    ///   - entityBId: Only relationships whose B side is this entity; `nil` for any.
    ///   - pageSize: How many objects each request fetches, 1 to 100; `nil` sends none and the
    ///     service returns 20 per page.
    ///   - filterFast: A strongly consistent filter over properties declared `simple` or `full`,
    ///     sent as `filter_fast`; `nil` for none. Pass at most one of the two filters.
    ///   - filter: An eventually consistent filter in the full language, over properties declared
    ///     `full`; `nil` for none.
    ///   - sort: Sort keys, most significant first, sent as one `sort` parameter; empty leaves the
    ///     order to the service.
    ///   - requestConfig: Per-request overrides (transport, timeout, retry policy, deadline, extra query
    ///     items and headers); the default changes nothing.
    public func relationships(
        className: String, classVersion: Int? = nil, entityAId: String? = nil, entityBId: String? = nil,
        pageSize: Int? = nil, filterFast: String? = nil, filter: String? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncRelationship> {
        PubNubDataSyncObjectSequence { cursor in
            try await getRelationships(
                className: className, classVersion: classVersion, entityAId: entityAId, entityBId: entityBId,
                cursor: cursor, limit: pageSize, filterFast: filterFast, filter: filter, sort: sort,
                custom: requestConfig)
        }
    }
}
