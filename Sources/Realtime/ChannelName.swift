/// The name of a channel or channel group as the subscribe protocol sees it: the presence
/// projection (`<name>-pnpres`) and wildcard patterns (`a.*`).
///
/// Keeps the protocol's naming rules in one type instead of string extensions.
///
/// ```swift
/// let room = ChannelName("room.1")
/// room.presence          // "room.1-pnpres"
/// ChannelName("room.*").matches("room.1")   // true
/// ```
public struct ChannelName: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The suffix that turns a channel or group name into its presence channel.
    public static let presenceSuffix = "-pnpres"

    /// The name as sent on the wire.
    public let rawValue: String

    /// Wraps a name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a name.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Wraps a literal name.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The name itself.
    public var description: String { rawValue }

    /// Orders names by their text.
    public static func < (lhs: ChannelName, rhs: ChannelName) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether this is a presence channel (`<name>-pnpres`).
    public var isPresence: Bool {
        rawValue.hasSuffix(Self.presenceSuffix) && rawValue.count > Self.presenceSuffix.count
    }

    /// The presence channel of this name; a presence channel is its own presence channel.
    public var presence: ChannelName {
        isPresence ? self : ChannelName(rawValue + Self.presenceSuffix)
    }

    /// The name without its presence suffix.
    public var base: ChannelName {
        isPresence ? ChannelName(String(rawValue.dropLast(Self.presenceSuffix.count))) : self
    }

    /// Whether this is a wildcard pattern: a prefix ending in `.` followed by a final `*`
    /// (`a.*`, `a.b.*`), with no other `*`. Its presence channel (`a.*-pnpres`) is a pattern too.
    public var isWildcard: Bool {
        let name = base.rawValue
        guard name.hasSuffix(".*"), name.count > 2 else { return false }
        return !name.dropLast().contains("*")
    }

    /// Whether a message on the concrete channel `channel` belongs to this name: equal names, or
    /// this pattern's prefix starts `channel` (`a.*` matches `a.b` and `a.b.c`, not `a` or `ab`).
    /// A presence pattern matches presence channels only.
    public func matches(_ channel: ChannelName) -> Bool {
        if self == channel { return true }
        guard isWildcard, isPresence == channel.isPresence else { return false }
        let prefix = base.rawValue.dropLast()
        let concrete = channel.base.rawValue
        return concrete.count > prefix.count && concrete.hasPrefix(prefix)
    }
}
