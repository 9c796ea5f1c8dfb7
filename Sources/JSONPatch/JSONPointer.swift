public import JSONCore

/// An RFC 6901 JSON Pointer: a path to one value inside a JSON document.
///
/// A pointer is a list of reference tokens. Its text form is empty for the whole document, or each
/// token preceded by `/`, with `~` written as `~0` and `/` as `~1` inside a token.
///
/// ```swift
/// let pointer = try JSONPointer("/payload/sizes~1eu/0")
/// pointer.tokens             // ["payload", "sizes/eu", "0"]
/// JSONPointer.payload.appending("a/b").description  // "/payload/a~1b"
/// ```
///
/// On arrays a token must be an index: digits only, no leading zeros (`0`, `7`, `12`, never `07`),
/// or `-`, which names the position after the last element (only `add` may use it).
///
/// Tokens compare by Unicode scalars (RFC 6901 §4), as object member names do in `JSONObject`:
/// `/é` (U+00E9) and `/e\u{301}` are different pointers and name different members, although
/// Swift's `String` calls the two spellings equal.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The unescaped reference tokens, outermost first. Empty for the whole document.
    public let tokens: [String]

    /// The pointer to the whole document (`""`).
    public static let root = JSONPointer(tokens: [])

    /// The pointer to a DataSync object's payload (`/payload`), where user fields live.
    public static let payload = JSONPointer(tokens: ["payload"])

    /// The token that names the position after the last element of an array.
    public static let endOfArray = "-"

    /// Creates a pointer from unescaped reference tokens. Any string is a valid token.
    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Parses the text form of a pointer.
    ///
    /// - Throws: ``PatchError`` with code ``PatchError/Code-swift.struct/invalidPointer`` when the text
    ///   is neither empty nor starts with `/`, or has a `~` not followed by `0` or `1`.
    public init(_ text: String) throws(PatchError) {
        let bytes = text.utf8
        guard let first = bytes.first else {
            self.tokens = []
            return
        }
        guard first == UInt8(ascii: "/") else {
            throw PatchError(
                code: .invalidPointer, message: "JSON Pointer \"\(text)\" must be empty or start with \"/\"",
                pointer: text)
        }
        var tokens: [String] = []
        var tokenStart = bytes.index(after: bytes.startIndex)
        var index = tokenStart
        var hasTilde = false
        while true {
            if index == bytes.endIndex || bytes[index] == UInt8(ascii: "/") {
                let segment = bytes[tokenStart..<index]
                tokens.append(
                    hasTilde ? try Self.unescape(segment, in: text) : String(decoding: segment, as: UTF8.self))
                if index == bytes.endIndex { break }
                index = bytes.index(after: index)
                tokenStart = index
                hasTilde = false
            } else {
                if bytes[index] == UInt8(ascii: "~") { hasTilde = true }
                index = bytes.index(after: index)
            }
        }
        self.tokens = tokens
    }

    /// The text form: empty for the whole document, otherwise `/`-separated escaped tokens.
    /// Parsing it gives back an equal pointer.
    public var description: String {
        var text = ""
        for token in tokens {
            text += "/"
            text += Self.escape(token)
        }
        return text
    }

    /// Whether this pointer names the whole document.
    public var isRoot: Bool { tokens.isEmpty }

    /// The last reference token, or `nil` for the whole document.
    public var lastToken: String? { tokens.last }

    /// The pointer to the value that contains this one, or `nil` for the whole document.
    public var parent: JSONPointer? {
        tokens.isEmpty ? nil : JSONPointer(tokens: Array(tokens.dropLast()))
    }

    /// This pointer with one more (unescaped) token: a member name or an array index.
    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
    }

    /// This pointer with the array index `index` appended.
    public func appending(index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// This pointer with more (unescaped) tokens appended.
    public func appending(contentsOf more: some Sequence<String>) -> JSONPointer {
        JSONPointer(tokens: tokens + more)
    }

    /// This pointer followed by all the tokens of `other`.
    public func appending(_ other: JSONPointer) -> JSONPointer {
        JSONPointer(tokens: tokens + other.tokens)
    }

    /// Whether this pointer is `other` or one of its ancestors (tokens compared by scalars).
    public func isPrefix(of other: JSONPointer) -> Bool {
        other.tokens.count >= tokens.count && other.tokens.starts(with: tokens, by: ScalarText.equal)
    }

    /// Whether this pointer is an ancestor of `other` (a prefix that is not `other` itself).
    public func isProperPrefix(of other: JSONPointer) -> Bool {
        other.tokens.count > tokens.count && other.tokens.starts(with: tokens, by: ScalarText.equal)
    }

    /// Whether both pointers have the same tokens, compared by Unicode scalars.
    public static func == (lhs: JSONPointer, rhs: JSONPointer) -> Bool {
        lhs.tokens.elementsEqual(rhs.tokens, by: ScalarText.equal)
    }

    /// Hashes consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(tokens.count)
        for token in tokens { ScalarText.hash(token, into: &hasher) }
    }

    /// The value this pointer names in `document`, or `nil` when there is none (a missing member, an
    /// index out of range or not an index, or a path through a string, number, Boolean or null).
    public func value(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Self.arrayIndex(token), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// `token` escaped for the text form: `~` becomes `~0`, then `/` becomes `~1`.
    public static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return token
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.utf8.count + 4)
        for byte in token.utf8 {
            switch byte {
            case UInt8(ascii: "~"): bytes += [UInt8(ascii: "~"), UInt8(ascii: "0")]
            case UInt8(ascii: "/"): bytes += [UInt8(ascii: "~"), UInt8(ascii: "1")]
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The array index a token denotes under RFC 6901: ASCII digits with no leading zero (`0` itself is
    /// fine), small enough for `Int`. `nil` for anything else, including `-`.
    public static func arrayIndex(_ token: String) -> Int? {
        let bytes = token.utf8
        guard let first = bytes.first, bytes.count <= 18 else { return nil }
        if first == UInt8(ascii: "0") { return bytes.count == 1 ? 0 : nil }
        var result = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return result
    }

    private static func unescape(_ segment: Substring.UTF8View, in text: String) throws(PatchError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.count)
        var index = segment.startIndex
        while index != segment.endIndex {
            let byte = segment[index]
            index = segment.index(after: index)
            guard byte == UInt8(ascii: "~") else {
                bytes.append(byte)
                continue
            }
            let next = index == segment.endIndex ? nil : segment[index]
            switch next {
            case UInt8(ascii: "0"): bytes.append(UInt8(ascii: "~"))
            case UInt8(ascii: "1"): bytes.append(UInt8(ascii: "/"))
            default:
                throw PatchError(
                    code: .invalidPointer,
                    message: "JSON Pointer \"\(text)\" has \"~\" not followed by \"0\" or \"1\"", pointer: text)
            }
            index = segment.index(after: index)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension JSONPointer: Codable {
    /// Decodes a pointer from its text form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try JSONPointer(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    /// Encodes the text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
