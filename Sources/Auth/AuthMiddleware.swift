import JSONCore
public import Transport

/// Adds the current token to requests as the `auth` query parameter, and recovers from expired
/// tokens through a ``TokenProvider``.
///
/// - Every request gets `auth=<token>` (replacing any `auth` it had) except the time endpoint
///   (`/time/…`), which the service serves without credentials.
/// - With no token set and a provider configured, the provider is asked first; without a
///   provider the request goes out without `auth` and the service decides (401 where
///   Access Manager is on).
/// - When the service answers 403 with the message "Token is expired.", the provider is asked
///   once for a new token and the request is resent once with it. A second failure is returned
///   as is: there is never more than one refresh and one retry per request. Resending is safe
///   even for non-idempotent requests because the service refused the first one before acting.
/// - Concurrent requests share one provider call (see ``TokenStore``).
/// - With no token set, a provider that fails makes the call throw ``AuthError`` with
///   ``AuthError/Code-swift.struct/tokenUnavailable``; otherwise errors are those of the rest of
///   the chain.
///
/// The SDK never signs requests and never holds a secret key: a client only sends the token
/// your server gave it.
///
/// ```swift
/// let store = TokenStore(token: initialToken)
/// let client = httpClient.with([AuthMiddleware(store: store, provider: myProvider)])
/// ```
public struct AuthMiddleware: CallerIsolatedMiddleware {
    /// The query parameter carrying the token.
    public static let queryName = "auth"
    /// The message the service sends (HTTP 403) for a token past its TTL.
    public static let expiredTokenMessage = "Token is expired."

    /// Where the token is read from on every request.
    public let store: TokenStore
    /// Asked for a token when none is set or the current one expired; `nil` to never ask.
    public let provider: (any TokenProvider)?

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - store: Where the current token is kept; share it with whatever replaces the token
    ///     (`PubNub.set(token:)` does).
    ///   - provider: Asked for a token when none is set and once after a "Token is expired." refusal;
    ///     `nil` never asks, and requests without a token go out without `auth`.
    public init(store: TokenStore, provider: (any TokenProvider)? = nil) {
        self.store = store
        self.provider = provider
    }

    /// Whether `request` goes out without a token: the time endpoint (`/time/0`).
    public static func isExempt(_ request: HTTPRequest) -> Bool {
        request.path == "/time" || request.path.hasPrefix("/time/")
    }

    /// Whether `response` is the service's 403 for an expired token.
    ///
    /// The full body of that answer is not documented, so the message is looked for wherever the
    /// service puts messages: `message`, `error` (text or an object with `message`),
    /// `error_message`, `errors[].message`, `payload.message`, or a plain-text body.
    public static func isExpiredToken(_ response: HTTPResponse) -> Bool {
        guard response.status == 403 else { return false }
        guard let body = try? JSONValue(parsing: response.body) else {
            return mentionsExpiry(String(decoding: response.body, as: UTF8.self))
        }
        var messages: [JSONValue?] = [
            body["message"], body["error"], body["error"]?["message"], body["error_message"],
            body["payload"]?["message"],
        ]
        for item in body["errors"]?.arrayValue ?? [] {
            messages.append(item["message"])
        }
        return messages.contains { $0?.stringValue.map(mentionsExpiry) ?? false }
    }

    private static func mentionsExpiry(_ text: String) -> Bool {
        text.lowercased().contains("token is expired")
    }

    /// Sends `request` with the token, refreshing it once if the service says it expired.
    ///
    /// - Throws: ``AuthError`` with ``AuthError/Code-swift.struct/tokenUnavailable`` when no token
    ///   is set and the provider fails; otherwise whatever `next` throws.
    package func interceptOnCallersActor(
        _ request: HTTPRequest, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        if Self.isExempt(request) {
            return try await next(Self.withToken(nil, request))
        }
        var current = store.snapshot
        if current.token == nil, let provider {
            do {
                current = try await store.refresh(using: provider, reason: .missing, replacing: current.generation)
            } catch let error as CancellationError {
                throw error
            } catch {
                throw AuthError(
                    code: .tokenUnavailable, message: "no token is set and the token provider failed: \(error)",
                    underlying: error)
            }
        }
        let response = try await next(Self.withToken(current.token, request))
        guard let provider, Self.isExpiredToken(response) else { return response }
        let fresh: TokenStore.Snapshot
        do {
            fresh = try await store.refresh(using: provider, reason: .expired, replacing: current.generation)
        } catch let error as CancellationError {
            throw error
        } catch {
            return response
        }
        guard let token = fresh.token, token != current.token else { return response }
        return try await next(Self.withToken(token, request))
    }

    private static func withToken(_ token: String?, _ request: HTTPRequest) -> HTTPRequest {
        var request = request
        // Checked first: `removeAll(where:)` on the shared array copies it even when nothing matches.
        if request.queryItems.contains(where: { $0.name == queryName }) {
            request.queryItems.removeAll { $0.name == queryName }
        }
        if let token {
            request.queryItems.append(HTTPQueryItem(name: queryName, value: token))
        }
        return request
    }
}
