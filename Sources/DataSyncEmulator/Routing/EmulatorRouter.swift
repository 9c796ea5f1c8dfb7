public import EmulatorHTTP
import Foundation

/// Hands each request to the first ``EmulatorService`` that claims it, and answers every
/// unclaimed request with `404` and the error envelope
/// `{"errors":[{"errorCode":"DS-0100","message":"no such resource: <path>"}]}`.
///
/// When an ``EmulatorAuthorizer`` is set, it sees every claimed request first: it may refuse it
/// (its answer is sent and no service runs) or let it through, optionally narrowing the rows the
/// service may list (access control scopes lists to the objects a token may read) and rewriting
/// the answer (token projections).
///
/// A router the ``Emulator`` builds also keeps its in-memory request log (the console's live
/// request log): one entry per answered request, credentials redacted, admin routes left out.
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

    /// Creates a router over `services`; earlier services win when several claim a request.
    public init(services: [any EmulatorService], authorizer: (any EmulatorAuthorizer)? = nil) {
        self.init(services: services, authorizer: authorizer, requestLog: nil)
    }

    init(services: [any EmulatorService], authorizer: (any EmulatorAuthorizer)?, requestLog: RequestLog?) {
        self.services = services
        self.authorizer = authorizer
        self.requestLog = requestLog
    }

    /// The service that would answer `request`, or nil when none claims it.
    public func service(for request: ServerRequest) -> (any EmulatorService)? {
        services.first { $0.claims(request) }
    }

    /// Answers `request` from the service that claims it, or with a `404` when none does.
    public func handle(_ request: ServerRequest) async -> ServerResponse {
        guard let requestLog else { return await answer(request) }
        let receivedAt = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let response = await answer(request)
        requestLog.record(request, response: response, receivedAt: receivedAt, duration: start.duration(to: clock.now))
        return response
    }

    /// Answers `request` at once when nothing about it waits: no service claims it (`404`), the
    /// authorizer refuses it at once, or the claiming service answers it at once (after the
    /// authorizer allowed it at once). Otherwise returns `nil`, having changed nothing, and
    /// ``handle(_:)`` answers it. An answer given here is logged exactly as ``handle(_:)`` logs.
    public func respondImmediately(to request: ServerRequest) -> ServerResponse? {
        guard let requestLog else { return answerImmediately(request) }
        let receivedAt = Date()
        let clock = ContinuousClock()
        let start = clock.now
        guard let response = answerImmediately(request) else { return nil }
        requestLog.record(request, response: response, receivedAt: receivedAt, duration: start.duration(to: clock.now))
        return response
    }

    private func answerImmediately(_ request: ServerRequest) -> ServerResponse? {
        guard let service = service(for: request) else {
            return Engine.errorResponse(.notFound("no such resource: \(request.rawPath)"))
        }
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

    private func answer(_ request: ServerRequest) async -> ServerResponse {
        guard let service = service(for: request) else {
            return Engine.errorResponse(.notFound("no such resource: \(request.rawPath)"))
        }
        guard let authorizer else { return await service.respond(to: request) }
        switch await authorizer.authorize(request) {
        case .allow:
            return await service.respond(to: request)
        case .allowRewriting(let rewrite):
            return await rewrite(await service.respond(to: request))
        case .allowScoped(let scope, let rewrite):
            let response = await service.respond(to: request, scope: scope)
            guard let rewrite else { return response }
            return await rewrite(response)
        case .deny(let response):
            return response
        }
    }
}
