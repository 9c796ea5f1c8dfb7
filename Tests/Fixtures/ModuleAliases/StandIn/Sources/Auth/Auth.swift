/// The other package's `Auth` module, reduced to one type.
public struct AuthClient: Sendable {
    public init() {}
    public var name: String { "stand-in Auth" }
}
