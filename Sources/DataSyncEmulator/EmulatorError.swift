/// A failure setting up or persisting the emulator (not a REST error: those are answered to the
/// client in the DataSync error envelope).
public struct EmulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. Open set: new codes may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code name.
        public var description: String { rawValue }

        /// A class definition document is malformed or refers to unknown classes.
        public static let invalidClasses = Code(rawValue: "invalidClasses")
        /// A seed document is malformed or one of its objects was refused.
        public static let invalidSeed = Code(rawValue: "invalidSeed")
        /// The state file exists but cannot be read back; it is left untouched.
        public static let corruptStateFile = Code(rawValue: "corruptStateFile")
        /// Reading or writing a file failed.
        public static let fileAccess = Code(rawValue: "fileAccess")
        /// The HTTP server could not start.
        public static let serverStart = Code(rawValue: "serverStart")
        /// Another emulator holds the state file (its `<state file>.lock`); the message names its
        /// process.
        public static let stateFileInUse = Code(rawValue: "stateFileInUse")
        /// The configuration is refused before anything starts, such as a keyset with an empty
        /// secret key or a subscribe key of `.` or `..`.
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
    }

    /// The kind of failure.
    public var code: Code
    /// What failed and where (a JSON Pointer into the document when there is one).
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
