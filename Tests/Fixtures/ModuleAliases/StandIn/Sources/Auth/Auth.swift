/// The other package's `Auth` module, reduced to one type.
public struct AuthClient: Sendable {
    /// Creates the stand-in.
    public init() {}
    /// Names the stand-in, so the app shows which module it reached.
    public var name: String { "stand-in Auth" }
}
