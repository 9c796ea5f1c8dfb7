/// An error reading, writing or converting JSON.
///
/// ``code-swift.property`` says what went wrong in a form code can match; ``offset`` is the byte
/// offset in the input where the parser stopped, when the error came from parsing bytes;
/// ``path`` is the coding path for errors raised while encoding or decoding `Codable` values.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of JSON error. New codes may be added; match the ones you handle and keep a default.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The input ended before the document was complete.
        public static let unexpectedEnd = Code(rawValue: "unexpectedEnd")
        /// A byte that cannot start or continue a value here.
        public static let unexpectedCharacter = Code(rawValue: "unexpectedCharacter")
        /// Bytes after the end of the document that are not white space.
        public static let trailingData = Code(rawValue: "trailingData")
        /// The input is not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// A malformed escape sequence in a string, or a lone surrogate.
        public static let invalidEscape = Code(rawValue: "invalidEscape")
        /// An unescaped control character inside a string.
        public static let controlCharacterInString = Code(rawValue: "controlCharacterInString")
        /// A number that does not follow the JSON grammar (`NaN`, `Infinity`, `01`, `1.`, …).
        public static let invalidNumber = Code(rawValue: "invalidNumber")
        /// A number too large in magnitude for `Double`.
        public static let numberOutOfRange = Code(rawValue: "numberOutOfRange")
        /// Arrays and objects nested deeper than the configured limit.
        public static let nestingTooDeep = Code(rawValue: "nestingTooDeep")
        /// An object with the same key twice.
        public static let duplicateKey = Code(rawValue: "duplicateKey")
        /// `NaN` or an infinity cannot be written as JSON.
        public static let nonFiniteNumber = Code(rawValue: "nonFiniteNumber")
        /// A value of another JSON type than the one asked for.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A required key or element is missing.
        public static let valueNotFound = Code(rawValue: "valueNotFound")
        /// A value of the right type that cannot be represented (for example `300` as `UInt8`).
        public static let dataCorrupted = Code(rawValue: "dataCorrupted")
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for people, naming what was expected and what was found.
    public let message: String
    /// The byte offset in the parsed input, for parse errors.
    public let offset: Int?
    /// The coding path (`"items[2].price"`), for `Codable` conversion errors.
    public let path: String?

    /// Creates an error, for code that reports JSON problems in the same shape as the parser (a
    /// custom `init(from:)`, a validating wrapper); `offset` and `path` default to unknown.
    public init(code: Code, message: String, offset: Int? = nil, path: String? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
        self.path = path
    }

    /// The message with its location.
    public var description: String {
        var text = "JSON error (\(code)): \(message)"
        if let offset { text += " at byte \(offset)" }
        if let path, !path.isEmpty { text += " at \(path)" }
        return text
    }
}
