import DataSync
import DataSyncTestSupport
import FilterExpression
import Testing
import Transport

/// A class version as `datasync-codegen` generates it, written by hand: `price` is `full`, `sku`
/// `simple`, and version 2 is the latest.
private enum Shoe {
    static let filterSchema = FilterSchema(
        className: "Shoe", versions: [1: ["price": .full], 2: ["price": .full, "sku": .simple]])

    enum V1: FilterClassVersion {
        static let className = "Shoe"
        static let classVersion = 1
        static var filterSchema: FilterSchema { Shoe.filterSchema }
    }

    enum V2: FilterClassVersion {
        static let className = "Shoe"
        static let classVersion = 2
        static var filterSchema: FilterSchema { Shoe.filterSchema }

        enum Filters {
            static var price: TypedFilterProperty<V2, FilterTier.Full, Double> { .init("price") }
        }
        enum FastFilters {
            static var price: TypedFilterProperty<V2, FilterTier.Fast, Double> { .init("price") }
            static var sku: TypedFilterProperty<V2, FilterTier.Fast, String> { .init("sku") }
        }
        enum Sort {
            static var price: TypedSortField<V2, FilterTier.Full> { .init("price") }
        }
        enum FastSort {
            static var sku: TypedSortField<V2, FilterTier.Fast> { .init("sku") }
        }
    }
}

/// The list calls' typed and `Filter` overloads send what the string forms send.
@Suite struct DataSyncTypedFilterTests {
    private let base = "/v1/datasync/subkeys/mySubKey"

