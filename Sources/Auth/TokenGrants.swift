import Foundation

/// The permissions of one part of a token (its exact resources, or its patterns), per bucket.
///
/// Buckets present in the token stay present even when empty, so a parsed token can be compared
/// field by field with what was granted.
public struct TokenGrants: Sendable, Hashable {
    /// Names (or patterns) and their permissions, per bucket.
    public var buckets: [TokenResourceBucket: [String: TokenPermission]]

    /// Creates grants from a bucket table.
    public init(_ buckets: [TokenResourceBucket: [String: TokenPermission]] = [:]) {
        self.buckets = buckets
    }

    /// The entries of `bucket`, empty when the token has none.
    public subscript(bucket: TokenResourceBucket) -> [String: TokenPermission] {
        buckets[bucket] ?? [:]
    }

    /// Whether no bucket holds an entry.
    public var isEmpty: Bool { buckets.values.allSatisfy(\.isEmpty) }

    /// The number of entries across all buckets.
    public var count: Int { buckets.values.reduce(0) { $0 + $1.count } }
}

/// Matching of Access Manager patterns against resource names.
enum TokenPattern {
    /// Patterns longer than this never match: the service would not mint them, and a very long
    /// expression is more likely a mistake or an attack than a grant.
    static let maximumPatternLength = 1024

    /// Whether the regular expression `pattern` matches anywhere in `name`, as the service applies
    /// patterns unanchored. An invalid or overlong pattern never matches.
    static func matches(_ pattern: String, _ name: String) -> Bool {
        guard pattern.utf16.count <= maximumPatternLength,
            let expression = try? NSRegularExpression(pattern: pattern)
        else { return false }
        let range = NSRange(name.startIndex..<name.endIndex, in: name)
        return expression.firstMatch(in: name, options: [], range: range) != nil
    }
}
