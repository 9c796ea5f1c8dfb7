import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import Messaging
import PubNubBase
import Realtime
import Testing
import Transport

/// What the subscriber saw, in the order its listeners were called.
enum Seen: Sendable, Equatable {
    case event(PubNubEvent)
    case status(PubNubStatus)
}

/// Collects everything a client's listeners receive and lets a test wait, without sleeping, until
/// what arrived satisfies a condition. A wait that is never satisfied ends with the test's time
/// limit (its task is cancelled), and then reports `false`.
final class Timeline: Sendable {
    private let seen = Waitable<[Seen]>([])

    var items: [Seen] { seen.value }
    var events: [PubNubEvent] { Self.events(items) }
    var statuses: [PubNubStatus] { Self.statuses(items) }
    var messages: [PubNubMessage] { Self.messages(items) }
    var presence: [PubNubPresenceEvent] {
        events.compactMap { event in
            if case .presence(let presence) = event { return presence }
            return nil
        }
    }
    var signals: [PubNubMessage] {
        events.compactMap { event in
            if case .signal(let signal) = event { return signal }
            return nil
        }
    }

    /// The categories of the statuses of `operation` (the subscribe loop's by default).
    func categories(_ operation: PubNubStatus.Operation = .subscribe) -> [PubNubStatus.Category] {
        statuses.filter { $0.operation == operation }.map(\.category)
    }

    static func events(_ items: [Seen]) -> [PubNubEvent] {
        items.compactMap { item in
            if case .event(let event) = item { return event }
            return nil
        }
    }

    static func statuses(_ items: [Seen]) -> [PubNubStatus] {
        items.compactMap { item in
            if case .status(let status) = item { return status }
            return nil
        }
    }

    static func messages(_ items: [Seen]) -> [PubNubMessage] {
        events(items).compactMap { event in
            if case .message(let message) = event { return message }
            return nil
        }
    }

    func append(_ new: [Seen]) {
        seen.update { $0 += new }
    }

    /// Listens to everything `pubnub` delivers.
    func attach(to pubnub: PubNub) {
        pubnub.onEvents = { [self] events in append(events.map(Seen.event)) }
        pubnub.onStatus = { [self] status in append([.status(status)]) }
    }

    /// Waits until `condition` holds for what arrived so far.
    @discardableResult
    func wait(until condition: @escaping @Sendable ([Seen]) -> Bool) async -> Bool {
        await seen.wait(until: condition)
    }

    /// Waits until `count` messages arrived.
    @discardableResult
    func waitForMessages(_ count: Int) async -> Bool {
        await wait { Self.messages($0).count >= count }
    }

    /// Waits until the subscribe loop reported `count` statuses.
    @discardableResult
    func waitForStatuses(_ count: Int, _ operation: PubNubStatus.Operation = .subscribe) async -> Bool {
        await wait { items in Self.statuses(items).filter { $0.operation == operation }.count >= count }
    }

    /// Waits until a status of `category` arrived (the `occurrence`-th one).
    @discardableResult
    func waitForStatus(_ category: PubNubStatus.Category, occurrence: Int = 1) async -> Bool {
        await wait { items in Self.statuses(items).filter { $0.category == category }.count >= occurrence }
    }
}

/// Serves the emulator through an HTTP server of the test's own, and lets the test wait for
/// requests to arrive or to be answered (without sleeping): the answer to a handshake is what
/// starts the next long-poll, so a fault queued once it was answered hits that long-poll.
final class ObservingHandler: ServerHandler {
    enum Route: Hashable, Sendable {
        case handshake
        case receive
        case heartbeat
        case leave
        case other
    }

    private struct Waiter {
        let id: UUID
        let condition: @Sendable (State) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    struct State: Sendable {
        var arrived: [Route: Int] = [:]
        var answered: [Route: Int] = [:]
        var subscribeTargets: [String] = []
    }

    private let inner: any ServerHandler
    private let state = Locked(State())
    private let waiters = Locked<[Waiter]>([])

    init(inner: any ServerHandler) {
        self.inner = inner
    }

    var snapshot: State { state.withLock { $0 } }

    static func route(of request: ServerRequest) -> Route {
        let path = request.rawPath
        if path.hasPrefix("/v2/subscribe/") {
            let handshake = request.rawQuery.split(separator: "&").contains { $0 == "tt=0" }
            return handshake ? .handshake : .receive
        }
        if path.hasPrefix("/v2/presence/"), path.hasSuffix("/heartbeat") { return .heartbeat }
        if path.hasPrefix("/v2/presence/"), path.hasSuffix("/leave") { return .leave }
        return .other
    }

