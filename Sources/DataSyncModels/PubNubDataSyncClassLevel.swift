/// Where a DataSync class is registered: the scope in which its name is resolved.
///
/// The service defines the set of levels, so this is an open set: a level this SDK does not know
/// decodes into a value holding the server's string instead of failing.
///
/// ```swift
/// let employee = try await pubnub.dataSync.createUser(
///     className: "Employee", classVersion: 1, classLevel: .subKey)
/// ```
public struct PubNubDataSyncClassLevel: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The level exactly as the service spells it (`Global`, `SubKey`, …).
    public let rawValue: String

    /// Creates a level from its wire name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a level from a string literal holding its wire name.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Built-in classes such as `User`, `Channel` and `Membership` (`Global`).
    public static let global = PubNubDataSyncClassLevel(rawValue: "Global")
    /// Classes a developer registered on the subscribe key (`SubKey`).
    public static let subKey = PubNubDataSyncClassLevel(rawValue: "SubKey")
    /// Account-wide classes (`Account`). Known to the wire format; the service may reject it.
    public static let account = PubNubDataSyncClassLevel(rawValue: "Account")

    /// The wire name.
    public var description: String { rawValue }

    /// Decodes the wire name, keeping values this SDK does not know.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the wire name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
