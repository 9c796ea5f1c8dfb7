/// A failure to read a token, or to obtain one from a ``TokenProvider``.
///
/// ``code-swift.property`` can grow: match the codes you handle and keep a default branch.
/// Messages never contain a token in full; at most a short prefix and its length (see
/// ``TokenRedaction``). ``underlying`` keeps what a ``TokenProvider`` threw. Two auth errors are
/// equal when code, message and offset agree; ``underlying`` is not compared.
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The token text is empty (or only whitespace).
        public static let emptyToken = Code(rawValue: "emptyToken")
        /// The token text is not valid percent-encoded base64 or base64url.
        public static let invalidEncoding = Code(rawValue: "invalidEncoding")
        /// The CBOR data ends before the item it started is complete.
        public static let truncated = Code(rawValue: "truncated")
        /// The bytes are not well-formed CBOR (reserved values, a stray break, invalid UTF-8 text, …).
        public static let malformedCBOR = Code(rawValue: "malformedCBOR")
        /// Well-formed CBOR this reader does not accept, such as a map key that is not a string.
        public static let unsupportedCBOR = Code(rawValue: "unsupportedCBOR")
        /// A declared length, the nesting depth or the input size is beyond the reader's limits.
        public static let limitExceeded = Code(rawValue: "limitExceeded")
        /// The CBOR is fine but does not have the shape of an Access Manager token (a missing field,
        /// a field of the wrong type, a duplicate key).
        public static let invalidToken = Code(rawValue: "invalidToken")
        /// No token is set and no ``TokenProvider`` could supply one.
        public static let tokenUnavailable = Code(rawValue: "tokenUnavailable")
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence for people. Never contains a full token.
    public let message: String
    /// The byte offset in the decoded token (or in the token text for encoding errors) where the
    /// problem was found, when there is one.
    public let offset: Int?
    /// The error this one was made from (what a token provider threw), when there was one.
    public let underlying: (any Error)?

    /// Creates an error, as a ``TokenProvider`` may to say why it could not supply a token;
    /// `offset` and `underlying` default to none.
    public init(code: Code, message: String, offset: Int? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
        self.underlying = underlying
    }

    /// Compares code, message and offset.
    public static func == (lhs: AuthError, rhs: AuthError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.offset == rhs.offset
    }

    /// Hashes code, message and offset.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(offset)
    }

    /// The code, message and offset.
    public var description: String {
        if let offset {
            return "auth error (\(code)) at offset \(offset): \(message)"
        }
        return "auth error (\(code)): \(message)"
    }
}

/// Shortens a token for logs, errors and descriptions, so a secret is never printed in full.
///
/// ```swift
/// TokenRedaction.redact("qEF2AkF0GmEI03xDdHRsGDxD…")  // "qEF2Ak…(320 chars)"
/// ```
public enum TokenRedaction {
    /// How many leading characters ``redact(_:)`` keeps.
    public static let visiblePrefixLength = 6

    /// A short prefix of `token` and its length, e.g. `qEF2Ak…(320 chars)`. Tokens of twelve
    /// characters or fewer show no prefix at all.
    public static func redact(_ token: String) -> String {
        let count = token.count
        guard count > 2 * visiblePrefixLength else { return "…(\(count) chars)" }
        return String(token.prefix(visiblePrefixLength)) + "…(\(count) chars)"
    }
}
