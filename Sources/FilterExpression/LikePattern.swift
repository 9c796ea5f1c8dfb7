/// A compiled `LIKE`/`SLIKE`/`ILIKE` pattern.
///
/// In the pattern text `*` matches any run of characters, including none; every other character
/// matches itself. `\*` matches a literal asterisk and `\\` a literal backslash; a backslash before
/// anything else is an ordinary character. (In an expression, `"a\*b"` reaches the pattern as
/// `a\*b`, because the tokenizer keeps `\*` as is; see ``FilterTokenizer``.)
///
/// Case-insensitive patterns compare the Unicode default lower-case mapping of both sides; all
/// comparison is by Unicode scalar, without normalisation.
///
/// Matching takes time linear in the text plus the pattern, whatever either holds (the literal
/// runs between wildcards are found with a Knuth–Morris–Pratt search).
///
/// ```swift
/// LikePattern("*sneaker*", caseSensitive: false).matches("Red SNEAKERS")  // true
/// LikePattern("a\\*", caseSensitive: true).matches("a*")                   // true (literal star)
/// ```
public struct LikePattern: Hashable, Sendable {
    /// The pattern text as given.
    public let pattern: String
    /// Whether letter case must match (`SLIKE`).
    public let isCaseSensitive: Bool
    /// The literal runs between wildcards (UTF-8, lower-cased when case-insensitive); there is one
    /// more run than there are wildcards, so a pattern without `*` has exactly one.
    private let matcher: WildcardMatcher<UInt8>

    /// Compiles `pattern`.
    public init(_ pattern: String, caseSensitive: Bool) {
        self.pattern = pattern
        self.isCaseSensitive = caseSensitive
        var parts: [[UInt8]] = [[]]
        var bytes = Array(pattern.utf8)[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "*") {
                parts.append([])
            } else if byte == UInt8(ascii: "\\"), let next = bytes.first,
                next == UInt8(ascii: "*") || next == UInt8(ascii: "\\")
            {
                parts[parts.count - 1].append(next)
                bytes.removeFirst()
            } else {
                parts[parts.count - 1].append(byte)
            }
        }
        if !caseSensitive {
            parts = parts.map { Array(Self.lowercased(String(decoding: $0, as: UTF8.self)).utf8) }
        }
        matcher = WildcardMatcher(pieces: parts)
    }

    /// Whether both have the same pattern text and case sensitivity (everything else is derived
    /// from those two).
    public static func == (lhs: LikePattern, rhs: LikePattern) -> Bool {
        lhs.pattern == rhs.pattern && lhs.isCaseSensitive == rhs.isCaseSensitive
    }

    /// Hashes the pattern text and case sensitivity, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(isCaseSensitive)
    }

    /// The pattern for one of the pattern operators (`LIKE` and `ILIKE` ignore case, `SLIKE`
    /// does not); `nil` for other operators.
    public init?(_ pattern: String, for op: FilterOperator) {
        switch op {
        case .like, .ilike: self.init(pattern, caseSensitive: false)
        case .slike: self.init(pattern, caseSensitive: true)
        default: return nil
        }
    }

    /// Escapes `*` and `\` in `literal`, so that the result, used as a pattern, matches exactly
    /// `literal`. Combine it with wildcards: `"*" + LikePattern.escape(userInput) + "*"`.
    public static func escape(_ literal: String) -> String {
        var output = ""
        for scalar in literal.unicodeScalars {
            if scalar == "*" || scalar == "\\" { output += "\\" }
            output.unicodeScalars.append(scalar)
        }
        return output
    }

    /// Whether `text` matches the whole pattern.
    public func matches(_ text: String) -> Bool {
        var steps = 0
        return matches(text, steps: &steps)
    }

    /// ``matches(_:)``, adding to `steps` the byte comparisons it made (tests check the count
    /// stays linear in the text plus the pattern).
    package func matches(_ text: String, steps: inout Int) -> Bool {
        if isCaseSensitive {
            var counted = 0
            if let result = text.utf8.withContiguousStorageIfAvailable({ matcher.matches($0, steps: &counted) }) {
                steps += counted
                return result
            }
            return Array(text.utf8).withUnsafeBufferPointer { matcher.matches($0, steps: &steps) }
        }
        return Self.lowercasedBytes(text).withUnsafeBufferPointer { matcher.matches($0, steps: &steps) }
    }

    static func lowercased(_ text: String) -> String {
        text.utf8.allSatisfy { $0 < 0x80 } ? String(decoding: lowercasedBytes(text), as: UTF8.self) : text.lowercased()
    }

    /// Lower-cased UTF-8 bytes, with a fast path for ASCII.
    static func lowercasedBytes(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        for index in bytes.indices {
            let byte = bytes[index]
            if byte >= 0x80 { return Array(text.lowercased().utf8) }
            if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { bytes[index] = byte + 32 }
        }
        return bytes
    }
}
