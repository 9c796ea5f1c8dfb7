import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase

/// The DataSync REST API (`/v1/datasync/…`): composes the ``Engine``'s parts (object store,
/// transactions, change feed, lists, classes) with the state file, and answers every request as
/// one atomic step under its lock.
///
/// Every operation takes the lock for its whole (synchronous) length, so requests, seeding,
/// administration and sweeps are serialized exactly as on an actor; the lock is never held across
/// a suspension. Reads that change nothing are also answered on the HTTP server's thread
/// (``respondImmediately(to:)``) from the same state.
///
/// Other services learn about DataSync writes only through the change feed
/// (``addChangeSubscriber(_:)``, or `changeSubscribers` at creation); this service never calls
/// them. Change subscribers run with the lock held, so they must not call back into this service.
final class DataSyncService: EmulatorService {
    /// Every DataSync REST path starts with this.
    static let pathPrefix = "/v1/datasync/"
    /// Every DataSync object path starts with this.
    private static let subkeysPrefix = "/v1/datasync/subkeys/"

    /// What the lock guards.
    private struct State {
        let engine: Engine
        /// The state file and its journal, when there is a state file.
        let persistence: StatePersistence?
    }

    private let state: Locked<State>
    /// Removes expired objects while the emulator serves over HTTP.
    private let sweeper = Locked<Task<Void, Never>?>(nil)
    /// The clock the engine reads (immutable, so read without the lock).
    private let clock: EmulatorClock

    /// Creates the service: defines the configured classes, loads the state file if there is one,
    /// otherwise applies the seed. `changeSubscribers` and `writeSubscribers` are registered on the
    /// feed first, so they see the seed's changes too.
    init(
        configuration: EmulatorConfiguration, clock: EmulatorClock,
        changeSubscribers: [ChangeFeed.Subscriber] = [], writeSubscribers: [ChangeFeed.WriteSubscriber] = []
    ) throws(EmulatorError) {
        let engine = Engine(filterFastConditionLimit: max(1, configuration.filterFastConditionLimit), clock: clock)
        engine.store.propertyIndexes = configuration.propertyIndexes
        for subscriber in changeSubscribers { engine.publisher.feed.addSubscriber(subscriber) }
        for subscriber in writeSubscribers { engine.publisher.feed.addWriteSubscriber(subscriber) }
        if let classes = configuration.classes { try engine.store.setClassTemplate(classes) }
        let persistence = try configuration.stateFile.map { path throws(EmulatorError) in
            try StatePersistence.open(
                path: path, into: engine, writes: configuration.stateFileWrites, faults: configuration.storageFaults)
        }
        engine.store.changes.markSaved(engine.store.keysets.values)
        // Changes are tracked (for saves, and undone when a save fails) only with a state file.
        engine.store.changes.isEnabled = persistence != nil
        if persistence?.loadReport.loadedSnapshot != true, let seed = configuration.seed {
            try engine.seeder.seed(seed)
        }
        if engine.transactions.hasUnsavedChanges { try persistence?.save(engine) }
        self.state = Locked(State(engine: engine, persistence: persistence))
        self.clock = clock
    }

    deinit {
        sweeper.withLock { $0?.cancel() }
    }

    func claims(_ request: ServerRequest) -> Bool {
        request.rawPath.hasPrefix(Self.pathPrefix)
    }

