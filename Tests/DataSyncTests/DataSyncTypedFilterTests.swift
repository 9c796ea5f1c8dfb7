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
