import EmulatorHTTP
import Foundation
import JSONCore

/// The DataSync REST API (`/v1/datasync/…`): owns the ``Engine`` (keysets, classes, objects, the
/// change feed) and the state file, and answers every request as one atomic step on this actor.
///
/// Other services learn about DataSync writes only through the change feed
/// (``addChangeSubscriber(_:)``, or `changeSubscribers` at creation); this service never calls
/// them.
actor DataSyncService: EmulatorService {
    /// Every DataSync REST path starts with this.
    static let pathPrefix = "/v1/datasync/"

    private let engine: Engine
    private let stateFile: String?
    /// Removes expired objects while the emulator serves over HTTP.
    private var sweeper: Task<Void, Never>?

    /// Creates the service: defines the configured classes, loads the state file if there is one,
    /// otherwise applies the seed. `changeSubscribers` and `writeSubscribers` are registered on the
    /// feed first, so they see the seed's changes too.
    init(
        configuration: EmulatorConfiguration, clock: EmulatorClock,
        changeSubscribers: [ChangeFeed.Subscriber] = [], writeSubscribers: [ChangeFeed.WriteSubscriber] = []
    ) throws(EmulatorError) {
        let engine = Engine(filterFastConditionLimit: max(1, configuration.filterFastConditionLimit), clock: clock)
        for subscriber in changeSubscribers { engine.feed.addSubscriber(subscriber) }
        for subscriber in writeSubscribers { engine.feed.addWriteSubscriber(subscriber) }
        if let classes = configuration.classes { try engine.setClassTemplate(classes) }
        var loaded = false
        if let stateFile = configuration.stateFile, let document = try StateFile.read(path: stateFile) {
            try StateFile.restore(document, into: engine)
            loaded = true
        }
        if !loaded, let seed = configuration.seed {
            try engine.seed(seed)
        }
        try Self.persist(engine, to: configuration.stateFile)
        self.engine = engine
        self.stateFile = configuration.stateFile
    }

    deinit {
        sweeper?.cancel()
    }

    nonisolated func claims(_ request: ServerRequest) -> Bool {
        request.rawPath.hasPrefix(Self.pathPrefix)
    }

    /// Answers one request; a committed change is saved to the state file before the answer.
    func respond(to request: ServerRequest) -> ServerResponse {
        let response = engine.handle(request)
        do {
            try persistIfNeeded()
        } catch {
            return Engine.errorResponse(
                APIError(status: 500, code: .internalError, message: "the change was applied but not saved: \(error)"))
        }
        return response
    }

    /// The projections of one stored object, for access control's token projections.
    func projections(subscribeKey: String, collection: ObjectCollection, id: String) -> (
        found: Bool, className: String, projections: [ChangeEvent.Projection]?
    ) {
        engine.readProjections(subscribeKey: subscribeKey, collection: collection, id: id)
    }

    // MARK: Seeding

    func defineClasses(_ document: JSONValue, subscribeKey: String) throws(EmulatorError) {
        try engine.defineClasses(document, subscribeKey: subscribeKey)
        try persistIfNeeded()
    }

    func seed(_ document: JSONValue) throws(EmulatorError) {
        defer { try? persistIfNeeded() }
        try engine.seed(document)
    }

    // MARK: Administration

    /// Runs `body` on the engine as one atomic step, then saves what it committed as a request
    /// would (the admin routes: reset, export, import, keyset summaries).
    func administer<R: Sendable, E: Error>(_ body: (Engine) throws(E) -> R) throws(E) -> R {
        defer { try? persistIfNeeded() }
        return try body(engine)
    }

    // MARK: Change feed

    func changes() -> AsyncStream<ChangeEvent> { engine.feed.subscribe() }

    func changes(after sequence: UInt64) -> [ChangeEvent] { engine.feed.events(after: sequence) }

    var lastSequence: UInt64 { engine.revision }

    /// Calls `subscriber` with every change committed from now on, in order, while it commits
    /// (see ``ChangeFeed/Subscriber`` for what it may do).
    @discardableResult
    func addChangeSubscriber(_ subscriber: @escaping ChangeFeed.Subscriber) -> ChangeFeed.SubscriberID {
        engine.feed.addSubscriber(subscriber)
    }

    func removeChangeSubscriber(_ id: ChangeFeed.SubscriberID) {
        engine.feed.removeSubscriber(id)
    }

    // MARK: Expiry

    /// Removes every object whose `expiresAt` has passed, in every keyset (requests do this for
    /// their own keyset; the sweeper and clock moves for all).
    func sweepExpired() {
        engine.sweepAll()
        try? persistIfNeeded()
    }

    /// Sweeps about once a second of the emulator's clock until ``stopSweeping()``: on the system
    /// clock that is real time; on a manual clock the sweep runs when a test moves time past the
    /// next second, without anyone sleeping for real.
    func startSweeping() {
        guard sweeper == nil else { return }
        let clock = engine.clock
        sweeper = Task { [weak self] in
            while !Task.isCancelled {
                do {
                    try await clock.sleep(for: .seconds(1))
                } catch {
                    return
                }
                guard let service = self else { return }
                await service.sweepExpired()
            }
        }
    }

    func stopSweeping() {
        sweeper?.cancel()
        sweeper = nil
    }

    // MARK: State file

    private func persistIfNeeded() throws(EmulatorError) {
        try Self.persist(engine, to: stateFile)
    }

    private static func persist(_ engine: Engine, to stateFile: String?) throws(EmulatorError) {
        guard engine.dirty else { return }
        engine.dirty = false
        guard let stateFile else { return }
        let bytes: [UInt8]
        do {
            bytes = try StateFile.snapshot(engine).jsonBytes()
        } catch {
            throw EmulatorError(code: .fileAccess, message: "cannot encode the state: \(error)")
        }
        try StateFile.write(bytes, to: stateFile)
    }
}
