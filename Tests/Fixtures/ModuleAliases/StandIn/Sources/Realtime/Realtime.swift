/// The other package's `Realtime` module, reduced to one type.
public struct RealtimeClient: Sendable {
    /// Creates the stand-in.
    public init() {}
    /// Names the stand-in, so the app shows which module it reached.
    public var name: String { "stand-in Realtime" }
}