    /// Runs `body` with the engine and the persistence, under the lock.
    private func withEngine<R, E: Error>(_ body: (Engine, StatePersistence?) throws(E) -> R) throws(E) -> R {
        // `Locked.withLock` rethrows untyped errors: carry the typed one out in a `Result`.
        let result: Result<R, E> = state.withLock { state in
            do throws(E) {
                return .success(try body(state.engine, state.persistence))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Answers, at once, a request that reads one object (or one class) and changes nothing:
    /// `GET /v1/datasync/subkeys/{sub}/{collection}/{id}` without a body, on a keyset that exists
    /// and has nothing due to expire (a due expiry is a write: its removals go to the feed, the
    /// real-time events and the state file, so that request takes ``respond(to:)``). Such a read
    /// is a hash lookup and the encoding of one object: bounded, no I/O, no waiting (when the lock
    /// is held by another operation the answer is `nil` rather than a wait). Lists (whose
    /// filters may scan a keyset) and writes return `nil`. The answer is the one
    /// ``respond(to:)`` gives, computed by the same code under the same lock.
    func respondImmediately(to request: ServerRequest) -> ServerResponse? {
        guard request.body.isEmpty, request.method == "GET" || request.method.uppercased() == "GET",
            let path = Self.singleObjectPath(request.rawPath)
        else { return nil }
        // A plain read (no query, a collection's path) of an object whose encoded body is kept is
        // answered from the parsed path without the engine's routing; everything else the engine
        // routes as ``respond(to:)`` does.
        let collection = request.rawQuery.isEmpty ? path.collection.flatMap(ObjectCollection.named) : nil
        // The event-loop thread never waits for the lock: while a write holds it (a state-file
        // save may take a while), the read takes the task path instead.
        let answer: ServerResponse?? = state.withLockIfAvailable { state in
            let engine = state.engine
            let now = engine.transactions.now()
            guard let keyset = engine.store.keysets[path.subscribeKey], keyset.nextExpiry.map({ $0 > now }) ?? true
            else { return nil }
            // What `respond` does besides the lookup (the sweep, the transaction, the save) has
            // nothing to do for such a read, unless an earlier save failed and waits for the
            // next one, which this read would make.
            if let collection, let id = path.id, state.persistence == nil || !engine.transactions.hasUnsavedChanges,
                let cached = ObjectReads.cachedGet(keyset, collection: collection, id: id, now: now)
            {
                return cached
            }
            return Self.respond(to: request, engine: engine, persistence: state.persistence)
        }
        return answer ?? nil
    }

    /// The decoded segments of a path `/v1/datasync/subkeys/{sub}/{collection}/{id}` with
    /// non-empty segments, or nil for any other path. A collection or id with a broken percent
    /// escape is nil (the engine's routing answers that `400`); a broken subscribe key makes the
    /// whole path nil.
    private static func singleObjectPath(_ rawPath: String) -> (
        subscribeKey: String, collection: String?, id: String?
    )? {
        guard rawPath.hasPrefix(subkeysPrefix) else { return nil }
        // Two slashes after the prefix, none after them, no segment empty (found on the bytes:
        // cheaper than splitting into an array).
        let utf8 = rawPath.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: subkeysPrefix.utf8.count)
        guard let first = utf8[start...].firstIndex(of: UInt8(ascii: "/")), first != start else { return nil }
        let collectionStart = utf8.index(after: first)
        guard let second = utf8[collectionStart...].firstIndex(of: UInt8(ascii: "/")), second != collectionStart
        else { return nil }
        let idStart = utf8.index(after: second)
        guard idStart != utf8.endIndex, !utf8[idStart...].contains(UInt8(ascii: "/")),
            let subscribeKey = PercentDecoding.decode(rawPath[start..<first])
        else { return nil }
        return (
            subscribeKey, PercentDecoding.decode(rawPath[collectionStart..<second]),
            PercentDecoding.decode(rawPath[idStart...])
        )
    }

    /// The largest DataSync request body: 1 MiB. The spec names no limit; this one keeps any
    /// object, and so the work a filter spends on it under the engine's lock, bounded.
    static let maximumBodyBytes = 1 << 20

    /// Answers one request as one transaction: a change is saved to the state file before the
    /// answer leaves and before anyone sees it on the change feed. When the save fails the change
    /// is rolled back: a write is answered `500` saying nothing changed (so retrying it is safe);
    /// a read, or a refused request, keeps its answer (only expired objects its keyset's sweep
    /// removed come back, still invisible, until the next sweep).
    func respond(to request: ServerRequest) async -> ServerResponse {
        if request.body.count > Self.maximumBodyBytes {
            return DataSyncResponse.error(
                APIError(
                    status: 413, code: .invalidValue,
                    message: "a DataSync request body is at most \(Self.maximumBodyBytes) bytes (1 MiB)"))
        }
        return withEngine { engine, persistence in Self.respond(to: request, engine: engine, persistence: persistence) }
    }

    /// ``respond(to:)`` for a requester limited to `scope`: lists hold only the objects it lets
    /// through (access control's token scope), paged over those alone.
    func respond(to request: ServerRequest, scope: ListScope) async -> ServerResponse {
        withEngine { engine, persistence in
            Self.respond(to: request, engine: engine, persistence: persistence, scope: scope)
        }
    }

    /// Nothing scoped is answered at once: a scope narrows lists, and lists take ``respond(to:)``.
    func respondImmediately(to request: ServerRequest, scope: ListScope) -> ServerResponse? { nil }

    /// ``respond(to:)``'s transaction, with the lock held.
    private static func respond(
        to request: ServerRequest, engine: Engine, persistence: StatePersistence?, scope: ListScope? = nil
    ) -> ServerResponse {
        engine.transactions.begin()
        let response = engine.handle(request, scope: scope)
        do throws(EmulatorError) {
            try saveChanges(engine, persistence)
        } catch {
            engine.transactions.rollBack()
            let method = request.method.uppercased()
            if method == "GET" || method == "HEAD" || !(200..<300).contains(response.status) { return response }
            return DataSyncResponse.error(
                APIError(
                    status: 500, code: .internalError,
                    message: "the change could not be saved to the state file, so it was not made: nothing "
                        + "changed and retrying is safe (\(error.message))"))
        }
        engine.transactions.commit()
        return response
    }

    /// The projections of one stored object, for access control's token projections.
    func projections(subscribeKey: String, collection: ObjectCollection, id: String) -> (
        found: Bool, className: String, projections: [ChangeEvent.Projection]?
    ) {
        withEngine { engine, _ in engine.store.projections(subscribeKey: subscribeKey, collection: collection, id: id) }
    }

    // MARK: Seeding

    /// Defines the classes of `document`; when they cannot be saved, none is kept.
    func defineClasses(_ document: JSONValue, subscribeKey: String) async throws(EmulatorError) {
        try transaction { (engine: Engine) throws(EmulatorError) in
            try engine.seeder.defineClasses(document, subscribeKey: subscribeKey)
        }
    }

    /// Creates the objects of `document`; items before a refused one stay (and are saved). When
    /// they cannot be saved, none is kept.
    func seed(_ document: JSONValue) async throws(EmulatorError) {
        try transaction { (engine: Engine) throws(EmulatorError) in try engine.seeder.seed(document) }
    }

    /// Runs `body` as a transaction and saves what it changed, even when it throws; rolls it all
    /// back when the save fails. Holds the lock throughout.
    private func transaction(_ body: (Engine) throws(EmulatorError) -> Void) throws(EmulatorError) {
        try withEngine { (engine, persistence) throws(EmulatorError) in
            engine.transactions.begin()
            var refusal: EmulatorError?
            do throws(EmulatorError) {
                try body(engine)
            } catch {
                refusal = error
            }
            do throws(EmulatorError) {
                try Self.saveChanges(engine, persistence)
            } catch {
                engine.transactions.rollBack()
                throw EmulatorError(
                    code: .fileAccess, message: "nothing was kept: the change could not be saved (\(error.message))")
            }
            engine.transactions.commit()
            if let refusal { throw refusal }
        }
    }

    // MARK: Administration

    /// Runs `body` on the engine as one transaction, then saves what it changed as a request
    /// would (the admin routes: reset, export, import, keyset summaries).
    ///
    /// Unlike a request, an admin change whose save fails is kept in memory (the admin answer has
    /// already been computed from it) and is written by the next save that succeeds; the
    /// emulator's documentation says so.
    func administer<R: Sendable, E: Error>(_ body: (Engine) throws(E) -> R) async throws(E) -> R {
        try withEngine { (engine, persistence) throws(E) -> R in
            engine.transactions.begin()
            defer {
                try? Self.saveChanges(engine, persistence)
                engine.transactions.commit()
            }
            return try body(engine)
        }
    }

    // MARK: Change feed

    func changes() async -> AsyncStream<ChangeEvent> { withEngine { engine, _ in engine.publisher.feed.subscribe() } }

    func changes(after sequence: UInt64) async -> [ChangeEvent] {
        withEngine { engine, _ in engine.publisher.feed.events(after: sequence) }
    }

    var lastSequence: UInt64 { get async { withEngine { engine, _ in engine.transactions.revision } } }

    /// Calls `subscriber` with every change committed from now on, in order, while it commits
    /// (see ``ChangeFeed/Subscriber`` for what it may do).
    @discardableResult
    func addChangeSubscriber(_ subscriber: @escaping ChangeFeed.Subscriber) async -> ChangeFeed.SubscriberID {
        withEngine { engine, _ in engine.publisher.feed.addSubscriber(subscriber) }
    }

    func removeChangeSubscriber(_ id: ChangeFeed.SubscriberID) async {
        withEngine { engine, _ in engine.publisher.feed.removeSubscriber(id) }
    }

    // MARK: Expiry

    /// Removes every object whose `expiresAt` has passed, in every keyset (requests do this for
    /// their own keyset; the sweeper and clock moves for all).
    func sweepExpired() async {
        // When the removals cannot be saved they are undone; the next sweep tries again.
        try? transaction { (engine: Engine) throws(EmulatorError) in engine.writer.sweepAll(engine.store) }
    }

    /// Sweeps about once a second of the emulator's clock until ``stopSweeping()``: on the system
    /// clock that is real time; on a manual clock the sweep runs when a test moves time past the
    /// next second, without anyone sleeping for real.
    func startSweeping() async {
        sweeper.withLock { sweeper in
            guard sweeper == nil else { return }
            sweeper = makeSweeper()
        }
    }

    private func makeSweeper() -> Task<Void, Never> {
        let clock = self.clock
        return detachedHandlerTask { [weak self] in
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

    func stopSweeping() async {
        sweeper.withLock { sweeper in
            sweeper?.cancel()
            sweeper = nil
        }
    }

    // MARK: State file

    /// Saves what changed since the last save (nothing without a state file).
    private static func saveChanges(_ engine: Engine, _ persistence: StatePersistence?) throws(EmulatorError) {
        guard let persistence, engine.transactions.hasUnsavedChanges else { return }
        try persistence.save(engine)
    }
}
