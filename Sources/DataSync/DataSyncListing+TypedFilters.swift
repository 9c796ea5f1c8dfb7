public import DataSyncModels
public import FilterExpression
public import PubNubCore

// The list calls with typed filters and sort keys, built on the string forms a `DataSyncListing`
// declares, so `PubNubDataSync` and any other conformer (a test double) get them alike.
//
// - Generic over a `FilterClassVersion` (what `datasync-codegen` generates per class version):
//   `filterFast:` takes a `TypedFilter<Class, FilterTier.Fast>` and `filter:` a
//   `TypedFilter<Class, FilterTier.Full>`, each with sort keys of the same tier, so a property the
//   tier does not permit, or one the class does not declare, is a compile error. The class name is
//   `Class.className`; the class version is sent as the string form would send it, except that a
//   filter typed against an older version lists that version (the service only accepts an older
//   version's properties when listing it).
// - The untyped `Filter` builder (`Filter.property("price") < 100`) in place of each string, for
//   filters built in code without a generated schema. These overloads are disfavoured so a call
//   without filters still picks the string form.
//
// The completion-handler forms take strings: pass `filter.expression` and the sort keys'
// `PubNub.DataSyncSortField(property:ascending:)`.
extension DataSyncListing {
    /// The class version a typed list call sends: the one asked for, else none when `Class` is the
    /// class's latest version (every version is listed), else `Class.classVersion`.
    static func listVersion<Class: FilterClassVersion>(_ classVersion: Int?, _ type: Class.Type) -> Int? {
        if let classVersion { return classVersion }
        return Class.classVersion == (Class.filterSchema.latestVersion ?? Class.classVersion) ? nil : Class.classVersion
    }

    /// Typed sort keys in the form the string calls take.
    static func sortFields<Class, Tier>(_ fields: [TypedSortField<Class, Tier>]) -> [PubNub.DataSyncSortField] {
        fields.map { PubNub.DataSyncSortField(property: $0.property, ascending: $0.ascending) }
    }

    // MARK: users

