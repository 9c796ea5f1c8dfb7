public import EmulatorHTTP
public import Foundation
public import JSONCore
public import PubNubBase

/// How to set up an ``Emulator``.
public struct EmulatorConfiguration: Sendable {
    /// The most conditions a `filter_fast` expression may hold (the service's default is 10).
    public var filterFastConditionLimit: Int
    /// Classes every keyset starts with, in the class-document format
    /// (`{"entityClasses":[…],"relationshipClasses":[…]}`).
    public var classes: JSONValue?
    /// Objects to create at start, in the seed-document format. Skipped when a state file was
    /// loaded (the state already holds what the seed created the first time).
    public var seed: JSONValue?
    /// Where the state is kept across restarts; nil keeps it in memory only.
    public var stateFile: String?
    /// When set, the clock starts stopped at this instant and only moves when told to
    /// (``Emulator/advanceTime(bySeconds:)``); otherwise it follows the system clock. When
    /// ``clock`` is set too, that clock is stopped at this instant.
    public var startTime: Date?
    /// The clock every part of the emulator reads (TTLs, timestamps, timetokens, timeouts); nil
    /// makes one: ``EmulatorClock/manual(startingAt:)`` at ``startTime`` when that is set,
    /// ``EmulatorClock/system()`` otherwise. Pass a manual clock to move time from a test.
    public var clock: EmulatorClock?
    /// Keysets, buffers, long-poll and presence settings of the publish/subscribe services.
    public var pubSub: PubSubConfiguration
    /// The admin routes and the web console under ``Emulator/adminPathPrefix``.
    public var admin: AdminConfiguration
    /// Host names answered besides loopback ones (`localhost`, `127.0.0.1`, `[::1]`) while the
    /// emulator is not serving beyond loopback: the `--allowed-host` flag. A request naming any
    /// other host in `Host` is refused with a `403`, so a web page cannot reach the emulator by
    /// rebinding its own DNS name to 127.0.0.1. Give bare names (`myapp.test`); a leading dot
    /// (`.myapp.test`) allows the name and every name under it. Serving beyond loopback
    /// (``Emulator/start(host:port:requestLog:)`` on `0.0.0.0`) answers every host.
    public var allowedHosts: [String] = []
    /// The connection and buffered-bytes limits of the HTTP server ``Emulator/start(host:port:requestLog:)``
    /// runs (Documentation/Emulator.md, "Limits").
    public var serverLimits = EmulatorServerLimits()
    /// Where the emulator logs, in category `PubNubLogCategory.emulator` and through the SDK's
    /// own `PubNubLogger` type: while serving, one `info` record per answered request (the
    /// line ``Emulator/start(host:port:requestLog:)`` describes, credentials `REDACTED`) and one
    /// `debug` record with its sizes. Nil (the default) logs nothing and builds no record.
    public var logger: (any PubNubLogger)?
    /// Whether ``logger`` gets the records of each answered request (true by default; the
    /// executables' `--no-request-lines` turns it off).
    public var logsRequests = true
    /// How saves reach the state file (a journal by default; the whole file, to measure the old way).
    package var stateFileWrites = StateFileWrites.journal
    /// Whether lists use the per-property indexes (Documentation/Emulator.md, "How listing stays
    /// fast"); off only to measure the full scan they replace.
    package var propertyIndexes = true
    /// Storage failures to inject, for tests of failed saves.
    var storageFaults: StorageFaults?
    /// Storage failures to inject into the pub/sub side of the state file (`<state file>.pubsub`).
    var pubSubStorageFaults: StorageFaults?

    /// Creates a configuration.
    public init(
        filterFastConditionLimit: Int = 10, classes: JSONValue? = nil, seed: JSONValue? = nil,
        stateFile: String? = nil, startTime: Date? = nil, clock: EmulatorClock? = nil,
        pubSub: PubSubConfiguration = PubSubConfiguration(), admin: AdminConfiguration = AdminConfiguration()
    ) {
        self.pubSub = pubSub
        self.admin = admin
        self.filterFastConditionLimit = filterFastConditionLimit
        self.classes = classes
        self.seed = seed
        self.stateFile = stateFile
        self.startTime = startTime
        self.clock = clock
    }
}