    func handle(_ request: ServerRequest) async -> ServerResponse {
        let route = Self.route(of: request)
        update { state in
            state.arrived[route, default: 0] += 1
            if route == .handshake || route == .receive { state.subscribeTargets.append(request.target) }
        }
        let response = await inner.handle(request)
        update { $0.answered[route, default: 0] += 1 }
        return response
    }

    private func update(_ change: (inout State) -> Void) {
        let snapshot = state.withLock { state in
            change(&state)
            return state
        }
        let due = waiters.withLock { waiters in
            let due = waiters.filter { $0.condition(snapshot) }
            waiters.removeAll { $0.condition(snapshot) }
            return due
        }
        for waiter in due { waiter.continuation.resume() }
    }

    /// Returns once `condition` holds for the requests seen (or the task is cancelled).
    func wait(until condition: @escaping @Sendable (State) -> Bool) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { $0 }
                if condition(now) || Task.isCancelled {
                    continuation.resume()
                    return
                }
                let cancelled = waiters.withLock { waiters -> Bool in
                    // Checked under the lock the cancellation handler takes, so neither is missed.
                    if Task.isCancelled { return true }
                    waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                    return false
                }
                if cancelled {
                    continuation.resume()
                    return
                }
                // The state may have moved between the check and the registration.
                update { _ in }
            }
        } onCancel: {
            let waiter = waiters.withLock { waiters -> Waiter? in
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }

    func waitArrived(_ route: Route, _ count: Int) async {
        await wait { $0.arrived[route, default: 0] >= count }
    }

    func waitAnswered(_ route: Route, _ count: Int) async {
        await wait { $0.answered[route, default: 0] >= count }
    }
}

/// An emulator in this process (manual clock) served on an ephemeral loopback port, a subscriber
/// (Realtime, with a manual clock for its reconnection timers) and a publisher (Messaging), both
/// over real HTTP through one backend.
final class RealtimeFixture: Sendable, StoppableRig {
    static let startTime = Date(timeIntervalSince1970: 1_790_000_000)

    let backend: HTTPBackend
    let emulator: Emulator
    let observer: ObservingHandler
    let port: UInt16
    private let server: Locked<HTTPServer?>
    /// The subscriber's clock: reconnection delays and heartbeats wait on it.
    let clock: ManualClock
    let subscriber: PubNub
    let publisher: PubNub
    let timeline = Timeline()
    /// Helpers running beside the test (``retryDisconnects()``), cancelled by ``stop()``.
    private let helpers = Locked<[Task<Void, Never>]>([])

    private init(
        backend: HTTPBackend, emulator: Emulator, observer: ObservingHandler, server: HTTPServer, port: UInt16,
        subscriber: PubNub, publisher: PubNub, clock: ManualClock
    ) {
        self.clock = clock
        self.backend = backend
        self.emulator = emulator
        self.observer = observer
        self.server = Locked(server)
        self.port = port
        self.subscriber = subscriber
        self.publisher = publisher
    }

    var emulatorClock: EmulatorClock { emulator.clock }
    var origin: String { "127.0.0.1:\(port)" }