    /// Lists one page of users of the generated class `Class`, with a typed `filterFast` and sort
    /// keys usable alongside it; the other parameters are those of the string form.
    ///
    /// ```swift
    /// let (page, next) = try await pubnub.dataSync.getUsers(
    ///     filterFast: Employee.FastFilters.level >= 3, sort: [Employee.FastSort.level.descending])
    /// ```
    ///
    /// The class name sent is `Class.className`. With `classVersion` `nil`, every version is listed
    /// when `Class` is the latest version, and only `Class.classVersion` otherwise.
    public func getUsers<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, cursor: String? = nil,
        limit: Int? = nil, filterFast: TypedFilter<Class, FilterTier.Fast>? = nil,
        sort: [TypedSortField<Class, FilterTier.Fast>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (users: [PubNubDataSyncUser], next: PubNubDataSyncPage?) {
        try await getUsers(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            cursor: cursor, limit: limit, filterFast: filterFast?.expression, filter: nil,
            sort: Self.sortFields(sort), custom: requestConfig)
    }

    /// Lists one page of users of the generated class `Class`, with a typed `filter` and sort keys
    /// usable alongside it (properties declared `full`); the other parameters are those of the
    /// string form.
    ///
    /// ```swift
    /// let (page, next) = try await pubnub.dataSync.getUsers(
    ///     filter: Employee.Filters.team == "core", sort: [Employee.Sort.name])
    /// ```
    ///
    /// The class name and version are chosen as for the `filterFast` form.
    public func getUsers<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, cursor: String? = nil,
        limit: Int? = nil, filter: TypedFilter<Class, FilterTier.Full>? = nil,
        sort: [TypedSortField<Class, FilterTier.Full>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (users: [PubNubDataSyncUser], next: PubNubDataSyncPage?) {
        try await getUsers(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            cursor: cursor, limit: limit, filterFast: nil, filter: filter?.expression, sort: Self.sortFields(sort),
            custom: requestConfig)
    }

    /// Lists one page of users with filters from the untyped `Filter` builder instead of strings;
    /// otherwise the same as the string form.
    ///
    /// ```swift
    /// let (page, next) = try await pubnub.dataSync.getUsers(
    ///     className: "Employee", filter: Filter.property("team") == "core")
    /// ```
    @_disfavoredOverload
    public func getUsers(
        className: String? = nil, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: Filter? = nil, filter: Filter? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (users: [PubNubDataSyncUser], next: PubNubDataSyncPage?) {
        try await getUsers(
            className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor, limit: limit,
            filterFast: filterFast?.expression, filter: filter?.expression, sort: sort, custom: requestConfig)
    }

    /// Every user of the generated class `Class` matching a typed `filterFast`, page after
    /// page as you iterate; arguments as for the page form.
    public func users<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, pageSize: Int? = nil,
        filterFast: TypedFilter<Class, FilterTier.Fast>? = nil, sort: [TypedSortField<Class, FilterTier.Fast>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncUser> {
        users(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            pageSize: pageSize, filterFast: filterFast?.expression, filter: nil, sort: Self.sortFields(sort),
            custom: requestConfig)
    }

    /// Every user of the generated class `Class` matching a typed `filter`, page after page
    /// as you iterate; arguments as for the page form.
    public func users<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, pageSize: Int? = nil,
        filter: TypedFilter<Class, FilterTier.Full>? = nil, sort: [TypedSortField<Class, FilterTier.Full>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncUser> {
        users(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            pageSize: pageSize, filterFast: nil, filter: filter?.expression, sort: Self.sortFields(sort),
            custom: requestConfig)
    }

    /// Every user matching filters from the untyped `Filter` builder, page after page
    /// as you iterate; otherwise the same as the string form.
    @_disfavoredOverload
    public func users(
        className: String? = nil, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        pageSize: Int? = nil, filterFast: Filter? = nil, filter: Filter? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncUser> {
        users(
            className: className, classVersion: classVersion, classLevel: classLevel, pageSize: pageSize,
            filterFast: filterFast?.expression, filter: filter?.expression, sort: sort, custom: requestConfig)
    }

    // MARK: channels

    /// Lists one page of channels of the generated class `Class`, with a typed `filterFast` and sort
    /// keys usable alongside it; the other parameters are those of the string form.
    ///
    /// ```swift
    /// let (page, next) = try await pubnub.dataSync.getChannels(
    ///     filterFast: Room.FastFilters.capacity > 10, sort: [Room.FastSort.capacity])
    /// ```
    ///
    /// The class name sent is `Class.className`. With `classVersion` `nil`, every version is listed
    /// when `Class` is the latest version, and only `Class.classVersion` otherwise.
    public func getChannels<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, cursor: String? = nil,
        limit: Int? = nil, filterFast: TypedFilter<Class, FilterTier.Fast>? = nil,
        sort: [TypedSortField<Class, FilterTier.Fast>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (channels: [PubNubDataSyncChannel], next: PubNubDataSyncPage?) {
        try await getChannels(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            cursor: cursor, limit: limit, filterFast: filterFast?.expression, filter: nil,
            sort: Self.sortFields(sort), custom: requestConfig)
    }

    /// Lists one page of channels of the generated class `Class`, with a typed `filter` and sort keys
    /// usable alongside it (properties declared `full`); the other parameters are those of the
    /// string form.
    ///
    /// ```swift
    /// let (page, next) = try await pubnub.dataSync.getChannels(
    ///     filter: Room.Filters.topic.hasPrefix("swift"), sort: [Room.Sort.name])
    /// ```
    ///
    /// The class name and version are chosen as for the `filterFast` form.
    public func getChannels<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, cursor: String? = nil,
        limit: Int? = nil, filter: TypedFilter<Class, FilterTier.Full>? = nil,
        sort: [TypedSortField<Class, FilterTier.Full>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (channels: [PubNubDataSyncChannel], next: PubNubDataSyncPage?) {
        try await getChannels(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            cursor: cursor, limit: limit, filterFast: nil, filter: filter?.expression, sort: Self.sortFields(sort),
            custom: requestConfig)
    }

    /// Lists one page of channels with filters from the untyped `Filter` builder instead of strings;
    /// otherwise the same as the string form.
    ///
    /// ```swift
    /// let (page, next) = try await pubnub.dataSync.getChannels(
    ///     className: "Room", filter: Filter.property("topic") == "swift")
    /// ```
    @_disfavoredOverload
    public func getChannels(
        className: String? = nil, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: Filter? = nil, filter: Filter? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (channels: [PubNubDataSyncChannel], next: PubNubDataSyncPage?) {
        try await getChannels(
            className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor, limit: limit,
            filterFast: filterFast?.expression, filter: filter?.expression, sort: sort, custom: requestConfig)
    }

    /// Every channel of the generated class `Class` matching a typed `filterFast`, page after
    /// page as you iterate; arguments as for the page form.
    public func channels<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, pageSize: Int? = nil,
        filterFast: TypedFilter<Class, FilterTier.Fast>? = nil, sort: [TypedSortField<Class, FilterTier.Fast>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncChannel> {
        channels(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            pageSize: pageSize, filterFast: filterFast?.expression, filter: nil, sort: Self.sortFields(sort),
            custom: requestConfig)
    }

    /// Every channel of the generated class `Class` matching a typed `filter`, page after page
    /// as you iterate; arguments as for the page form.
    public func channels<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, pageSize: Int? = nil,
        filter: TypedFilter<Class, FilterTier.Full>? = nil, sort: [TypedSortField<Class, FilterTier.Full>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncChannel> {
        channels(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            pageSize: pageSize, filterFast: nil, filter: filter?.expression, sort: Self.sortFields(sort),
            custom: requestConfig)
    }

    /// Every channel matching filters from the untyped `Filter` builder, page after page
    /// as you iterate; otherwise the same as the string form.
    @_disfavoredOverload
    public func channels(
        className: String? = nil, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        pageSize: Int? = nil, filterFast: Filter? = nil, filter: Filter? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncChannel> {
        channels(
            className: className, classVersion: classVersion, classLevel: classLevel, pageSize: pageSize,
            filterFast: filterFast?.expression, filter: filter?.expression, sort: sort, custom: requestConfig)
    }

    // MARK: entities

    /// Lists one page of entities of the generated class `Class`, with a typed `filterFast` and sort
    /// keys usable alongside it; the other parameters are those of the string form.
    ///
    /// ```swift
    /// let (page, next) = try await pubnub.dataSync.getEntities(
    ///     filterFast: Product.FastFilters.sku == "A-1", sort: [Product.FastSort.price.descending])
    /// ```
    ///
    /// The class name sent is `Class.className`. With `classVersion` `nil`, every version is listed
    /// when `Class` is the latest version, and only `Class.classVersion` otherwise.
    public func getEntities<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, cursor: String? = nil,
        limit: Int? = nil, filterFast: TypedFilter<Class, FilterTier.Fast>? = nil,
        sort: [TypedSortField<Class, FilterTier.Fast>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (entities: [PubNubDataSyncEntity], next: PubNubDataSyncPage?) {
        try await getEntities(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            cursor: cursor, limit: limit, filterFast: filterFast?.expression, filter: nil,
            sort: Self.sortFields(sort), custom: requestConfig)
    }

    /// Lists one page of entities of the generated class `Class`, with a typed `filter` and sort keys
    /// usable alongside it (properties declared `full`); the other parameters are those of the
    /// string form.
    ///
    /// ```swift
    /// let (page, next) = try await pubnub.dataSync.getEntities(
    ///     filter: Product.Filters.price < 100, sort: [Product.Sort.price])
    /// ```
    ///
    /// The class name and version are chosen as for the `filterFast` form.
    public func getEntities<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, cursor: String? = nil,
        limit: Int? = nil, filter: TypedFilter<Class, FilterTier.Full>? = nil,
        sort: [TypedSortField<Class, FilterTier.Full>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (entities: [PubNubDataSyncEntity], next: PubNubDataSyncPage?) {
        try await getEntities(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            cursor: cursor, limit: limit, filterFast: nil, filter: filter?.expression, sort: Self.sortFields(sort),
            custom: requestConfig)
    }

    /// Lists one page of entities with filters from the untyped `Filter` builder instead of strings;
    /// otherwise the same as the string form.
    ///
    /// ```swift
    /// let (page, next) = try await pubnub.dataSync.getEntities(
    ///     className: "Product", filter: Filter.property("price") < 100)
    /// ```
    @_disfavoredOverload
    public func getEntities(
        className: String, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: Filter? = nil, filter: Filter? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (entities: [PubNubDataSyncEntity], next: PubNubDataSyncPage?) {
        try await getEntities(
            className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor, limit: limit,
            filterFast: filterFast?.expression, filter: filter?.expression, sort: sort, custom: requestConfig)
    }

    /// Every entity of the generated class `Class` matching a typed `filterFast`, page after
    /// page as you iterate; arguments as for the page form.
    public func entities<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, pageSize: Int? = nil,
        filterFast: TypedFilter<Class, FilterTier.Fast>? = nil, sort: [TypedSortField<Class, FilterTier.Fast>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncEntity> {
        entities(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            pageSize: pageSize, filterFast: filterFast?.expression, filter: nil, sort: Self.sortFields(sort),
            custom: requestConfig)
    }

    /// Every entity of the generated class `Class` matching a typed `filter`, page after page
    /// as you iterate; arguments as for the page form.
    public func entities<Class: FilterClassVersion>(
        classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil, pageSize: Int? = nil,
        filter: TypedFilter<Class, FilterTier.Full>? = nil, sort: [TypedSortField<Class, FilterTier.Full>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncEntity> {
        entities(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self),
            classLevel: classLevel,
            pageSize: pageSize, filterFast: nil, filter: filter?.expression, sort: Self.sortFields(sort),
            custom: requestConfig)
    }

    /// Every entity matching filters from the untyped `Filter` builder, page after page
    /// as you iterate; otherwise the same as the string form.
    @_disfavoredOverload
    public func entities(
        className: String, classVersion: Int? = nil, classLevel: PubNubDataSyncClassLevel? = nil,
        pageSize: Int? = nil, filterFast: Filter? = nil, filter: Filter? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncEntity> {
        entities(
            className: className, classVersion: classVersion, classLevel: classLevel, pageSize: pageSize,
            filterFast: filterFast?.expression, filter: filter?.expression, sort: sort, custom: requestConfig)
    }

    // MARK: relationships

    /// Lists one page of relationships of the generated class `Class`, with a typed `filterFast`
    /// and sort keys usable alongside it; the other parameters are those of the string form.
    ///
    /// ```swift
    /// let (page, next) = try await pubnub.dataSync.getRelationships(
    ///     entityAId: "alice", filterFast: Bought.FastFilters.quantity > 1)
    /// ```
    ///
    /// The class name and version are chosen as for the entity forms.
    public func getRelationships<Class: FilterClassVersion>(
        classVersion: Int? = nil, entityAId: String? = nil, entityBId: String? = nil, cursor: String? = nil,
        limit: Int? = nil, filterFast: TypedFilter<Class, FilterTier.Fast>? = nil,
        sort: [TypedSortField<Class, FilterTier.Fast>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (relationships: [PubNubDataSyncRelationship], next: PubNubDataSyncPage?) {
        try await getRelationships(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self), entityAId: entityAId,
            entityBId: entityBId, cursor: cursor, limit: limit, filterFast: filterFast?.expression, filter: nil,
            sort: Self.sortFields(sort), custom: requestConfig)
    }

    /// Lists one page of relationships of the generated class `Class`, with a typed `filter` and
    /// sort keys usable alongside it; the other parameters are those of the string form.
    public func getRelationships<Class: FilterClassVersion>(
        classVersion: Int? = nil, entityAId: String? = nil, entityBId: String? = nil, cursor: String? = nil,
        limit: Int? = nil, filter: TypedFilter<Class, FilterTier.Full>? = nil,
        sort: [TypedSortField<Class, FilterTier.Full>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (relationships: [PubNubDataSyncRelationship], next: PubNubDataSyncPage?) {
        try await getRelationships(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self), entityAId: entityAId,
            entityBId: entityBId, cursor: cursor, limit: limit, filterFast: nil, filter: filter?.expression,
            sort: Self.sortFields(sort), custom: requestConfig)
    }

    /// Lists one page of relationships with filters from the untyped `Filter` builder instead of
    /// strings; otherwise the same as the string form.
    @_disfavoredOverload
    public func getRelationships(
        className: String, classVersion: Int? = nil, entityAId: String? = nil, entityBId: String? = nil,
        cursor: String? = nil, limit: Int? = nil, filterFast: Filter? = nil, filter: Filter? = nil,
        sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (relationships: [PubNubDataSyncRelationship], next: PubNubDataSyncPage?) {
        try await getRelationships(
            className: className, classVersion: classVersion, entityAId: entityAId, entityBId: entityBId,
            cursor: cursor, limit: limit, filterFast: filterFast?.expression, filter: filter?.expression, sort: sort,
            custom: requestConfig)
    }

    /// Every relationship of the generated class `Class` matching a typed `filterFast`, page after
    /// page as you iterate; arguments as for the page form.
    public func relationships<Class: FilterClassVersion>(
        classVersion: Int? = nil, entityAId: String? = nil, entityBId: String? = nil, pageSize: Int? = nil,
        filterFast: TypedFilter<Class, FilterTier.Fast>? = nil, sort: [TypedSortField<Class, FilterTier.Fast>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncRelationship> {
        relationships(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self), entityAId: entityAId,
            entityBId: entityBId, pageSize: pageSize, filterFast: filterFast?.expression, filter: nil,
            sort: Self.sortFields(sort), custom: requestConfig)
    }

    /// Every relationship of the generated class `Class` matching a typed `filter`, page after page
    /// as you iterate; arguments as for the page form.
    public func relationships<Class: FilterClassVersion>(
        classVersion: Int? = nil, entityAId: String? = nil, entityBId: String? = nil, pageSize: Int? = nil,
        filter: TypedFilter<Class, FilterTier.Full>? = nil, sort: [TypedSortField<Class, FilterTier.Full>] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncRelationship> {
        relationships(
            className: Class.className, classVersion: Self.listVersion(classVersion, Class.self), entityAId: entityAId,
            entityBId: entityBId, pageSize: pageSize, filterFast: nil, filter: filter?.expression,
            sort: Self.sortFields(sort), custom: requestConfig)
    }

    /// Every relationship matching filters from the untyped `Filter` builder, page after page as
    /// you iterate; otherwise the same as the string form.
    @_disfavoredOverload
    public func relationships(
        className: String, classVersion: Int? = nil, entityAId: String? = nil, entityBId: String? = nil,
        pageSize: Int? = nil, filterFast: Filter? = nil, filter: Filter? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncRelationship> {
        relationships(
            className: className, classVersion: classVersion, entityAId: entityAId, entityBId: entityBId,
            pageSize: pageSize, filterFast: filterFast?.expression, filter: filter?.expression, sort: sort,
            custom: requestConfig)
    }

    // MARK: memberships (only the built-in properties are filterable, so no typed form)

    /// Lists one page of memberships with filters from the untyped `Filter` builder instead of
    /// strings; otherwise the same as the string form. Only the built-ins (`id`, `createdAt`,
    /// `updatedAt`, `status`) are filterable on memberships.
    @_disfavoredOverload
    public func getMemberships(
        channelId: String? = nil, userId: String? = nil, classVersion: Int? = nil, cursor: String? = nil,
        limit: Int? = nil, filterFast: Filter? = nil, filter: Filter? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> (memberships: [PubNubDataSyncMembership], next: PubNubDataSyncPage?) {
        try await getMemberships(
            channelId: channelId, userId: userId, classVersion: classVersion, cursor: cursor, limit: limit,
            filterFast: filterFast?.expression, filter: filter?.expression, sort: sort, custom: requestConfig)
    }

    /// Every membership matching filters from the untyped `Filter` builder, page after page as you
    /// iterate; otherwise the same as the string form.
    @_disfavoredOverload
    public func memberships(
        channelId: String? = nil, userId: String? = nil, classVersion: Int? = nil, pageSize: Int? = nil,
        filterFast: Filter? = nil, filter: Filter? = nil, sort: [PubNub.DataSyncSortField] = [],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubDataSyncObjectSequence<PubNubDataSyncMembership> {
        memberships(
            channelId: channelId, userId: userId, classVersion: classVersion, pageSize: pageSize,
            filterFast: filterFast?.expression, filter: filter?.expression, sort: sort, custom: requestConfig)
    }
}