/// A local DataSync and PubNub publish/subscribe service: the REST semantics of the DataSync API
/// over a set of keysets, publish, signal, fire, subscribe long-polls, channel groups and
/// presence, with an injectable clock and an ordered change feed. DataSync accepts any subscribe
/// key; the pub/sub routes accept only the configured ``PubSubConfiguration/keysets``. Access
/// control is off unless a keyset turns it on (``PubSubKeyset/accessControl``): then every
/// request on that keyset, DataSync included, needs a token granted through
/// `POST /v3/pam/{sub}/grant` or a request signature (Documentation/Emulator.md, "Access control").
///
/// Inside, an ``EmulatorRouter`` hands each request to the service that claims it (the admin
/// routes and web console under the reserved `/_emulator/`, the DataSync REST API under
/// `/v1/datasync/`, Access Manager grants under `/v3/pam/`, pub/sub under `/time`, `/publish`, `/signal`, `/v2/subscribe`
/// and `/v1/channel-registration`, presence under `/v2/presence`; anything else is a `404`). Every service owns its
/// state and reads the one ``clock``; DataSync writes reach other services only through the
/// change feed.
///
/// Use it in process through ``respond(to:)`` or ``handler`` (any HTTP server, or requests
/// built by hand) or serve it over HTTP with ``start(host:port:requestLog:)``.
///
/// ```swift
/// let emulator = try Emulator(configuration: EmulatorConfiguration(startTime: Date()))
/// let response = await emulator.respond(to: ServerRequest(method: "GET", target: "/v1/datasync/subkeys/demo/users"))
/// await emulator.advanceTime(days: 31)  // everything created above has now expired
/// ```
public actor Emulator {
    /// The clock every service reads; move it with ``advanceTime(bySeconds:)`` and ``setTime(_:)``
    /// (which also remove what expired), or directly when it is a manual clock.
    public nonisolated let clock: EmulatorClock
    /// The DataSync REST API.
    nonisolated let dataSync: DataSyncService
    /// The pub/sub bus: message logs, channel groups, presence.
    nonisolated let bus: PubSubBus
    /// Turns DataSync writes into real-time events (`e: 5`) on the bus, from the change feed.
    nonisolated let dataSyncEvents: DataSyncEventBridge
    /// Faults queued for the pub/sub and presence routes (``injectFault(_:on:count:)``).
    nonisolated let faults = FaultPlan()
    /// Faults for every route family, injected by the router (``addFault(_:)``, `/_emulator/v1/faults`).
    nonisolated let faultRegistry: FaultRegistry
    /// Envelopes posted with ``post(_:)``, drained onto the bus in order.
    private nonisolated let posted: AsyncStream<ServerEnvelope>.Continuation
    /// Hands each request to the service that claims it.
    nonisolated let router: EmulatorRouter
    /// The admin operations (reset, export, import, clock, the console's views).
    nonisolated let admin: EmulatorAdmin
    /// What the configured seed created at start; nil when no seed was configured.
    public nonisolated let seedSummary: SeedSummary?
    /// The HTTP server while ``start(host:port:requestLog:)`` is in effect.
    var server: RunningServer?
    /// The limits of that server (``EmulatorConfiguration/serverLimits``).
    nonisolated let serverLimits: EmulatorServerLimits
    /// Where requests are logged while serving: ``EmulatorConfiguration/logger`` when
    /// ``EmulatorConfiguration/logsRequests`` is on.
    nonisolated let requestLogger: (any PubNubLogger)?

    /// Creates an emulator: defines the configured classes, loads the state file if there is
    /// one, otherwise applies the seed.
    ///
    /// - Throws: ``EmulatorError`` when a document is invalid or the state file is corrupt
    ///   (a corrupt file is reported and left as it is, never replaced), a link, another user's
    ///   or in use by another emulator; `invalidConfiguration` for a keyset with an empty secret
    ///   key or a subscribe key of `.` or `..`.
    public init(configuration: EmulatorConfiguration = EmulatorConfiguration()) throws(EmulatorError) {
        try configuration.validate()
        let clock: EmulatorClock
        switch (configuration.clock, configuration.startTime) {
        case (let given?, let start?):
            given.set(to: EmulatorClock.Instant(start))
            clock = given
        case (let given?, nil): clock = given
        case (nil, let start?): clock = .manual(startingAt: start)
        case (nil, nil): clock = .system()
        }
        self.clock = clock
        serverLimits = configuration.serverLimits
        requestLogger = configuration.logsRequests ? configuration.logger : nil
        let saved = try configuration.stateFile.map { path throws(EmulatorError) in
            try PubSubJournal.open(path: path + ".pubsub", faults: configuration.pubSubStorageFaults)
        }
        if let state = saved?.1 {
            // A clock the admin routes moved stays moved, unless the caller brought its own clock.
            if let setting = state.clock, configuration.clock == nil { clock.restore(setting) }
            clock.continueTimetokens(above: state.floors)
        }
        let bus = PubSubBus(configuration: configuration.pubSub, clock: clock, saved: saved)
        self.bus = bus
        // DataSync never calls the bus: the bridge subscribes to its change feed, one write at a
        // time, and the gate holds each DataSync answer until that write's events are published.
        let events = DataSyncEventBridge(bus: bus)
        dataSyncEvents = events
        // The console's change stream and the seed summary listen from the first change on.
        let changes = Journal<ChangeEvent>(capacity: configuration.admin.changeBufferCapacity)
        let seedCounter = SeedCounter()
        let dataSync = try DataSyncService(
            configuration: configuration, clock: clock,
            changeSubscribers: [
                { change in
                    changes.append { _ in change }
                    seedCounter.receive(change)
                }
            ],
            writeSubscribers: [{ events.receive($0) }])
        self.dataSync = dataSync
        let created = seedCounter.finish()
        seedSummary = configuration.seed.map {
            SeedSummary(document: $0, created: created, stateFileConfigured: configuration.stateFile != nil)
        }
        let access = AccessRegistry(keysets: configuration.pubSub.keysets, clock: clock)
        let requestLog = RequestLog(
            capacity: configuration.admin.requestLogCapacity, excludedPrefix: AdminService.prefix)
        let hostPolicy = HostPolicy(allowedHosts: configuration.allowedHosts)
        let admin = EmulatorAdmin(
            dataSync: dataSync, bus: bus, dataSyncEvents: events, clock: clock, requestLog: requestLog,
            changes: changes,
            access: AdminAccess(
                configuredSecret: configuration.admin.secret, keysets: configuration.pubSub.keysets,
                hostPolicy: hostPolicy),
            pubSubKeysets: configuration.pubSub.keysets)
        self.admin = admin
        // The admin service comes first: the reserved prefix is never anyone else's.
        let faultRegistry = FaultRegistry(clock: clock)
        self.faultRegistry = faultRegistry
        let adminService = AdminService(admin: admin, faults: faultRegistry, tokens: AdminTokens(registry: access))
        let adminServices: [any EmulatorService] = configuration.admin.enabled ? [adminService] : []
        router = EmulatorRouter(
            services: adminServices + [
                AccessManagerService(registry: access), DataSyncEventGate(dataSync: dataSync, bridge: events),
                PubSubService(bus: bus, faults: faults), PresenceService(bus: bus, faults: faults),
                HistoryService(bus: bus),
                FileService(
                    bus: bus, fileLimit: configuration.pubSub.maximumFileBytes,
                    keysetLimit: configuration.pubSub.maximumFileStorageBytes),
                PushService(bus: bus),
            ],
            authorizer: AccessControl(registry: access, projector: dataSync), requestLog: requestLog,
            hostPolicy: hostPolicy, cors: CORSPolicy(excludedPrefix: AdminService.prefix), faults: faultRegistry)
        let (stream, continuation) = AsyncStream<ServerEnvelope>.makeStream(bufferingPolicy: .unbounded)
        posted = continuation
        // On the server's threads, like the handlers that wait for it (EmulatorHTTP).
        _ = detachedHandlerTask {
            for await envelope in stream { await bus.publish(envelope) }
        }
    }

    deinit {
        posted.finish()
    }

    /// A handler that answers requests from this emulator (through its router), to plug it into
    /// any HTTP server.
    public nonisolated var handler: any ServerHandler { router }

    /// Answers one raw request, as the HTTP server would hand it over. Requests for different
    /// services run concurrently: one waiting for a long time never delays another.
    public nonisolated func respond(to request: ServerRequest) async -> ServerResponse {
        await router.handle(request)
    }

    // MARK: Publish/subscribe

    /// The pub/sub keysets served.
    public nonisolated var pubSubKeysets: [PubSubKeyset] { bus.configuration.keysets }

    /// Publishes `envelope` on the bus as the server itself (not a client publish: no keys, no
    /// size limit), and returns its timetoken once subscribers can see it.
    ///
    /// This is the entry point for emulator services that emit real-time events, such as DataSync
    /// change events (`e: 5`).
    @discardableResult
    public nonisolated func publish(_ envelope: ServerEnvelope) async -> UInt64 {
        await bus.publish(envelope)
    }

    /// Queues `envelope` for the bus without waiting: envelopes posted from one task reach
    /// subscribers in the order posted. Safe to call from synchronous code, such as a change-feed
    /// subscriber, which must not wait.
    public nonisolated func post(_ envelope: ServerEnvelope) {
        posted.yield(envelope)
    }

    /// Makes the next `count` requests on `route` fail with `fault` (queued after earlier faults).
    public nonisolated func injectFault(_ fault: PubSubFault, on route: PubSubRoute, count: Int = 1) {
        faults.add(fault, on: route, count: count)
    }

    /// Removes every queued fault: those from ``injectFault(_:on:count:)`` and those from
    /// ``addFault(_:)`` or the admin routes.
    public nonisolated func clearFaults() {
        faults.clear()
        faultRegistry.clear()
    }

    /// Queues `rule` for every route family it matches, after the rules already queued, and
    /// returns its entry (its id removes it again). The same registry backs
    /// `/_emulator/v1/faults`, so rules added here are listed there and the other way round.
    @discardableResult
    public nonisolated func addFault(_ rule: FaultRule) -> FaultEntry { faultRegistry.add(rule) }

    /// The rules ``addFault(_:)`` and the admin routes queued, oldest first, with what is left of each.
    public nonisolated var faultEntries: [FaultEntry] { faultRegistry.entries }

    /// Removes one queued rule; false when no rule has `id` (it fired its last time or was removed).
    @discardableResult
    public nonisolated func removeFault(id: String) -> Bool { faultRegistry.remove(id: id) }

    /// How many requests a `delay` or `blackhole` fault holds right now, so a test can move the
    /// clock once they wait.
    public nonisolated var faultHeldCount: Int { faultRegistry.heldCount }

    /// Restarts the draws that decide probabilistic faults from `seed`, so a test sees the same
    /// firings every run.
    public nonisolated func seedFaults(_ seed: UInt64) { faultRegistry.reseed(seed) }

    /// How many subscribe long-polls are held right now.
    public nonisolated var heldSubscribeCount: Int { bus.waiters.count }

    /// Work counters of the pub/sub bus, for tests that check a fan-out's cost: how many times a
    /// long-poll read the log on the bus (`collects`) and how many subscribe answers were encoded
    /// rather than shared (`encodings`).
    package func pubSubWork() async -> (collects: Int, encodings: Int) {
        (await bus.collectCount, bus.answers.encodedCount)
    }

    // MARK: Seeding

    /// Defines classes (class-document format) in the keyset of `subscribeKey`.
    ///
    /// - Throws: ``EmulatorError`` with ``EmulatorError/Code-swift.struct/invalidClasses`` when the
    ///   document is refused (nothing is defined then).
    public func defineClasses(_ document: JSONValue, subscribeKey: String) async throws(EmulatorError) {
        try await dataSync.defineClasses(document, subscribeKey: subscribeKey)
    }

    /// Creates objects from a seed document (`{"keysets":{"<sub>":{"users":[…],…}}}`).
    ///
    /// - Throws: ``EmulatorError`` with ``EmulatorError/Code-swift.struct/invalidSeed`` and the
    ///   refused item's JSON Pointer.
    public func seed(_ document: JSONValue) async throws(EmulatorError) {
        // Items created before a refused one stay, and so do their events.
        do throws(EmulatorError) {
            try await dataSync.seed(document)
        } catch {
            await dataSyncEvents.waitUntilPublished()
            throw error
        }
        await dataSyncEvents.waitUntilPublished()
    }

    // MARK: Clock

    /// The emulator's current time.
    public var currentTime: Date { clock.now.date }

    /// Stops the clock at `date` (until moved again); objects past their expiry vanish and lapsed
    /// presences time out at once. The same as `POST /_emulator/v1/clock/set`.
    public func setTime(_ date: Date) async {
        await admin.setTime(date)
    }

    /// Moves the clock forward (or back, with a negative value) by `seconds`; objects past their
    /// expiry vanish and lapsed presences time out at once (tokens past their TTL are refused from
    /// the next request on). The same as `POST /_emulator/v1/clock/advance`.
    public func advanceTime(bySeconds seconds: Double) async {
        await admin.advance(bySeconds: seconds)
    }

    /// Moves the clock forward by whole days.
    public func advanceTime(days: Int) async {
        await advanceTime(bySeconds: Double(days) * 86_400)
    }

    // MARK: Change feed

    /// Every change committed after this call, in order. Buffering is unbounded so no change is
    /// dropped; stop iterating (cancel the task) to unsubscribe.
    public func changes() async -> AsyncStream<ChangeEvent> { await dataSync.changes() }

    /// Changes after `sequence` still held in the replay window (the last 10,000 at least).
    public func changes(after sequence: UInt64) async -> [ChangeEvent] { await dataSync.changes(after: sequence) }

    /// The sequence number of the last committed change (0 before any).
    public var lastSequence: UInt64 { get async { await dataSync.lastSequence } }

    // MARK: DataSync real-time events

    /// Returns once the real-time events of every DataSync write committed before this call are on
    /// the bus. A DataSync answer from ``respond(to:)`` or over HTTP already waits for its write's
    /// events; this is for writes made otherwise (``seed(_:)``).
    public nonisolated func waitForDataSyncEvents() async {
        await dataSyncEvents.waitUntilPublished()
    }

    /// The DataSync real-time events published for changes after `sequence` (a
    /// ``lastSequence`` read before a write gives exactly that write's events), in publish order,
    /// from the last 10,000 events published.
    public nonisolated func publishedDataSyncEvents(afterChange sequence: UInt64 = 0) -> [PublishedDataSyncEvent] {
        dataSyncEvents.records(afterChange: sequence)
    }

    /// Every DataSync real-time event published from now on, in publish order. Buffering is
    /// unbounded; stop iterating (cancel the task) to unsubscribe.
    public nonisolated func publishedDataSyncEventStream() -> AsyncStream<PublishedDataSyncEvent> {
        dataSyncEvents.stream()
    }
}
