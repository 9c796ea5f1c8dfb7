public import EmulatorHTTP
import Foundation

/// Hands each request to the first ``EmulatorService`` that claims it, and answers every
/// unclaimed request with a neutral `404`, `{"status":404,"error":true,"message":"Not Found"}`
/// (``notFoundResponse()``): each service answers its own paths in its own error shape, and a path
/// no service claims belongs to none of them.
///
/// When an ``EmulatorAuthorizer`` is set, it sees every claimed request first: it may refuse it
/// (its answer is sent and no service runs) or let it through, optionally narrowing the rows the
/// service may list (access control scopes lists to the objects a token may read) and rewriting
/// the answer (token projections).
///
/// A router the ``Emulator`` builds also keeps its in-memory request log (the console's live
/// request log): one entry per answered request, credentials redacted, admin routes left out.
/// Before any service it refuses host names a loopback emulator does not serve (DNS-rebinding
/// protection, ``EmulatorConfiguration/allowedHosts``), answers CORS preflights on the service
/// routes and adds `Access-Control-Allow-Origin: *` to their answers (never on `/_emulator/`).
///
/// Faults queued in the emulator's fault registry (`FaultRegistry`) are injected here, after the host check and
/// before the authorizer, so every route family gets them the same way and the admin routes never
/// do.
///
/// An absolute-form request (`GET http://host:port/path`) is read as its origin form
/// (`GET /path`), the target's authority standing in for `Host`.
///
/// The router starts no task of its own: a service's ``EmulatorService/respond(to:)`` runs in the
/// task that called ``handle(_:)``, so when the HTTP server cancels that task (client gone, server
/// stopping) the cancellation reaches whatever the service is waiting on.
///
/// The HTTP server first offers every request to ``respondImmediately(to:)``: an unclaimed path,
/// a refusal the authorizer makes at once, and whatever the claiming service answers at once
/// (``EmulatorService/respondImmediately(to:)``) are answered there, on the server's thread, with
/// the same answer and the same request-log entry as through ``handle(_:)``.
///
/// ```swift
/// let router = EmulatorRouter(services: [myService, anotherService])
/// let server = HTTPServer(handler: router)  // or: await router.handle(request)
/// ```
public struct EmulatorRouter: ServerHandler {
    /// The services, in the order they are asked.
    public let services: [any EmulatorService]
    /// Asked about every claimed request before its service; nil lets everything through.
    public let authorizer: (any EmulatorAuthorizer)?
    /// Records every answered request; nil records nothing.
    let requestLog: RequestLog?
    /// Refuses requests for host names a loopback emulator does not serve; nil answers any host.
    let hostPolicy: HostPolicy?
    /// CORS on the service routes; nil sends no CORS header.
    let cors: CORSPolicy?
    /// Faults injected before a service answers (never on the admin routes); nil injects none.
    let faults: FaultRegistry?

    /// Creates a router over `services`; earlier services win when several claim a request.
    public init(services: [any EmulatorService], authorizer: (any EmulatorAuthorizer)? = nil) {
        self.init(services: services, authorizer: authorizer, requestLog: nil)
    }

    init(
        services: [any EmulatorService], authorizer: (any EmulatorAuthorizer)?, requestLog: RequestLog?,
        hostPolicy: HostPolicy? = nil, cors: CORSPolicy? = nil, faults: FaultRegistry? = nil
    ) {
        self.services = services
        self.authorizer = authorizer
        self.requestLog = requestLog
        self.hostPolicy = hostPolicy
        self.cors = cors
        self.faults = faults
    }

    /// The service that would answer `request`, or nil when none claims it.
    public func service(for request: ServerRequest) -> (any EmulatorService)? {
        services.first { $0.claims(request) }
    }

    /// Answers `request` from the service that claims it, or with a `404` when none does; a
    /// parked answer (a held long-poll) is awaited, and cancelling the calling task cancels it.
    public func handle(_ request: ServerRequest) async -> ServerResponse {
        await reply(to: request).response
    }

    /// Answers `request` as ``handle(_:)`` does, except that a service that parks the request
    /// (a held long-poll with nothing to send yet) makes this return a pending reply at once.
    ///
    /// Everything the router adds to an answer (CORS headers, the authorizer's rewrite, an
    /// injected fault's change to the body, the request-log entry) is attached to a pending reply
    /// as transforms, so the answer sent when it completes is the one ``handle(_:)`` would give.
    public func reply(to request: ServerRequest) async -> ServerReply {
        let request = Self.originForm(request)
        guard let requestLog else { return await answer(request) }
        let receivedAt = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let reply = await answer(request)
        switch reply {
        case .response(let response):
            requestLog.record(
                request, response: response, receivedAt: receivedAt, duration: start.duration(to: clock.now))
            return reply
        case .pending(let pending):
            // Logged when the answer is known: when it is completed, or as cancelled (with the
            // 503 a held long-poll answered a cancelled task) when its client went away. Both
            // closures capture one small object (no context of their own), which keeps only the
            // fields the log line needs, not the request's headers and split target.
            let entry = RequestLog.PendingEntry(log: requestLog, request: request, receivedAt: receivedAt, start: start)
            pending.map { entry.record($0) }
            pending.whenCancelled { entry.recordCancelled() }
            return reply
        }
    }

