// Every line below must fail to compile; Scripts/plugin-check.sh greps the compiler for each.
import Catalog
import DataSync
import FilterExpression

func misuse(_ dataSync: PubNubDataSync) async throws {
    // `notes` is declared with filtering `none`: in no filter namespace.
    _ = Product.Filters.notes == "fragile"
    _ = Product.FastFilters.notes == "fragile"
    // `sku` is `simple`: usable with filterFast, not with filter.
    _ = Product.Filters.sku == "A-1"
    // Never declared.
    _ = Product.FastFilters.colour == "red"
    // A filterFast filter where `filter:` is expected.
    _ = try await dataSync.getEntities(filter: Product.FastFilters.stock > 0)
    // A `simple` sort key alongside `filter`.
    _ = try await dataSync.getEntities(filter: Product.Filters.price < 10, sort: [Product.FastSort.stock])
}
