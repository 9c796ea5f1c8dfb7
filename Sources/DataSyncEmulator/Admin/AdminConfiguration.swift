/// How the emulator's admin API and web console behave (Documentation/Emulator.md, "Admin
/// routes" and "Web console").
public struct AdminConfiguration: Sendable {
    /// Whether the admin routes and the console are served under ``Emulator/adminPathPrefix``.
    /// When off, the prefix stays reserved: its paths answer `404`. Default on.
    public var enabled: Bool
    /// The admin secret (`Authorization: Bearer <secret>`). When set, every admin API call needs
    /// it. When nil, a random secret is made and needed only once access control is on for a
    /// keyset or the emulator serves on an address that is not loopback.
    public var secret: String?
    /// How many requests the in-memory request log keeps. Default 1,000.
    public var requestLogCapacity: Int
    /// How many DataSync changes the console's live stream and object histories keep. Default
    /// 10,000.
    public var changeBufferCapacity: Int

    /// Creates a configuration; every value starts at its documented default.
    public init(
        enabled: Bool = true, secret: String? = nil, requestLogCapacity: Int = 1_000, changeBufferCapacity: Int = 10_000
    ) {
        self.enabled = enabled
        self.secret = secret
        self.requestLogCapacity = requestLogCapacity
        self.changeBufferCapacity = changeBufferCapacity
    }
}