    /// Answers `request` at once when nothing about it waits: no service claims it (`404`), the
    /// authorizer refuses it at once, or the claiming service answers it at once (after the
    /// authorizer allowed it at once). Otherwise returns `nil`, having changed nothing, and
    /// ``handle(_:)`` answers it. An answer given here is logged exactly as ``handle(_:)`` logs.
    public func respondImmediately(to request: ServerRequest) -> ServerResponse? {
        let request = Self.originForm(request)
        guard let requestLog else { return answerImmediately(request) }
        let receivedAt = Date()
        let clock = ContinuousClock()
        let start = clock.now
        guard let response = answerImmediately(request) else { return nil }
        requestLog.record(request, response: response, receivedAt: receivedAt, duration: start.duration(to: clock.now))
        return response
    }

    /// The answer to a request no service claims. PubNub's specifications name no answer for an
    /// unknown path; this is the classic service error object (`status`, `error`, `message`)
    /// without a `service`, so no client reads it as one service's refusal.
    public static func notFoundResponse() -> ServerResponse {
        ServerResponse(
            status: 404, headers: [("Content-Type", "application/json")],
            body: Array(#"{"status":404,"error":true,"message":"Not Found"}"#.utf8))
    }

    /// An absolute-form request (`GET http://host/path`, RFC 9112 section 3.2.2) as the
    /// origin-form one services read, its target's authority standing in for `Host`; any other
    /// request as it is.
    static func originForm(_ request: ServerRequest) -> ServerRequest {
        guard let (authority, target) = HostPolicy.absoluteForm(request.target) else { return request }
        var rewritten = request
        rewritten.target = target
        rewritten.headers.removeAll { $0.name.lowercased() == "host" }
        rewritten.headers.append((name: "Host", value: authority))
        return rewritten
    }

    /// What the router answers itself, before any service, on both paths: a refused host, or a
    /// CORS preflight on a service route; nil hands the request on.
    private func ownAnswer(_ request: ServerRequest) -> ServerResponse? {
        if let refusal = hostPolicy?.refusal(for: request) { return refusal }
        if let cors, request.method.uppercased() == "OPTIONS", cors.applies(to: request.rawPath) {
            return cors.preflight(request)
        }
        return nil
    }

    /// `response` with the CORS headers when `request` is on a service route.
    private func withCORS(_ response: ServerResponse, for request: ServerRequest) -> ServerResponse {
        guard let cors, cors.applies(to: request.rawPath) else { return response }
        return cors.decorate(response)
    }

    private func answerImmediately(_ request: ServerRequest) -> ServerResponse? {
        if let own = ownAnswer(request) { return own }
        return routeImmediately(request).map { withCORS($0, for: request) }
    }

    private func answer(_ request: ServerRequest) async -> ServerReply {
        if let own = ownAnswer(request) { return .response(own) }
        let reply = await route(request)
        guard let cors, cors.applies(to: request.rawPath) else { return reply }
        return reply.map { cors.decorate($0) }
    }

    private func routeImmediately(_ request: ServerRequest) -> ServerResponse? {
        guard let service = service(for: request) else {
            return Self.notFoundResponse()
        }
        // A fault may hold or replace the answer: decide it on the asynchronous path, once.
        if let faults, faults.mightMatch(request) { return nil }
        guard let authorizer else { return service.respondImmediately(to: request) }
        switch authorizer.authorizeImmediately(request) {
        case nil:
            return nil
        case .allow:
            return service.respondImmediately(to: request)
        case .allowRewriting(let rewrite):
            return service.respondImmediately(to: request).map(rewrite)
        case .allowScoped(let scope, let rewrite):
            guard let response = service.respondImmediately(to: request, scope: scope) else { return nil }
            return rewrite?(response) ?? response
        case .deny(let response):
            return response
        }
    }

    private func route(_ request: ServerRequest) async -> ServerReply {
        guard let service = service(for: request) else {
            return .response(Self.notFoundResponse())
        }
        // Before the authorizer, as a failing balancer or network answers before the service
        // looks at credentials.
        if let faults, let (action, family) = faults.take(request) {
            return await faults.apply(action, family: family) { await serve(request, by: service) }
        }
        return await serve(request, by: service)
    }

    private func serve(_ request: ServerRequest, by service: any EmulatorService) async -> ServerReply {
        guard let authorizer else { return await service.reply(to: request) }
        switch await authorizer.authorize(request) {
        case .allow:
            return await service.reply(to: request)
        case .allowRewriting(let rewrite):
            return await service.reply(to: request).mapAsync(rewrite)
        case .allowScoped(let scope, let rewrite):
            let reply = await service.reply(to: request, scope: scope)
            guard let rewrite else { return reply }
            return await reply.mapAsync(rewrite)
        case .deny(let response):
            return .response(response)
        }
    }
}
