package import DataSyncModels
import JSONCore
package import Transport

/// Where requests go: scheme, host and port parsed from the configuration's origin.
package struct DataSyncOrigin: Sendable, Hashable {
    package var scheme: String
    package var host: String
    package var port: Int?

    /// Parses `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 literal.
    package init(origin: String, secure: Bool) throws {
        scheme = secure ? "https" : "http"
        func invalid(_ why: String) -> PubNubError {
            PubNubError(reason: .invalidConfiguration, message: "origin \"\(origin)\" \(why)")
        }
        guard !origin.isEmpty else { throw invalid("is empty") }
        guard !origin.contains("/") else {
            throw invalid("must be a host with an optional port, without scheme or path")
        }
        var hostPart = Substring(origin)
        var portPart: Substring?
        if origin.hasPrefix("[") {
            guard let close = origin.firstIndex(of: "]") else { throw invalid("has an unclosed IPv6 bracket") }
            hostPart = origin[origin.index(after: origin.startIndex)..<close]
            let rest = origin[origin.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid("has text after the IPv6 address") }
                portPart = rest.dropFirst()
            }
        } else if let colon = origin.firstIndex(of: ":"), origin.lastIndex(of: ":") == colon {
            hostPart = origin[..<colon]
            portPart = origin[origin.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw invalid("has no host") }
        host = String(hostPart)
        if let portPart {
            guard let number = Int(portPart), (1...65_535).contains(number) else {
                throw invalid("has an invalid port \"\(portPart)\"")
            }
            port = number
        }
    }
}

/// The shared machinery behind every DataSync method: builds the HTTP request, sends it through
/// the middleware chain and maps the answer to a model or a ``PubNubError``.
package struct DataSyncEngine: Sendable {
    package let configuration: PubNubConfiguration
    let origin: Result<DataSyncOrigin, PubNubError>
    let transport: Result<any HTTPClient, PubNubError>
    let middlewares: [any HTTPMiddleware]
    let filterValidator: DataSyncFilterValidator

    package init(
        configuration: PubNubConfiguration, transport: Result<any HTTPClient, PubNubError>,
        middlewares: [any HTTPMiddleware], filterValidator: DataSyncFilterValidator
    ) {
        self.configuration = configuration
        self.origin = Result {
            try DataSyncOrigin(origin: configuration.origin, secure: configuration.useSecureConnections)
        }
        .mapError { $0.pubNubError ?? PubNubError(reason: .invalidConfiguration, message: "\($0)") }
        self.transport = transport
        self.middlewares = middlewares
        self.filterValidator = filterValidator
    }

    /// The full HTTP request for `call`: origin, path, operation query plus `uuid` and `pnsdk`
    /// (sorted by name), headers and body. The auth middleware adds `auth` later.
    package func httpRequest(for call: DataSyncCall, custom: PubNub.RequestConfiguration) throws -> HTTPRequest {
        let origin = try self.origin.get()
        var query = call.query
        query.append(HTTPQueryItem(name: "uuid", value: configuration.userId))
        query.append(HTTPQueryItem(name: "pnsdk", value: PubNub.pnsdk))
        query.sort { $0.name < $1.name }
        query.append(contentsOf: custom.queryParameters)
        var headers = call.headers
        for field in custom.headers { headers.add(name: field.name, value: field.value) }
        return HTTPRequest(
            method: call.method, scheme: origin.scheme, host: origin.host, port: origin.port,
            path: call.path(subscribeKey: configuration.subscribeKey), queryItems: query, headers: headers,
            body: call.body, timeout: custom.timeout ?? configuration.requestTimeout)
    }

    /// Sends `call` and returns a 2xx response, or throws a ``PubNubError``.
    package func send(_ call: DataSyncCall, custom: PubNub.RequestConfiguration) async throws -> HTTPResponse {
        let request = try httpRequest(for: call, custom: custom)
        let base = try custom.transport ?? transport.get()
        let client: any HTTPClient =
            middlewares.isEmpty ? base : MiddlewareClient(client: base, middlewares: middlewares)
        if Task.isCancelled { throw Self.cancelled(CancellationError()) }
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            throw Self.map(error)
        }
        guard response.isSuccess else {
            throw PubNubError(statusCode: response.status, body: response.body)
        }
        return response
    }

    /// Sends `call` and decodes the single object of its answer.
    package func object<T: DataSyncWireConvertible>(
        _ type: T.Type, _ call: DataSyncCall, custom: PubNub.RequestConfiguration
    ) async throws -> T {
        let response = try await send(call, custom: custom)
        return try Self.withStatus(response.status) { try DataSyncEnvelope.object(type, from: response.body) }
    }

    /// Sends `call` and decodes the objects and page of its answer.
    package func list<T: DataSyncWireConvertible>(
        _ type: T.Type, _ call: DataSyncCall, custom: PubNub.RequestConfiguration
    ) async throws -> ([T], PubNubDataSyncPage?) {
        let response = try await send(call, custom: custom)
        return try Self.withStatus(response.status) { try DataSyncEnvelope.list(type, from: response.body) }
    }

    /// Checks the filter arguments locally when the configuration asks for it.
    package func validate(filterFast: String?, filter: String?, sort: [PubNubDataSyncSortField]) throws {
        try filterValidator.validate(filterFast: filterFast, filter: filter, sort: sort)
    }

    private static func withStatus<R>(_ status: Int, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch var error as PubNubError {
            error.statusCode = error.statusCode ?? status
            throw error
        }
    }

    static func cancelled(_ underlying: any Error) -> PubNubError {
        PubNubError(reason: .requestCancelled, message: "the request was cancelled", underlying: underlying)
    }

    /// Maps what a transport or middleware threw to a ``PubNubError``.
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
    /// context.
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
