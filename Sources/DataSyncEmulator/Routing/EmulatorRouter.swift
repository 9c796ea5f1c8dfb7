public import EmulatorHTTP

/// Hands each request to the first ``EmulatorService`` that claims it, and answers every
/// unclaimed request with `404` and the error envelope
/// `{"errors":[{"errorCode":"DS-0100","message":"no such resource: <path>"}]}`.
///
/// The router starts no task of its own: a service's ``EmulatorService/respond(to:)`` runs in the
/// task that called ``handle(_:)``, so when the HTTP server cancels that task (client gone, server
/// stopping) the cancellation reaches whatever the service is waiting on.
///
/// ```swift
/// let router = EmulatorRouter(services: [myService, anotherService])
/// let server = HTTPServer(handler: router)  // or: await router.handle(request)
/// ```
public struct EmulatorRouter: ServerHandler {
    /// The services, in the order they are asked.
    public let services: [any EmulatorService]

    /// Creates a router over `services`; earlier services win when several claim a request.
    public init(services: [any EmulatorService]) {
        self.services = services
    }

    /// The service that would answer `request`, or nil when none claims it.
    public func service(for request: ServerRequest) -> (any EmulatorService)? {
        services.first { $0.claims(request) }
    }

    /// Answers `request` from the service that claims it, or with a `404` when none does.
    public func handle(_ request: ServerRequest) async -> ServerResponse {
        guard let service = service(for: request) else {
            return Engine.errorResponse(.notFound("no such resource: \(request.rawPath)"))
        }
        return await service.respond(to: request)
    }
}
