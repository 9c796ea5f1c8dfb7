/// A sort specification: an ordered list of properties, each ascending or descending, serialised
/// as the `sort` query parameter: `name,price:desc`.
///
/// Entries are separated by `,` and taken verbatim: no trimming, and a leading `-` or `+` is part
/// of the property name (so `-price` names a property called `-price`, which no class declares).
/// A `:desc` suffix sorts descending; `:asc` (the default) is accepted; the suffix is matched
/// without regard to letter case.
///
/// ```swift
/// let sort = try FilterSort(parsing: "name,price:desc")
/// sort.fields[1]          // Field(property: "price", ascending: false)
/// sort.description        // "name,price:desc"
/// ```
public struct FilterSort: Hashable, Sendable, CustomStringConvertible {
    /// One sort key.
    public struct Field: Hashable, Sendable {
        /// The property name.
        public var property: String
        /// `true` for ascending order (the default), `false` for descending.
        public var ascending: Bool

        /// Creates a sort key.
        public init(_ property: String, ascending: Bool = true) {
            self.property = property
            self.ascending = ascending
        }
    }

    /// The sort keys, most significant first.
    public var fields: [Field]

    /// Creates a sort specification from keys.
    public init(_ fields: [Field]) { self.fields = fields }

    /// Parses the `sort` parameter's text. An empty string is an empty specification.
    ///
    /// - Throws: the first ``FilterError`` (``FilterError/Code/emptySortField`` or
    ///   ``FilterError/Code/invalidSortDirection``); ``FilterValidator/validateSort(_:alongside:)-(String,_)``
    ///   reports all of them.
    public init(parsing text: String) throws(FilterError) {
        let result = Self.scan(text)
        if let first = result.problems.first { throw first }
        self.fields = result.entries.map(\.field)
    }

    /// The serialised form: entries joined by `,`, descending ones suffixed with `:desc`.
    public var description: String {
        fields.map { $0.ascending ? $0.property : $0.property + ":desc" }.joined(separator: ",")
    }

    struct Entry {
        var field: Field
        var range: Range<Int>
    }

    /// Splits `text` into entries with their UTF-8 ranges, collecting every syntax problem.
    static func scan(_ text: String) -> (entries: [Entry], problems: [FilterError]) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return ([], []) }
        var entries: [Entry] = []
        var problems: [FilterError] = []
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
            let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":"))
            let nameEnd = colon ?? end
            var ascending = true
            var valid = true
            if nameEnd == start {
                valid = false
                problems.append(
                    FilterError(
                        code: .emptySortField, summary: "empty sort entry", expected: "a property name",
                        found: colon == nil ? (end < bytes.count ? "`,`" : "end of input") : "`:`",
                        range: start..<start, source: text))
            }
            if let colon {
                let direction = String(decoding: bytes[(colon + 1)..<end], as: UTF8.self)
                switch direction.lowercased() {
                case "asc": ascending = true
                case "desc": ascending = false
                default:
                    valid = false
                    problems.append(
                        FilterError(
                            code: .invalidSortDirection, summary: "sort direction must be `asc` or `desc`",
                            expected: "`asc` or `desc`",
                            found: direction.isEmpty ? "nothing" : "`\(direction)`",
                            range: (colon + 1)..<max(end, colon + 1), source: text))
                }
            }
            if valid {
                let name = String(decoding: bytes[start..<nameEnd], as: UTF8.self)
                entries.append(Entry(field: Field(name, ascending: ascending), range: start..<nameEnd))
            }
            start = end + 1
        }
        return (entries, problems)
    }
}
