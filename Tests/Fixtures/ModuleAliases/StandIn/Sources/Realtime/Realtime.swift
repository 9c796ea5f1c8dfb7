/// The other package's `Realtime` module, reduced to one type.
public struct RealtimeClient: Sendable {
    public init() {}
    public var name: String { "stand-in Realtime" }
}
