import Foundation

/// Something about the way a client is set up that deserves a developer's attention but does not
/// stop it from working, such as sending the token over plain HTTP to another machine.
///
/// A client reports each warning once, when it is created, to
/// ``PubNubConfiguration/warningHandler``. The default handler writes one line to standard
/// error; route warnings into your own logger, or set the handler to `nil` to silence them.
///
/// ```swift
/// var configuration = PubNubConfiguration(
///     publishKey: nil, subscribeKey: "sub-c-…", userId: "me",
///     origin: "proxy.internal:8080", useSecureConnections: false)
/// configuration.warningHandler = { warning in
///     print("pubnub:", warning.code, warning.message)
/// }
/// ```
public struct PubNubWarning: Sendable, Hashable, CustomStringConvertible {
    /// Which condition a warning is about. Compare against the static members; new codes may be
    /// added in minor releases.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name, for example `insecureConnection`.
        public let rawValue: String

        /// Wraps a raw name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Requests go over plain HTTP (``PubNubConfiguration/useSecureConnections`` is `false`)
        /// to a host that is not this machine: the token, the keys and every payload cross the
        /// network unencrypted. Loopback origins (the emulator) never raise it.
        public static let insecureConnection = Code(rawValue: "insecureConnection")

        /// The raw name.
        public var description: String { rawValue }
    }

    /// Which condition this is.
    public var code: Code
    /// A sentence saying what was found and what to do about it. It never contains the token.
    public var message: String

    /// Creates a warning.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `warning [code]: message`.
    public var description: String { "PubNub warning [\(code)]: \(message)" }

    /// The default ``PubNubConfiguration/warningHandler``: writes ``description`` and a newline
    /// to standard error.
    public static let standardErrorHandler: @Sendable (PubNubWarning) -> Void = { warning in
        FileHandle.standardError.write(Data((warning.description + "\n").utf8))
    }

    /// The warnings a client with this configuration and origin raises when it is created.
    static func warnings(for origin: PubNubOrigin) -> [PubNubWarning] {
        guard origin.scheme == "http", !origin.isLoopback else { return [] }
        return [
            PubNubWarning(
                code: .insecureConnection,
                message: "requests to \(origin) use plain HTTP, so the auth token, the keys and every payload "
                    + "can be read on the network; set useSecureConnections to true unless this origin is a "
                    + "trusted proxy or a local emulator")
        ]
    }
}
