public import EmulatorHTTP

/// One part of the emulator's API, owning its own state: the DataSync REST API, publish and
/// subscribe, presence, access control and the admin routes are each one.
///
/// An ``EmulatorRouter`` asks its services, in order, whether they ``claims(_:)`` a request and
/// hands the request to the first that does. A conforming type must guarantee:
///
/// - ``claims(_:)`` is quick, synchronous and has no side effects: it runs for every request,
///   before any service is awaited. Claim by path prefix (`/v1/datasync/`, `/v2/subscribe/`) or any
///   other test on the raw request.
/// - ``respond(to:)`` may suspend for as long as the protocol it emulates says (a subscribe
///   long-poll waits minutes for a message), but it waits on its *own* state (an actor of its own,
///   a continuation, a sleep on the ``EmulatorClock``), never while holding another service's
///   actor, so one held request never delays any other request.
/// - When the task running ``respond(to:)`` is cancelled (the client disconnected, or the server is
///   stopping), it returns promptly; what it returns then is discarded. Sleeping on the
///   ``EmulatorClock`` or `Task.sleep` throws on cancellation, which is usually all it takes.
/// - ``respondImmediately(to:)`` (optional; by default nothing is answered that way) answers the
///   requests that need no waiting at once, on the HTTP server's thread; see its contract.
///
/// A minimal service:
///
/// ```swift
/// struct TimeService: EmulatorService {
///     let clock: EmulatorClock
///     func claims(_ request: ServerRequest) -> Bool { request.rawPath == "/time/0" }
///     func respond(to request: ServerRequest) async -> ServerResponse {
///         ServerResponse(status: 200, headers: [(name: "Content-Type", value: "application/json")],
///                        body: Array("[\(clock.timetoken(for: ""))]".utf8))
///     }
/// }
/// ```
public protocol EmulatorService: Sendable {
    /// Whether this service answers `request` (quick, synchronous, no side effects).
    func claims(_ request: ServerRequest) -> Bool

    /// Answers a request this service claimed. May suspend; must return promptly once its task
    /// is cancelled.
    func respond(to request: ServerRequest) async -> ServerResponse

    /// The answer to a request this service claimed when it can be given at once, or `nil` to
    /// have ``respond(to:)`` answer it. The default returns `nil` for every request.
    ///
    /// Over HTTP this runs on the server's event-loop thread, where no other connection is served
    /// until it returns, so it must not block or wait (no sleeping, no I/O, no lock that code which
    /// waits may hold) and its cost must be small and bounded (a lookup and an encoding, not a
    /// scan of everything stored). A request that waits (a long-poll, a delay, an injected fault,
    /// anything on the ``EmulatorClock``), writes to a file, or may be expensive returns `nil`.
    /// Returning `nil` must change nothing (``respond(to:)`` then answers the same request), and a
    /// non-nil answer must be exactly the one ``respond(to:)`` would give.
    func respondImmediately(to request: ServerRequest) -> ServerResponse?

    /// Answers a request this service claimed for a requester who may see only the rows `scope`
    /// lets through: a list is computed over those rows alone (its page size, its next cursor
    /// and `has_next` included), so nothing of a hidden row reaches the requester, not even
    /// inside an opaque cursor. The router calls it when the authorizer decided
    /// ``AuthorizationDecision/allowScoped(_:rewrite:)``.
    ///
    /// The default ignores the scope and answers as ``respond(to:)``: a service whose answers
    /// hold no rows of a scoped kind has nothing to narrow, but a service that lists rows must
    /// implement it.
    func respond(to request: ServerRequest, scope: ListScope) async -> ServerResponse

    /// The reply to a request this service claimed: its answer, or a pending one when the service
    /// parks the request (a long-poll with nothing to send yet: the request's task then ends and
    /// the service completes the `PendingResponse` later, from whatever wakes it). The router
    /// calls this; the default answers with ``respond(to:)``.
    ///
    /// A service that parks sets `PendingResponse.onCancel(_:)` to forget the request (the
    /// client went away: there is no task to cancel), and implements ``respond(to:)`` as
    /// `await reply(to: request).response`.
    func reply(to request: ServerRequest) async -> ServerReply

    /// ``reply(to:)`` for a requester limited to `scope`. The default answers with
    /// ``respond(to:scope:)``.
    func reply(to request: ServerRequest, scope: ListScope) async -> ServerReply

    /// ``respondImmediately(to:)`` for a requester limited to `scope`: the answer
    /// ``respond(to:scope:)`` would give when it can be given at once, or `nil`. The default
    /// ignores the scope, as ``respond(to:scope:)``'s does.
    func respondImmediately(to request: ServerRequest, scope: ListScope) -> ServerResponse?
}

