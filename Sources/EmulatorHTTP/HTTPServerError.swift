/// An error starting the emulator's HTTP server.
public struct HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a growable set of codes.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public var rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `start()` was called on a server that was already started (servers are single-use).
        public static let alreadyStarted = Code(rawValue: "alreadyStarted")
        /// The configured host is not an IP address literal or `localhost`.
        public static let invalidAddress = Code(rawValue: "invalidAddress")
        /// The address could not be bound, for example because the port is in use.
        public static let bindFailed = Code(rawValue: "bindFailed")
        /// Another system call failed (creating the socket, the wake-up pipe, or the thread).
        public static let systemCallFailed = Code(rawValue: "systemCallFailed")
        /// The configuration holds a value out of range.
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for people, including the system error where there is one.
    public var message: String

    /// Creates an error in the shape ``HTTPServer`` throws, for handlers and tests that report
    /// server-side failures the same way.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The code and message.
    public var description: String { "HTTPServerError.\(code): \(message)" }
}
