import Foundation

/// Stand-ins for modules a documentation snippet imports but this package cannot have: swift-log's
/// `Logging` (an external package) and Apple's `os` (Apple platforms only). Each declares, with
/// the real module's names and signatures, only the part of its API the snippets use, so a snippet
/// marked `<!-- snippet: stand-in NAME -->` type-checks against it together with this package's
/// real modules. What this catches: a snippet that no longer fits this package's API (the
/// `PubNubLogger` protocol, record fields, levels). What it cannot catch: a change in the other
/// module's API after these declarations were written.
enum StandInModules {
    /// The stand-in source for `module`, or nil where the real module exists (Apple's `os` on
    /// Apple platforms) or no stand-in is written.
    static func source(for module: String) -> String? {
        switch module {
        case "Logging": return logging
        case "os":
            #if canImport(os)
                return nil
            #else
                return os
            #endif
        default: return nil
        }
    }

    /// Whether `module` can be type-checked here, with a stand-in or the real module.
    static func isAvailable(_ module: String) -> Bool {
        #if canImport(os)
            if module == "os" { return true }
        #endif
        return source(for: module) != nil
    }

    /// swift-log 1.x: `Logger`, its levels, messages and metadata, and `log(level:_:…)`.
    static let logging = """
        public struct Logger: Sendable {
            public let label: String
            public init(label: String) { self.label = label }

            public enum Level: String, Codable, CaseIterable, Sendable {
                case trace, debug, info, notice, warning, error, critical
            }

            public struct Message: ExpressibleByStringLiteral, ExpressibleByStringInterpolation, Sendable {
                public typealias StringLiteralType = String
                public typealias StringInterpolation = DefaultStringInterpolation
                public let text: String
                public init(stringLiteral value: String) { text = value }
                public init(stringInterpolation: DefaultStringInterpolation) { text = String(stringInterpolation: stringInterpolation) }
            }

            public enum MetadataValue: Sendable {
                case string(String)
            }

            public typealias Metadata = [String: MetadataValue]

            public func log(
                level: Logger.Level, _ message: @autoclosure () -> Logger.Message,
                metadata: @autoclosure () -> Logger.Metadata? = nil, source: @autoclosure () -> String? = nil,
                file: String = #fileID, function: String = #function, line: UInt = #line
            ) {}
        }
        """

    /// Apple's unified logging (`os.Logger`, iOS 14 / macOS 11): the level methods and the
    /// interpolation with a privacy argument.
    static let os = """
        public struct OSLogPrivacy: Sendable {
            public static let auto = OSLogPrivacy()
            public static let `public` = OSLogPrivacy()
            public static let `private` = OSLogPrivacy()
            public static let sensitive = OSLogPrivacy()
        }

        public struct OSLogStringAlignment: Sendable {
            public static let none = OSLogStringAlignment()
        }

        public struct OSLogInterpolation: StringInterpolationProtocol {
            public init(literalCapacity: Int, interpolationCount: Int) {}
            public mutating func appendLiteral(_ literal: String) {}
            public mutating func appendInterpolation(
                _ argumentString: @autoclosure @escaping () -> String, align: OSLogStringAlignment = .none,
                privacy: OSLogPrivacy = .auto
            ) {}
        }

        public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
            public init(stringInterpolation: OSLogInterpolation) {}
            public init(stringLiteral value: String) {}
        }

        public struct Logger: Sendable {
            public init(subsystem: String, category: String) {}
            public func debug(_ message: OSLogMessage) {}
            public func info(_ message: OSLogMessage) {}
            public func notice(_ message: OSLogMessage) {}
            public func warning(_ message: OSLogMessage) {}
            public func error(_ message: OSLogMessage) {}
            public func fault(_ message: OSLogMessage) {}
        }
        """
}
