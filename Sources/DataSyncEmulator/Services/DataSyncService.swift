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
    /// The state file and its journal, when there is a state file.
    private let persistence: StatePersistence?
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
        engine.propertyIndexes = configuration.propertyIndexes
        for subscriber in changeSubscribers { engine.feed.addSubscriber(subscriber) }
        for subscriber in writeSubscribers { engine.feed.addWriteSubscriber(subscriber) }
        if let classes = configuration.classes { try engine.setClassTemplate(classes) }
        let persistence = try configuration.stateFile.map { path throws(EmulatorError) in
            try StatePersistence.open(
                path: path, into: engine, writes: configuration.stateFileWrites, faults: configuration.storageFaults)
        }
        engine.changes.markSaved(engine.keysets.values)
        // Changes are tracked (for saves, and undone when a save fails) only with a state file.
        engine.changes.isEnabled = persistence != nil
        if persistence?.loadReport.loadedSnapshot != true, let seed = configuration.seed {
            try engine.seed(seed)
        }
        if engine.hasUnsavedChanges { try persistence?.save(engine) }
        self.engine = engine
        self.persistence = persistence
    }

    deinit {
        sweeper?.cancel()
    }

    nonisolated func claims(_ request: ServerRequest) -> Bool {
        request.rawPath.hasPrefix(Self.pathPrefix)
    }

    /// Answers one request as one transaction: a change is saved to the state file before the
    /// answer leaves and before anyone sees it on the change feed. When the save fails the change
    /// is rolled back: a write is answered `500` saying nothing changed (so retrying it is safe);
    /// a read, or a refused request, keeps its answer (only expired objects its keyset's sweep
    /// removed come back, still invisible, until the next sweep).
    func respond(to request: ServerRequest) -> ServerResponse {
        engine.beginTransaction()
        let response = engine.handle(request)
        do throws(EmulatorError) {
            try saveChanges()
        } catch {
            engine.rollBackTransaction()
            let method = request.method.uppercased()
            if method == "GET" || method == "HEAD" || !(200..<300).contains(response.status) { return response }
            return Engine.errorResponse(
                APIError(
                    status: 500, code: .internalError,
                    message: "the change could not be saved to the state file, so it was not made: nothing "
                        + "changed and retrying is safe (\(error.message))"))
        }
        engine.commitTransaction()
        return response
    }

    /// The projections of one stored object, for access control's token projections.
    func projections(subscribeKey: String, collection: ObjectCollection, id: String) -> (
        found: Bool, className: String, projections: [ChangeEvent.Projection]?
    ) {
        engine.readProjections(subscribeKey: subscribeKey, collection: collection, id: id)
    }

    // MARK: Seeding

    /// Defines the classes of `document`; when they cannot be saved, none is kept.
    func defineClasses(_ document: JSONValue, subscribeKey: String) throws(EmulatorError) {
        try transaction { () throws(EmulatorError) in try engine.defineClasses(document, subscribeKey: subscribeKey) }
    }

    /// Creates the objects of `document`; items before a refused one stay (and are saved). When
    /// they cannot be saved, none is kept.
    func seed(_ document: JSONValue) throws(EmulatorError) {
        try transaction { () throws(EmulatorError) in try engine.seed(document) }
    }

    /// Runs `body` as a transaction and saves what it changed, even when it throws; rolls it all
    /// back when the save fails.
    private func transaction(_ body: () throws(EmulatorError) -> Void) throws(EmulatorError) {
        engine.beginTransaction()
        var refusal: EmulatorError?
        do throws(EmulatorError) {
            try body()
        } catch {
            refusal = error
        }
        do throws(EmulatorError) {
            try saveChanges()
        } catch {
            engine.rollBackTransaction()
            throw EmulatorError(
                code: .fileAccess, message: "nothing was kept: the change could not be saved (\(error.message))")
        }
        engine.commitTransaction()
        if let refusal { throw refusal }
    }

    // MARK: Administration

    /// Runs `body` on the engine as one transaction, then saves what it changed as a request
    /// would (the admin routes: reset, export, import, keyset summaries).
    ///
    /// Unlike a request, an admin change whose save fails is kept in memory (the admin answer has
    /// already been computed from it) and is written by the next save that succeeds; the
    /// emulator's documentation says so.
    func administer<R: Sendable, E: Error>(_ body: (Engine) throws(E) -> R) throws(E) -> R {
        engine.beginTransaction()
        defer {
            try? saveChanges()
            engine.commitTransaction()
        }
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
        // When the removals cannot be saved they are undone; the next sweep tries again.
        try? transaction { () throws(EmulatorError) in engine.sweepAll() }
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

    /// Saves what changed since the last save (nothing without a state file).
    private func saveChanges() throws(EmulatorError) {
        engine.dirty = false
        guard let persistence, engine.hasUnsavedChanges else { return }
        try persistence.save(engine)
    }
}
