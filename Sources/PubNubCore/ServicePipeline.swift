package import Auth
package import PubNubBase
package import Transport

/// The one road every PubNub request takes, whatever the feature: origin, identity stamping
/// (`uuid`, `pnsdk`), the middleware chain (retry, auth, the user's middlewares), the transport,
/// and the mapping of failures to `PubNubError`.
///
/// Features build their path, operation query, headers and body, then call ``request(_:custom:)``
/// and ``send(_:chain:custom:)``. REST calls use ``Chain/retrying``; the subscribe loop, which owns
/// its reconnection, uses ``Chain/direct`` and still passes through auth and the user's
/// middlewares.
///
/// A class, not a struct: every call copies the facade values that hold it (`pubnub.dataSync`,
/// the engines), and a struct of this many references costs a retain and a release of each per
/// copy, which showed up in the profile of 16 concurrent `getUser` (issue 34 §1).
package final class ServicePipeline: Sendable {
    /// Which middlewares a request passes through.
    package enum Chain: Sendable, Hashable {
        /// Retry (per the configured or per-request policy), then auth, then the user's middlewares.
        case retrying
        /// Auth and the user's middlewares, never resent here: the caller decides what a failure
        /// means (a long-poll reconnects with a new handshake, not by repeating itself).
        case direct
    }

    /// The feature-specific part of a request: everything but origin, identity and credentials.
    package struct Call: Sendable, Hashable {
        package var method: HTTPMethod
        /// The percent-encoded path.
        package var path: String
        /// The operation's parameters; `uuid` and `pnsdk` are added by the pipeline.
        package var query: [HTTPQueryItem]
        package var headers: HTTPHeaders
        package var body: [UInt8]?

        package init(
            method: HTTPMethod, path: String, query: [HTTPQueryItem] = [], headers: HTTPHeaders = HTTPHeaders(),
            body: [UInt8]? = nil
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
        }
    }

    package let configuration: PubNubConfiguration
    package let origin: Result<PubNubOrigin, PubNubError>
    package let transport: Result<any HTTPClient, PubNubError>
    /// Auth first (so every retry attempt carries the current token), then the user's middlewares.
    package let middlewares: [any HTTPMiddleware]
    /// Where the outcome of each request to the origin is reported (see ``exchange(_:chain:custom:reportsOriginHealth:)``).
    package let originHealth = OriginHealth()

    /// Assembles the pipeline of a client: its transport (the configured one, or the platform's
    /// default backend), the auth middleware over `tokenStore`, then the configured middlewares.
    package init(
        configuration: PubNubConfiguration, origin: Result<PubNubOrigin, PubNubError>, tokenStore: TokenStore
    ) {
        self.configuration = configuration
        self.origin = origin
        if let configured = configuration.transport {
            transport = .success(configured)
        } else {
            transport = Result { try PlatformHTTPClient.make() }
                .mapError { error in
                    PubNubError(
                        reason: .invalidConfiguration, message: "no HTTP transport could be created: \(error)",
                        underlying: error)
                }
        }
        // With a logger that wants network records, every attempt is logged (inside the retry,
        // after auth, so the line shows the token's place, redacted).
        let logging: [any HTTPMiddleware] =
            configuration.logger.map { logger in
                logger.wants(.network)
                    ? [LoggingMiddleware(sink: NetworkLogSink(logger: logger), includesHeaders: false)] : []
            } ?? []
        middlewares =
            [AuthMiddleware(store: tokenStore, provider: configuration.tokenProvider)] + configuration.middlewares
            + logging
    }

    /// The full HTTP request for `call`: origin, path, the operation query plus `uuid` and `pnsdk`
    /// (sorted by name), then the per-request extra parameters in their order, headers and body.
    /// The auth middleware adds `auth` when the request is sent.
    ///
    /// - Throws: `PubNubError` `.invalidConfiguration` when the origin is malformed.
    package func request(_ call: Call, custom: PubNub.RequestConfiguration) throws(PubNubError) -> HTTPRequest {
        let origin = try self.origin.get()
        var query = call.query
        query.reserveCapacity(call.query.count + 2 + custom.queryParameters.count)
        query.append(HTTPQueryItem(name: "uuid", value: configuration.userId))
        query.append(HTTPQueryItem(name: "pnsdk", value: PubNub.pnsdk))
        query.sort { $0.name < $1.name }
        query.append(contentsOf: custom.queryParameters)
        var headers = call.headers
        for field in custom.headers { headers.add(name: field.name, value: field.value) }
        return HTTPRequest(
            method: call.method, scheme: origin.scheme, host: origin.host, port: origin.port, path: call.path,
            queryItems: query, headers: headers, body: call.body,
            timeout: custom.timeout ?? configuration.requestTimeout)
    }

    /// Builds the request for `call` and sends it on the retrying chain, as every plain service
    /// operation does; see ``exchange(_:chain:custom:reportsOriginHealth:)``.
    package func exchange(
        _ call: Call, custom: PubNub.RequestConfiguration
    ) async throws(PubNubError) -> HTTPResponse {
        try await exchange(try request(call, custom: custom), chain: .retrying, custom: custom)
    }

    /// Sends `request` through `chain` and returns whatever the service answered, whatever its
    /// status; only a failure to exchange it throws. On the retrying chain the call's deadline
    /// (per request, else the configuration's) bounds every attempt and wait together. For callers that read error answers
    /// themselves (a `Retry-After` on 429, a pub/sub error array).
    ///
    /// Unless `reportsOriginHealth` is `false` (the subscribe loop's own requests), the outcome of
    /// a request to this pipeline's origin is reported to ``originHealth``: any answer as
    /// reachable, a connection that could not be made, was lost or timed out as such. On the
    /// retrying chain that is the outcome after the retries.
    ///
    /// - Throws: `PubNubError` mapped from the transport or a middleware (see ``map(_:)``).
    package func exchange(
        _ request: HTTPRequest, chain: Chain, custom: PubNub.RequestConfiguration, reportsOriginHealth: Bool = true
    ) async throws(PubNubError) -> HTTPResponse {
        let base: any HTTPClient
        if let override = custom.transport {
            base = override
        } else {
            base = try transport.get()
        }
        var links = middlewares
        var request = request
        if chain == .retrying {
            let policy = custom.retryPolicy ?? configuration.retryPolicy
            let deadline = custom.deadline ?? configuration.deadline
            if policy.allowsRetry(0) {
                links.insert(
                    RetryMiddleware(policy: policy, clock: configuration.clock, deadline: deadline), at: 0)
            } else if let deadline {
                // One attempt: the deadline is its timeout when that is shorter.
                request.timeout = min(request.timeout ?? deadline, deadline)
            }
        }
        let client: any HTTPClient = links.isEmpty ? base : MiddlewareClient(client: base, middlewares: links)
        if Task.isCancelled { throw Self.cancelled(CancellationError()) }
        let sequence = reportsOriginHealth && isOwnOrigin(request) ? originHealth.begin() : nil
        do {
            let response = try await client.send(request)
            if let sequence { originHealth.report(.answered, sequence: sequence) }
            return response
        } catch {
            if let sequence, !Task.isCancelled, let outcome = OriginHealth.outcome(for: error) {
                originHealth.report(outcome, sequence: sequence)
            }
            throw Self.map(error)
        }
    }

    /// Whether `request` goes to this pipeline's origin (a call may be sent elsewhere, such as a
    /// file upload to storage, and says nothing about the origin then).
    private func isOwnOrigin(_ request: HTTPRequest) -> Bool {
        guard case .success(let origin) = origin else { return false }
        return request.host == origin.host && request.port == origin.port && request.scheme == origin.scheme
    }

    /// Sends `request` and returns its 2xx answer.
    ///
    /// - Throws: `PubNubError`: from the transport (see ``map(_:)``), or built from a status outside
    ///   200...299 and its body (`PubNubError(statusCode:body:)`).
    package func send(
        _ request: HTTPRequest, chain: Chain = .retrying, custom: PubNub.RequestConfiguration
    ) async throws(PubNubError) -> HTTPResponse {
        let response = try await exchange(request, chain: chain, custom: custom)
        guard response.isSuccess else {
            throw PubNubError(statusCode: response.status, body: response.body)
        }
        return response
    }

    /// Builds and sends `call`; see ``request(_:custom:)`` and ``send(_:chain:custom:)``.
    package func send(
        _ call: Call, chain: Chain = .retrying, custom: PubNub.RequestConfiguration
    ) async throws(PubNubError) -> HTTPResponse {
        try await send(try request(call, custom: custom), chain: chain, custom: custom)
    }

    /// The error of a request that ended because its task was cancelled.
    package static func cancelled(_ underlying: any Error) -> PubNubError {
        PubNubError(reason: .requestCancelled, message: "the request was cancelled", underlying: underlying)
    }

    /// Maps what a transport or middleware threw to a `PubNubError`, keeping the original as
    /// ``PubNubError/underlying``.
    package static func map(_ error: any Error) -> PubNubError {
        if let error = error as? PubNubError { return error }
        if error is CancellationError { return cancelled(error) }
        guard let transport = error as? TransportError else {
            return PubNubError(reason: .transportFailure, message: "the request failed: \(error)", underlying: error)
        }
        let reason: PubNubError.Reason
        switch transport.code {
        case .timedOut: reason = .requestTimedOut
        case .cannotConnect, .cannotResolveHost, .connectionLost, .tls: reason = .connectionFailure
        case .cancelled: reason = .requestCancelled
        case .invalidRequest, .unavailable: reason = .invalidConfiguration
        default: reason = .transportFailure
        }
        return PubNubError(reason: reason, message: transport.message, underlying: transport)
    }

    /// Runs `operation` in a new task and hands its result to `completion` in the configured
    /// ``PubNub/CompletionContext``: the completion form of every `async` method.
    package func complete<T: Sendable>(
        _ completion: (@Sendable (Result<T, any Error>) -> Void)?, _ operation: @escaping @Sendable () async throws -> T
    ) {
        let context = configuration.completionContext
        Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            guard let completion else { return }
            context.run { completion(result) }
        }
    }
}
