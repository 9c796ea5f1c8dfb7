/// An error parsing a JSON Pointer, decoding a patch, applying it, or computing a diff.
///
/// ``code-swift.property`` says what went wrong in a form code can match. When the error came from
/// ``Patch/apply(_:to:)``, ``operationIndex`` is the position of the operation that failed (counting
/// from zero) and ``pointer`` the JSON Pointer it was working on; ``message`` says why in words.
///
/// ```swift
/// do {
///     try document.apply(operations)
/// } catch let error where error.code == .testFailed {
///     print("guard failed in operation \(error.operationIndex ?? -1): \(error.message)")
/// }
/// ```
public struct PatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A kind of patch error. New codes may be added; match the ones you handle and keep a default.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// A JSON Pointer that is not empty and does not start with `/`, or has a `~` not followed by
        /// `0` or `1`.
        public static let invalidPointer = Code(rawValue: "invalidPointer")
        /// An operation that is not a valid RFC 6902 operation (unknown `op`, missing member).
        public static let invalidOperation = Code(rawValue: "invalidOperation")
        /// The value the pointer names (or one of its parents) does not exist.
        public static let pathNotFound = Code(rawValue: "pathNotFound")
        /// A reference token used on an array that is not an index: not digits, a leading zero, or
        /// `-` where an existing element is needed.
        public static let invalidArrayIndex = Code(rawValue: "invalidArrayIndex")
        /// An array index past the end of the array.
        public static let indexOutOfRange = Code(rawValue: "indexOutOfRange")
        /// The pointer goes through a value that is neither an object nor an array.
        public static let notAContainer = Code(rawValue: "notAContainer")
        /// A `test` operation found a different value.
        public static let testFailed = Code(rawValue: "testFailed")
        /// A `move` whose `from` location is a proper prefix of its `path`: a value cannot be moved
        /// into one of its own children.
        public static let moveIntoDescendant = Code(rawValue: "moveIntoDescendant")
        /// An operation that would remove the whole document.
        public static let cannotRemoveRoot = Code(rawValue: "cannotRemoveRoot")
        /// An `Encodable` value given to a diff could not be converted to JSON.
        public static let encodingFailed = Code(rawValue: "encodingFailed")
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for people saying why.
    public var message: String
    /// The position (from zero) of the failing operation in the patch, when applying a patch.
    public var operationIndex: Int?
    /// The JSON Pointer involved, as written.
    public var pointer: String?

    /// Creates an error in the shape ``Patch`` reports; `operationIndex` and `pointer` default to
    /// unknown.
    public init(code: Code, message: String, operationIndex: Int? = nil, pointer: String? = nil) {
        self.code = code
        self.message = message
        self.operationIndex = operationIndex
        self.pointer = pointer
    }

    /// The message with the failing operation's position.
    public var description: String {
        var text = "JSON Patch error (\(code))"
        if let operationIndex { text += " in operation \(operationIndex)" }
        return text + ": " + message
    }
}