extension EmulatorService {
    /// Answers nothing at once: every request goes to ``respond(to:)``.
    public func respondImmediately(to request: ServerRequest) -> ServerResponse? { nil }

    /// Answers with ``respond(to:)``: nothing is parked.
    public func reply(to request: ServerRequest) async -> ServerReply { .response(await respond(to: request)) }

    /// Answers with ``respond(to:scope:)``: nothing is parked.
    public func reply(to request: ServerRequest, scope: ListScope) async -> ServerReply {
        .response(await respond(to: request, scope: scope))
    }

    /// Answers as ``respond(to:)``: the scope has nothing to narrow.
    public func respond(to request: ServerRequest, scope: ListScope) async -> ServerResponse {
        await respond(to: request)
    }

    /// Answers as ``respondImmediately(to:)``: the scope has nothing to narrow.
    public func respondImmediately(to request: ServerRequest, scope: ListScope) -> ServerResponse? {
        respondImmediately(to: request)
    }
}

/// The rows of a list a requester may see (for access control: the objects its token may `get`),
/// handed by an ``EmulatorAuthorizer`` to the service through
/// ``AuthorizationDecision/allowScoped(_:rewrite:)``.
///
/// A scope is a test on a row's id, made once per answer by a factory, so the test can prepare
/// what it needs (compiled patterns, a lookup table) once and then run for every row without
/// being `Sendable` itself:
///
/// ```swift
/// let readable: Set<String> = ["u1", "u2"]
/// let scope = ListScope { { id in readable.contains(id) } }
/// ```
public struct ListScope: Sendable {
    private let makeTest: @Sendable () -> (String) -> Bool

    /// Creates a scope whose row test `makeTest` builds; it is called once per answer, on the
    /// service's side, and the test it returns is called for each candidate row's id.
    public init(_ makeTest: @escaping @Sendable () -> (String) -> Bool) {
        self.makeTest = makeTest
    }

    /// A row test for one answer: true for the ids the requester may see.
    public func makeRowTest() -> (String) -> Bool { makeTest() }
}

/// What an ``EmulatorAuthorizer`` decides about one request.
public enum AuthorizationDecision: Sendable {
    /// The service answers as usual.
    case allow
    /// The service answers, then its answer passes through the closure before it is sent.
    case allowRewriting(@Sendable (ServerResponse) async -> ServerResponse)
    /// The service answers through ``EmulatorService/respond(to:scope:)`` with only the rows
    /// `scope` lets through, then its answer passes through `rewrite` (when given) before it is
    /// sent. Narrowing the rows before the service pages them, rather than dropping rows from
    /// its answer afterwards, is what keeps page sizes and cursors free of hidden rows.
    case allowScoped(ListScope, rewrite: (@Sendable (ServerResponse) async -> ServerResponse)?)
    /// This answer is sent instead; no service runs.
    case deny(ServerResponse)
}

/// What an ``EmulatorAuthorizer`` decides about one request when it decides at once
/// (``EmulatorAuthorizer/authorizeImmediately(_:)``): the cases of ``AuthorizationDecision``,
/// with a rewrite that does not suspend.
public enum ImmediateAuthorizationDecision: Sendable {
    /// The service answers as usual.
    case allow
    /// The service answers, then its answer passes through the closure before it is sent. The
    /// closure runs on the HTTP server's thread, under the same rules as
    /// ``EmulatorService/respondImmediately(to:)``.
    case allowRewriting(@Sendable (ServerResponse) -> ServerResponse)
    /// The service answers through ``EmulatorService/respondImmediately(to:scope:)`` with only
    /// the rows `scope` lets through, then its answer passes through `rewrite` (when given),
    /// under the same rules as ``allowRewriting(_:)``.
    case allowScoped(ListScope, rewrite: (@Sendable (ServerResponse) -> ServerResponse)?)
    /// This answer is sent instead; no service runs.
    case deny(ServerResponse)
}

/// Decides, before any service runs, whether a request may be answered (the router's
/// authorization hook). Like ``EmulatorService/claims(_:)`` it should be quick; it may suspend,
/// but never for long.
public protocol EmulatorAuthorizer: Sendable {
    /// The decision for `request`.
    func authorize(_ request: ServerRequest) async -> AuthorizationDecision

    /// The decision ``authorize(_:)`` would make, made at once, or `nil` when it cannot be made
    /// without suspending. The default returns `nil`, which sends every request the router could
    /// answer at once down the task path instead. Same rules as
    /// ``EmulatorService/respondImmediately(to:)``: no blocking, bounded cost, no side effects.
    func authorizeImmediately(_ request: ServerRequest) -> ImmediateAuthorizationDecision?
}

extension EmulatorAuthorizer {
    /// Decides nothing at once.
    public func authorizeImmediately(_ request: ServerRequest) -> ImmediateAuthorizationDecision? { nil }
}
