/// Where a list result stands: whether more objects follow, and the cursor that fetches them.
///
/// Pagination is forward-only; there is no previous-page cursor. Pass ``cursor`` as the `cursor`
/// argument of the same list call to get the next page.
///
/// ```swift
/// var cursor: String?
/// repeat {
///     let (users, next) = try await pubnub.dataSync.getUsers(cursor: cursor, limit: 100)
///     handle(users)
///     cursor = next?.hasNext == true ? next?.cursor : nil
/// } while cursor != nil
/// ```
public struct PubNubDataSyncPage: Hashable, Sendable, Codable {
    /// Whether another page follows this one.
    public var hasNext: Bool
    /// The opaque cursor of the next page; `nil` on the last page.
    public var cursor: String?
    /// The page size the service applied, which may differ from the requested `limit`.
    public var limit: Int?

    /// Creates a page description.
    public init(hasNext: Bool, cursor: String? = nil, limit: Int? = nil) {
        self.hasNext = hasNext
        self.cursor = cursor
        self.limit = limit
    }

    private enum CodingKeys: String, CodingKey {
        case hasNext = "has_next"
        case cursor = "next_cursor"
        case limit
    }

    /// Reads the wire form of the list `meta` object (`has_next`, `next_cursor`, `limit`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hasNext = try container.decodeIfPresent(Bool.self, forKey: .hasNext) ?? false
        cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
        limit = try container.decodeIfPresent(Int.self, forKey: .limit)
    }

    /// Writes the wire form of the list `meta` object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hasNext, forKey: .hasNext)
        try container.encodeIfPresent(cursor, forKey: .cursor)
        try container.encodeIfPresent(limit, forKey: .limit)
    }
}
