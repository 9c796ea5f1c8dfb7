// The rest of this module is generated from Catalog.datasync.json by DataSyncCodegenPlugin.
import FilterExpression

extension Product {
    /// A filter the app uses in several places, written once over the generated properties.
    public static var inStock: TypedFilter<Product.V2, FilterTier.Fast> { FastFilters.stock > 0 }
}
