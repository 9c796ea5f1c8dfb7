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
    private let parts: [[UInt8]]

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
        self.parts = parts
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
        if isCaseSensitive {
            if let result = text.utf8.withContiguousStorageIfAvailable({ match($0) }) { return result }
            return Array(text.utf8).withUnsafeBufferPointer { match($0) }
        }
        return Self.lowercasedBytes(text).withUnsafeBufferPointer { match($0) }
    }

    private func match(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard parts.count > 1 else { return Self.equal(text, 0, parts[0]) && text.count == parts[0].count }
        let first = parts[0]
        let last = parts[parts.count - 1]
        guard text.count >= first.count + last.count else { return false }
        guard Self.equal(text, 0, first), Self.equal(text, text.count - last.count, last) else { return false }
        var position = first.count
        let end = text.count - last.count
        // Taking the leftmost occurrence of each middle run is optimal for `*`-only patterns: it
        // leaves the most room for the runs after it.
        for part in parts[1..<(parts.count - 1)] where !part.isEmpty {
            guard let found = Self.find(part, in: text, from: position, to: end) else { return false }
            position = found + part.count
        }
        return true
    }

    private static func equal(_ text: UnsafeBufferPointer<UInt8>, _ offset: Int, _ part: [UInt8]) -> Bool {
        guard offset >= 0, offset + part.count <= text.count else { return false }
        for index in 0..<part.count where text[offset + index] != part[index] { return false }
        return true
    }

    private static func find(_ part: [UInt8], in text: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int)
        -> Int?
    {
        guard end - start >= part.count else { return nil }
        let firstByte = part[0]
        var index = start
        while index <= end - part.count {
            if text[index] == firstByte, equal(text, index, part) { return index }
            index += 1
        }
        return nil
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