    /// Starts everything; `configure` adjusts the subscriber's configuration (its clock and
    /// transport are set already).
    static func start(
        _ backend: HTTPBackend, pubSub: PubSubConfiguration = PubSubConfiguration(),
        subscriberId: String = "subscriber",
        configure: (inout PubNubConfiguration) -> Void = { _ in }
    ) async throws -> RealtimeFixture {
        let emulator = try Emulator(configuration: EmulatorConfiguration(startTime: startTime, pubSub: pubSub))
        let observer = ObservingHandler(inner: emulator.handler)
        let server = HTTPServer(configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0), handler: observer)
        try await server.start()
        let port = try #require(server.port)
        let clock = ManualClock()
        var configuration = PubNubConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: subscriberId, origin: "127.0.0.1:\(port)",
            useSecureConnections: false, transport: try backend.makeClient(), retryPolicy: .none, clock: clock)
        configuration.subscribeReconnectionPolicy = .linear(delay: .seconds(2), maximumJitter: .zero)
        configuration.heartbeatInterval = .zero
        configure(&configuration)
        let subscriber = PubNub(configuration: configuration)
        let publisher = try makePublisher(backend, port: port)
        let fixture = RealtimeFixture(
            backend: backend, emulator: emulator, observer: observer, server: server, port: port,
            subscriber: subscriber, publisher: publisher, clock: clock)
        fixture.timeline.attach(to: subscriber)
        return fixture
    }

    /// A publishing client (no retries, its own manual clock) on `port`.
    static func makePublisher(
        _ backend: HTTPBackend, port: UInt16, userId: String = "publisher",
        configure: (inout PubNubConfiguration) -> Void = { _ in }
    ) throws -> PubNub {
        var configuration = PubNubConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: userId, origin: "127.0.0.1:\(port)",
            useSecureConnections: false, transport: try backend.makeClient(), retryPolicy: .none,
            clock: ManualClock())
        configure(&configuration)
        return PubNub(configuration: configuration)
    }

    /// Another client on the same emulator.
    func makeClient(userId: String, configure: (inout PubNubConfiguration) -> Void = { _ in }) throws -> PubNub {
        try Self.makePublisher(backend, port: port, userId: userId, configure: configure)
    }

    /// Publishes `count` messages `["n": i]` one after the other and returns their timetokens.
    @discardableResult
    func publish(_ channel: String, _ range: ClosedRange<Int>) async throws -> [Timetoken] {
        var timetokens: [Timetoken] = []
        for index in range {
            timetokens.append(
                try await publisher.publish(channel: channel, message: JSONValue.object(["n": .int(Int64(index))])))
        }
        return timetokens
    }

    /// Publishes through the emulator's handler without a socket (works while the server is down).
    func publishInProcess(_ channel: String, _ range: ClosedRange<Int>) async {
        for index in range {
            let message = "%7B%22n%22%3A\(index)%7D"
            _ = await emulator.respond(
                to: ServerRequest(method: "GET", target: "/publish/demo/demo/0/\(channel)/0/\(message)?uuid=publisher"))
        }
    }

    /// Lets the pending reconnection timer fire: waits until it sleeps, then moves the clock by `delay`.
    func fireReconnectTimer(after delay: Duration = .seconds(2)) async {
        await clock.waitForSleepers(1)
        clock.advance(by: delay)
    }

    /// Subscribes to `channels` and waits for the `connected` status.
    func subscribe(_ channels: [String], groups: [String] = [], withPresence: Bool = false) async -> Bool {
        subscriber.subscribe(to: channels, and: groups, withPresence: withPresence)
        return await timeline.waitForStatus(.connected)
    }

    /// Waits until the long-poll after the handshake is on its way (the handshake was answered).
    func waitForReceive(handshakes: Int = 1) async {
        await observer.waitAnswered(.handshake, handshakes)
    }

    /// Stops the HTTP server (held requests are cut, new connections refused).
    func stopServer() async {
        let running = server.withLock { server in
            defer { server = nil }
            return server
        }
        await running?.stop()
    }

    /// Serves the emulator again on the same port.
    func restartServer() async throws {
        let server = HTTPServer(
            configuration: HTTPServer.Configuration(host: "127.0.0.1", port: port), handler: observer)
        try await server.start()
        self.server.withLock { $0 = server }
    }

    func stop() async {
        for helper in helpers.withLock({ $0 }) { helper.cancel() }
        subscriber.unsubscribeAll()
        await stopServer()
    }

    /// From now until ``stop()``, fires the reconnection timer after every `unexpectedDisconnect`
    /// the subscriber reports. For a scenario whose subscribe timeout is a few seconds of real
    /// time: a long-poll held longer than that (the machine stalled before a message came) times
    /// out, and the loop waits on the manual clock to reconnect from its cursor.
    func retryDisconnects() {
        let timeline = self.timeline
        let clock = self.clock
        let helper = Task {
            var handled = 0
            while !Task.isCancelled {
                guard await timeline.waitForStatus(.unexpectedDisconnect, occurrence: handled + 1) else { return }
                handled += 1
                await clock.waitForSleepers(1)
                if Task.isCancelled { return }
                clock.advance(by: .seconds(2))
            }
        }
        helpers.withLock { $0.append(helper) }
    }
}

/// Runs `body` against a fresh fixture and always stops the server.
func withRealtime(
    _ backend: HTTPBackend, pubSub: PubSubConfiguration = PubSubConfiguration(), subscriberId: String = "subscriber",
    configure: (inout PubNubConfiguration) -> Void = { _ in }, _ body: (RealtimeFixture) async throws -> Void
) async throws {
    try await RealtimeFixture.start(backend, pubSub: pubSub, subscriberId: subscriberId, configure: configure)
        .run(body)
}

extension PubNubMessage {
    /// The `n` of a `["n": i]` test message.
    var number: Int? { payload["n"]?.intValue }
}
