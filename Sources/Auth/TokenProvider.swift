/// Why the SDK asks a ``TokenProvider`` for a token.
public struct TokenRefreshReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The reason's stable name.
    public let rawValue: String
    /// Creates a reason from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The reason's name.
    public var description: String { rawValue }

    /// No token is set yet (or it was cleared).
    public static let missing = TokenRefreshReason(rawValue: "missing")
    /// The service answered 403 "Token is expired." to the current token.
    public static let expired = TokenRefreshReason(rawValue: "expired")
}

/// Supplies tokens from your own server, for apps whose tokens expire while they run.
///
/// ## Contract
/// - ``token(for:)`` is called when a request is about to go out with no token set, and once
///   more when the service answers 403 "Token is expired."; the failed request is then retried
///   once with the new token.
/// - Calls never overlap for one ``TokenStore``: however many requests need a token at once, one
///   call serves them all.
/// - Finish promptly (give your own network call a timeout): every request that needs the token
///   waits for this call, and a request cancelled meanwhile still waits for it to end.
/// - Return a token your server obtained from Access Manager with its secret key. Never put the
///   secret key in the app.
/// - Throw when no token can be had. A request without any token then fails with ``AuthError``
///   (``AuthError/Code-swift.struct/tokenUnavailable``); a request whose token expired gets the
///   service's original 403 response.
///
/// ```swift
/// struct MyServerTokens: TokenProvider {
///     let api: MyBackend
///     func token(for reason: TokenRefreshReason) async throws -> String {
///         try await api.fetchPubNubToken(userID: "user-42")
///     }
/// }
/// ```
public protocol TokenProvider: Sendable {
    /// Returns a token to use from now on.
    ///
    /// - Parameter reason: why a token is needed.
    /// - Throws: any error when no token can be obtained.
    func token(for reason: TokenRefreshReason) async throws -> String
}

/// A ``TokenProvider`` backed by a closure.
///
/// ```swift
/// let provider = ClosureTokenProvider { _ in try await backend.freshToken() }
/// ```
public struct ClosureTokenProvider: TokenProvider {
    private let body: @Sendable (TokenRefreshReason) async throws -> String

    /// Creates a provider that calls `body` for each token.
    public init(_ body: @escaping @Sendable (TokenRefreshReason) async throws -> String) {
        self.body = body
    }

    /// Returns what the closure returns.
    public func token(for reason: TokenRefreshReason) async throws -> String {
        try await body(reason)
    }
}
