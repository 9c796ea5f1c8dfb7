/// The operations a token grants on one resource or pattern, as the Access Manager bit mask.
///
/// Bits the SDK does not know yet are kept in ``rawValue``.
///
/// ```swift
/// let bits: TokenPermission = [.read, .write]
/// bits.contains(.read)  // true
/// ```
public struct TokenPermission: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bit mask as it appears in the token.
    public let rawValue: UInt64

    /// Creates a permission set from its bit mask.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Read messages, or subscribe (1).
    public static let read = TokenPermission(rawValue: 1)
    /// Publish or write (2).
    public static let write = TokenPermission(rawValue: 2)
    /// Manage channel groups or memberships (4).
    public static let manage = TokenPermission(rawValue: 4)
    /// Delete (8).
    public static let delete = TokenPermission(rawValue: 8)
    /// Create DataSync objects (16).
    public static let create = TokenPermission(rawValue: 16)
    /// Get metadata or DataSync objects (32).
    public static let get = TokenPermission(rawValue: 32)
    /// Update metadata or DataSync objects (64).
    public static let update = TokenPermission(rawValue: 64)
    /// Join a channel (128).
    public static let join = TokenPermission(rawValue: 128)

    private static let named: [(TokenPermission, String)] = [
        (.read, "read"), (.write, "write"), (.manage, "manage"), (.delete, "delete"), (.create, "create"),
        (.get, "get"), (.update, "update"), (.join, "join"),
    ]

    /// The names of the set bits, e.g. `[read, manage]`; unknown bits appear as a number.
    public var description: String {
        var names = Self.named.filter { contains($0.0) }.map(\.1)
        let unknown = rawValue & ~0xFF
        if unknown != 0 { names.append("0x" + String(unknown, radix: 16)) }
        return "[" + names.joined(separator: ", ") + "]"
    }
}

/// A permission bucket of a token: the kind of resource its names or patterns refer to.
///
/// The static members are the bucket keys the service writes in tokens. A bucket this SDK does
/// not know decodes too, under its own name.
public struct TokenResourceBucket: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The key as it appears in the token.
    public let rawValue: String
    /// Creates a bucket from its key.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The key as it appears in the token, such as `chan`.
    public var description: String { rawValue }

    /// Channels (`chan`), shared by pub/sub, App Context and DataSync channels.
    public static let channels = TokenResourceBucket(rawValue: "chan")
    /// Channel groups (`grp`).
    public static let channelGroups = TokenResourceBucket(rawValue: "grp")
    /// User ids (`uuid`), also used for DataSync users.
    public static let uuids = TokenResourceBucket(rawValue: "uuid")
    /// Users of the earlier objects API (`usr`).
    public static let users = TokenResourceBucket(rawValue: "usr")
    /// Spaces of the earlier objects API (`spc`).
    public static let spaces = TokenResourceBucket(rawValue: "spc")
    /// DataSync entities (`datasync:entities`).
    public static let dataSyncEntities = TokenResourceBucket(rawValue: "datasync:entities")
    /// DataSync relationships (`datasync:relationships`).
    public static let dataSyncRelationships = TokenResourceBucket(rawValue: "datasync:relationships")
    /// DataSync memberships, keyed by membership id (`datasync:memberships`).
    public static let dataSyncMemberships = TokenResourceBucket(rawValue: "datasync:memberships")
}