    @Test func typedFilterFastAndSortOnEntities() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([Fixtures.entity("e1")], hasNext: false))
        let (entities, _) = try await pubnub.dataSync.getEntities(
            limit: 5, filterFast: Shoe.V2.FastFilters.sku == "A-1" && Shoe.V2.FastFilters.price < 100,
            sort: [Shoe.V2.FastSort.sku.descending])
        #expect(entities.map(\.id) == ["e1"])
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/entities",
            query: [
                "entity_class": "Shoe", "limit": "5", "filter_fast": #"sku == "A-1" && price < 100.0"#,
                "sort": "sku:desc",
            ])
    }

    @Test func typedFilterOnEntitiesAndTheirSequence() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([Fixtures.entity("e1")], hasNext: false))
        _ = try await pubnub.dataSync.getEntities(filter: Shoe.V2.Filters.price >= 10, sort: [Shoe.V2.Sort.price])
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/entities",
            query: ["entity_class": "Shoe", "filter": "price >= 10.0", "sort": "price"])
        for try await _ in pubnub.dataSync.entities(pageSize: 2, filter: Shoe.V2.Filters.price < 1) {}
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/entities",
            query: ["entity_class": "Shoe", "limit": "2", "filter": "price < 1.0"])
    }

    /// A filter typed against an older version lists that version; the latest lists every one
    /// unless a version is given.
    @Test func classVersionFollowsTheTypedVersion() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([], hasNext: false))
        let old = TypedFilterProperty<Shoe.V1, FilterTier.Full, Double>("price")
        _ = try await pubnub.dataSync.getEntities(filter: old > 1)
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/entities",
            query: ["entity_class": "Shoe", "entity_class_version": "1", "filter": "price > 1.0"])
        _ = try await pubnub.dataSync.getEntities(classVersion: 2, filter: Shoe.V2.Filters.price > 1)
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/entities",
            query: ["entity_class": "Shoe", "entity_class_version": "2", "filter": "price > 1.0"])
    }

    @Test func typedCallsOnUsersChannelsAndRelationships() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([], hasNext: false))
        _ = try await pubnub.dataSync.getUsers(filterFast: Shoe.V2.FastFilters.sku == "x")
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/users",
            query: ["entity_class": "Shoe", "filter_fast": #"sku == "x""#])
        _ = try await pubnub.dataSync.getChannels(sort: [Shoe.V2.Sort.price.descending])
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/channels",
            query: ["entity_class": "Shoe", "sort": "price:desc"])
        _ = try await pubnub.dataSync.getRelationships(entityAId: "a", filter: Shoe.V2.Filters.price == 3)
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/relationships",
            query: ["relationship_class": "Shoe", "entity_a_id": "a", "filter": "price == 3.0"])
        for try await _ in pubnub.dataSync.users(filterFast: Shoe.V2.FastFilters.price > 0) {}
        #expect(recorder.lastRequest?.url.contains("filter_fast=price") == true)
        for try await _ in pubnub.dataSync.channels(filter: Shoe.V2.Filters.price > 0) {}
        #expect(recorder.lastRequest?.url.contains("/channels?") == true)
        for try await _ in pubnub.dataSync.relationships(filterFast: Shoe.V2.FastFilters.price > 0) {}
        #expect(recorder.lastRequest?.url.contains("relationship_class=Shoe") == true)
    }

    @Test func untypedFilterBuilderInPlaceOfStrings() async throws {
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([], hasNext: false))
        _ = try await pubnub.dataSync.getEntities(
            className: "Product", filterFast: Filter.property("price") < 100 && Filter.property("stock") > 0)
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/entities",
            query: ["entity_class": "Product", "filter_fast": "price < 100 && stock > 0"])
        _ = try await pubnub.dataSync.getUsers(filter: Filter.property("name").like("A*"))
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/users", query: ["filter": #"name LIKE "A*""#])
        _ = try await pubnub.dataSync.getMemberships(userId: "u", filter: Filter.property("status") == "active")
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/memberships",
            query: ["user_id": "u", "filter": #"status == "active""#])
        _ = try await pubnub.dataSync.getRelationships(className: "Bought", filterFast: Filter.property("id") == "r")
        try Fixtures.expect(
            recorder.lastRequest, method: "GET", path: "\(base)/relationships",
            query: ["relationship_class": "Bought", "filter_fast": #"id == "r""#])
        // Without a filter the string form is still the one called.
        _ = try await pubnub.dataSync.getChannels()
        try Fixtures.expect(recorder.lastRequest, method: "GET", path: "\(base)/channels")
    }

    @Test func typedFiltersValidateAgainstTheirSchema() {
        #expect((Shoe.V2.FastFilters.sku == "x").validate().isEmpty)
        #expect((Shoe.V2.Filters.price < 1).validate().isEmpty)
        // A hand-made property the tier does not permit is caught by validation.
        let wrong = TypedFilterProperty<Shoe.V2, FilterTier.Full, String>("sku") == "x"
        #expect(wrong.validate().count == 1)
        #expect(TypedSortField.validate([TypedSortField<Shoe.V2, FilterTier.Full>("sku")]).count == 1)
        #expect(TypedSortField.validate([Shoe.V2.FastSort.sku]).isEmpty)
    }
}

/// One string-form list call as a `DataSyncListing` conformer receives it.
private struct ListedCall: Hashable, Sendable {
    var kind: String
    var className: String?
    var classVersion: Int?
    var classLevel: PubNubDataSyncClassLevel?
    /// `channelId` and `userId` of a membership list, `entityAId` and `entityBId` of a
    /// relationship list.
    var sides: [String?] = []
    var cursor: String?
    var limit: Int?
    var filterFast: String?
    var filter: String?
    var sort: [PubNub.DataSyncSortField]
}

/// A test double of the five one-page calls: records every call and answers an empty page that
/// says one more follows (cursor `c2`), then an empty last page.
private actor ListingDouble: DataSyncListing {
    private(set) var calls: [ListedCall] = []

    private func record(_ call: ListedCall) -> PubNubDataSyncPage {
        calls.append(call)
        return call.cursor == nil ? PubNubDataSyncPage(hasNext: true, cursor: "c2") : PubNubDataSyncPage(hasNext: false)
    }

    func getUsers(
        className: String?, classVersion: Int?, classLevel: PubNubDataSyncClassLevel?, cursor: String?, limit: Int?,
        filterFast: String?, filter: String?, sort: [PubNub.DataSyncSortField],
        custom requestConfig: PubNub.RequestConfiguration
    ) async throws -> (users: [PubNubDataSyncUser], next: PubNubDataSyncPage?) {
        let call = ListedCall(
            kind: "users", className: className, classVersion: classVersion, classLevel: classLevel, cursor: cursor,
            limit: limit, filterFast: filterFast, filter: filter, sort: sort)
        return (users: [], next: record(call))
    }

    func getChannels(
        className: String?, classVersion: Int?, classLevel: PubNubDataSyncClassLevel?, cursor: String?, limit: Int?,
        filterFast: String?, filter: String?, sort: [PubNub.DataSyncSortField],
        custom requestConfig: PubNub.RequestConfiguration
    ) async throws -> (channels: [PubNubDataSyncChannel], next: PubNubDataSyncPage?) {
        let call = ListedCall(
            kind: "channels", className: className, classVersion: classVersion, classLevel: classLevel,
            cursor: cursor, limit: limit, filterFast: filterFast, filter: filter, sort: sort)
        return (channels: [], next: record(call))
    }

    func getEntities(
        className: String, classVersion: Int?, classLevel: PubNubDataSyncClassLevel?, cursor: String?, limit: Int?,
        filterFast: String?, filter: String?, sort: [PubNub.DataSyncSortField],
        custom requestConfig: PubNub.RequestConfiguration
    ) async throws -> (entities: [PubNubDataSyncEntity], next: PubNubDataSyncPage?) {
        let call = ListedCall(
            kind: "entities", className: className, classVersion: classVersion, classLevel: classLevel,
            cursor: cursor, limit: limit, filterFast: filterFast, filter: filter, sort: sort)
        return (entities: [], next: record(call))
    }

    func getMemberships(
        channelId: String?, userId: String?, classVersion: Int?, cursor: String?, limit: Int?, filterFast: String?,
        filter: String?, sort: [PubNub.DataSyncSortField], custom requestConfig: PubNub.RequestConfiguration
    ) async throws -> (memberships: [PubNubDataSyncMembership], next: PubNubDataSyncPage?) {
        let call = ListedCall(
            kind: "memberships", classVersion: classVersion, sides: [channelId, userId], cursor: cursor, limit: limit,
            filterFast: filterFast, filter: filter, sort: sort)
        return (memberships: [], next: record(call))
    }

    func getRelationships(
        className: String, classVersion: Int?, entityAId: String?, entityBId: String?, cursor: String?, limit: Int?,
        filterFast: String?, filter: String?, sort: [PubNub.DataSyncSortField],
        custom requestConfig: PubNub.RequestConfiguration
    ) async throws -> (relationships: [PubNubDataSyncRelationship], next: PubNubDataSyncPage?) {
        let call = ListedCall(
            kind: "relationships", className: className, classVersion: classVersion, sides: [entityAId, entityBId],
            cursor: cursor, limit: limit, filterFast: filterFast, filter: filter, sort: sort)
        return (relationships: [], next: record(call))
    }
}

/// A list call in one of the derived forms (typed, `Filter` builder, paging sequence), made on
/// any `DataSyncListing`.
private struct DerivedListCall: Sendable, CustomTestStringConvertible {
    var name: String
    /// A sequence fetches every page; the others fetch one.
    var pages: Int
    var run: @Sendable (any DataSyncListing) async throws -> Void

    var testDescription: String { name }

    static func page(_ name: String, _ run: @escaping @Sendable (any DataSyncListing) async throws -> Void) -> Self {
        Self(name: name, pages: 1, run: run)
    }

    static func sequence<S: AsyncSequence & Sendable>(
        _ name: String, _ make: @escaping @Sendable (any DataSyncListing) -> S
    ) -> Self {
        Self(name: name, pages: 2) { listing in
            for try await _ in make(listing) {}
        }
    }
}

/// The typed, `Filter`-builder and sequence forms come from `DataSyncListing`, so a conformer other
/// than the facade gets them, and what they pass it is what the facade sends for the same call.
@Suite struct DataSyncListingConformerTests {
    private static let derivedCalls: [DerivedListCall] = [
        .page("typed filterFast users") {
            _ = try await $0.getUsers(
                limit: 3, filterFast: Shoe.V2.FastFilters.sku == "x", sort: [Shoe.V2.FastSort.sku.descending])
        },
        .page("typed filter channels, older version") {
            _ = try await $0.getChannels(filter: TypedFilterProperty<Shoe.V1, FilterTier.Full, Double>("price") > 1)
        },
        .page("typed filter entities") {
            _ = try await $0.getEntities(classLevel: .subKey, filter: Shoe.V2.Filters.price < 9)
        },
        .page("typed filterFast relationships") {
            _ = try await $0.getRelationships(entityBId: "b", filterFast: Shoe.V2.FastFilters.price >= 2)
        },
        .page("Filter builder users") { _ = try await $0.getUsers(filter: Filter.property("name") == "Ada") },
        .page("Filter builder entities") {
            _ = try await $0.getEntities(className: "Lamp", filterFast: Filter.property("watts") > 40)
        },
        .page("Filter builder memberships") {
            _ = try await $0.getMemberships(channelId: "c", filterFast: Filter.property("status") == "on")
        },
        .page("Filter builder relationships") {
            _ = try await $0.getRelationships(className: "Bought", filter: Filter.property("qty") > 1)
        },
        .sequence("string users sequence") { $0.users(pageSize: 4, filter: "a == 1") },
        .sequence("string memberships sequence") { $0.memberships(userId: "u", sort: [.init(property: "id")]) },
        .sequence("typed channels sequence") { $0.channels(filterFast: Shoe.V2.FastFilters.sku == "y") },
        .sequence("typed entities sequence") { $0.entities(pageSize: 2, sort: [Shoe.V2.Sort.price]) },
        .sequence("typed relationships sequence") {
            $0.relationships(entityAId: "a", filter: Shoe.V2.Filters.price > 0)
        },
        .sequence("Filter builder channels sequence") { $0.channels(filter: Filter.property("topic") == "t") },
        .sequence("Filter builder relationships sequence") {
            $0.relationships(className: "Bought", filterFast: Filter.property("id") == "r")
        },
    ]

    @Test(arguments: derivedCalls)
    fileprivate func aConformerGetsTheDerivedFormsWithTheFacadesArguments(_ derived: DerivedListCall) async throws {
        let double = ListingDouble()
        try await derived.run(double)
        let calls = await double.calls
        #expect(calls.count == derived.pages)
        #expect(calls.map(\.cursor) == Array([nil, "c2"].prefix(derived.pages)))
        let first = try #require(calls.first)

        // The same call on the facade sends what its string form sends for the arguments the
        // double received.
        let (pubnub, recorder) = Fixtures.recorded(body: Fixtures.page([], hasNext: false))
        try await derived.run(pubnub.dataSync)
        let derivedRequest = try #require(recorder.lastRequest)
        try await Self.replay(first, on: pubnub.dataSync)
        let stringRequest = try #require(recorder.lastRequest)
        #expect(recorder.requests.count == 2)
        #expect(derivedRequest.method == stringRequest.method)
        #expect(derivedRequest.url == stringRequest.url)
    }

    /// The typed forms hand a conformer the class name, the version and the filter as text.
    @Test func typedFormsPassTheClassAndTheFilterText() async throws {
        let double = ListingDouble()
        _ = try await double.getEntities(
            limit: 5, filterFast: Shoe.V2.FastFilters.sku == "A-1", sort: [Shoe.V2.FastSort.sku.descending])
        _ = try await double.getEntities(
            filter: TypedFilterProperty<Shoe.V1, FilterTier.Full, Double>("price") > 1)
        let calls = await double.calls
        #expect(
            calls == [
                ListedCall(
                    kind: "entities", className: "Shoe", limit: 5, filterFast: #"sku == "A-1""#,
                    sort: [PubNub.DataSyncSortField(property: "sku", ascending: false)]),
                ListedCall(kind: "entities", className: "Shoe", classVersion: 1, filter: "price > 1.0", sort: []),
            ])
    }

    /// Makes `call` again through the facade's string form.
    private static func replay(_ call: ListedCall, on dataSync: PubNubDataSync) async throws {
        let sides = call.sides + [nil, nil]
        switch call.kind {
        case "users":
            _ = try await dataSync.getUsers(
                className: call.className, classVersion: call.classVersion, classLevel: call.classLevel,
                cursor: call.cursor, limit: call.limit, filterFast: call.filterFast, filter: call.filter,
                sort: call.sort)
        case "channels":
            _ = try await dataSync.getChannels(
                className: call.className, classVersion: call.classVersion, classLevel: call.classLevel,
                cursor: call.cursor, limit: call.limit, filterFast: call.filterFast, filter: call.filter,
                sort: call.sort)
        case "entities":
            _ = try await dataSync.getEntities(
                className: try #require(call.className), classVersion: call.classVersion, classLevel: call.classLevel,
                cursor: call.cursor, limit: call.limit, filterFast: call.filterFast, filter: call.filter,
                sort: call.sort)
        case "memberships":
            _ = try await dataSync.getMemberships(
                channelId: sides[0], userId: sides[1], classVersion: call.classVersion, cursor: call.cursor,
                limit: call.limit, filterFast: call.filterFast, filter: call.filter, sort: call.sort)
        default:
            _ = try await dataSync.getRelationships(
                className: try #require(call.className), classVersion: call.classVersion, entityAId: sides[0],
                entityBId: sides[1], cursor: call.cursor, limit: call.limit, filterFast: call.filterFast,
                filter: call.filter, sort: call.sort)
        }
    }
}
