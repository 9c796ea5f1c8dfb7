/// One key of a list ordering: a property name and a direction.
///
/// A list of fields is sent as one `sort` parameter, comma-joined, with `:desc` after descending
/// fields: `[.init(property: "name"), .init(property: "price", ascending: false)]` is sent as
/// `name,price:desc`. The property name is sent as written and is not validated locally.
///
/// In the DataSync API this type is spelled `PubNub.DataSyncSortField`.
public struct PubNubDataSyncSortField: Hashable, Sendable, CustomStringConvertible {
    /// The property to order by: a built-in (`id`, `createdAt`, `updatedAt`, `status`) or a
    /// filterable payload property declared on the class.
    public var property: String
    /// Whether smaller values come first.
    public var ascending: Bool

    /// Creates a sort key; `ascending` defaults to `true`.
    public init(property: String, ascending: Bool = true) {
        self.property = property
        self.ascending = ascending
    }

    /// The key in wire form: `property` or `property:desc`.
    public var description: String { ascending ? property : property + ":desc" }

    /// The value of the `sort` query parameter for `fields`, or `nil` when there are none.
    public static func queryValue(for fields: [PubNubDataSyncSortField]) -> String? {
        fields.isEmpty ? nil : fields.map(\.description).joined(separator: ",")
    }
}
