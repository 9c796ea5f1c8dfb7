import Foundation

/// How much a log record matters, from the most detailed to the most serious.
public enum PubNubLogLevel: Int, Comparable, Sendable, CaseIterable, CustomStringConvertible {
    /// Every step: each request sent and each answer received.
    case debug = 0
    /// What an app developer follows: connections made, statuses, gaps.
    case info = 1
    /// Something went wrong and the SDK recovers on its own (a failed request it retries, a
    /// dropped connection it re-establishes, an event it could not fully read).
    case warning = 2
    /// Something went wrong that the app must handle (a call that failed for good).
    case error = 3

    /// Whether `lhs` is less serious than `rhs`.
    public static func < (lhs: PubNubLogLevel, rhs: PubNubLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `debug`, `info`, `warning` or `error`.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// Which part of the SDK a record comes from. An open set: compare with the static members.
public struct PubNubLogCategory: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The category's name.
    public let rawValue: String
    /// Wraps a name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The category's name.
    public var description: String { rawValue }

    /// HTTP requests and answers (every REST call, publish and subscribe request).
    public static let network = PubNubLogCategory(rawValue: "network")
    /// The subscribe loop: connections, reconnections, its statuses.
    public static let subscribe = PubNubLogCategory(rawValue: "subscribe")
    /// Presence heartbeats and leaves.
    public static let presence = PubNubLogCategory(rawValue: "presence")
    /// Message encryption and decryption.
    public static let crypto = PubNubLogCategory(rawValue: "crypto")
    /// DataSync: gaps, incomplete events, live views.
    public static let datasync = PubNubLogCategory(rawValue: "datasync")
    /// The local emulator.
    public static let emulator = PubNubLogCategory(rawValue: "emulator")
}

/// One log record. The SDK and the emulator write no secret into one: auth tokens and signatures
/// in URLs and secret headers are `REDACTED`, and keys (publish, subscribe, secret, cipher) never
/// appear.
public struct PubNubLogRecord: Sendable, Hashable, CustomStringConvertible {
    /// How much it matters.
    public var level: PubNubLogLevel
    /// Which part of the SDK wrote it.
    public var category: PubNubLogCategory
    /// What happened, one line.
    public var message: String

    /// Creates a record.
    public init(level: PubNubLogLevel, category: PubNubLogCategory, message: String) {
        self.level = level
        self.category = category
        self.message = message
    }

    /// `[warning] subscribe: …`
    public var description: String { "[\(level)] \(category): \(message)" }
}

/// Receives the SDK's log records. Set one on `PubNubConfiguration.logger` (or, for the local
/// emulator, `EmulatorConfiguration.logger`); there is none by default, and then nothing is
/// formatted at all.
///
/// Records below ``minimumLevel`` are never built, so a logger at `.warning` costs nothing per
/// successful request. Implementations are called from any task or thread, concurrently, and
/// should return quickly: the SDK waits while `log` runs.
///
/// An adapter to another logging system is a few lines (Documentation/Logging.md shows
/// swift-log and `os.Logger`):
///
/// ```swift
/// struct PrintingLogger: PubNubLogger {
///     var minimumLevel: PubNubLogLevel { .info }
///     func log(_ record: PubNubLogRecord) { print(record) }
/// }
/// configuration.logger = PrintingLogger()
/// ```
public protocol PubNubLogger: Sendable {
    /// The least important level this logger wants; records below it are not built.
    var minimumLevel: PubNubLogLevel { get }
    /// Whether records of `category` are wanted at all (all of them by default).
    func wants(_ category: PubNubLogCategory) -> Bool
    /// Handles one record.
    func log(_ record: PubNubLogRecord)
}

extension PubNubLogger {
    /// Every category.
    public func wants(_ category: PubNubLogCategory) -> Bool { true }

    /// Whether a record of `level` and `category` would be handled.
    public func isEnabled(_ level: PubNubLogLevel, _ category: PubNubLogCategory) -> Bool {
        level >= minimumLevel && wants(category)
    }

    /// Builds and logs a record when ``isEnabled(_:_:)`` says so; `message` runs only then.
    public func log(
        _ level: PubNubLogLevel, _ category: PubNubLogCategory, _ message: @autoclosure () -> String
    ) {
        guard isEnabled(level, category) else { return }
        log(PubNubLogRecord(level: level, category: category, message: message()))
    }
}

/// A logger that writes each record as one line to standard error, from `minimumLevel` up, in
/// the categories given (all when `categories` is nil).
///
/// ```swift
/// configuration.logger = StandardErrorLogger(minimumLevel: .debug, categories: [.network, .subscribe])
/// ```
public struct StandardErrorLogger: PubNubLogger {
    /// The least important level written.
    public var minimumLevel: PubNubLogLevel
    /// The categories written; nil for all.
    public var categories: Set<PubNubLogCategory>?

    /// Creates the logger.
    public init(minimumLevel: PubNubLogLevel = .info, categories: Set<PubNubLogCategory>? = nil) {
        self.minimumLevel = minimumLevel
        self.categories = categories
    }

    /// Whether `category` is among ``categories``.
    public func wants(_ category: PubNubLogCategory) -> Bool { categories?.contains(category) ?? true }

    /// Writes `PubNub [level] category: message` and a newline to standard error.
    public func log(_ record: PubNubLogRecord) {
        FileHandle.standardError.write(Data("PubNub \(record)\n".utf8))
    }
}

/// A logger that hands each record to a closure: for tests, and for a quick adapter.
public struct ClosureLogger: PubNubLogger {
    /// The least important level handed over.
    public var minimumLevel: PubNubLogLevel
    private let handler: @Sendable (PubNubLogRecord) -> Void

    /// Creates the logger.
    public init(minimumLevel: PubNubLogLevel = .debug, _ handler: @escaping @Sendable (PubNubLogRecord) -> Void) {
        self.minimumLevel = minimumLevel
        self.handler = handler
    }

    /// Calls the closure.
    public func log(_ record: PubNubLogRecord) { handler(record) }
}
