public import EmulatorHTTP
public import Foundation
public import JSONCore

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

    /// Creates a configuration.
    public init(
        filterFastConditionLimit: Int = 10, classes: JSONValue? = nil, seed: JSONValue? = nil,
        stateFile: String? = nil, startTime: Date? = nil, clock: EmulatorClock? = nil
    ) {
        self.filterFastConditionLimit = filterFastConditionLimit
        self.classes = classes
        self.seed = seed
        self.stateFile = stateFile
        self.startTime = startTime
        self.clock = clock
    }
}

/// A local DataSync service: the REST semantics of the DataSync API over a set of keysets,
/// with an injectable clock and an ordered change feed. It accepts any publish key, subscribe
/// key and credential (access control is not emulated yet).
///
/// Inside, an ``EmulatorRouter`` hands each request to the service that claims it (today the
/// DataSync REST API under `/v1/datasync/`; anything else is a `404`). Every service owns its
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
    /// Hands each request to the service that claims it.
    nonisolated let router: EmulatorRouter
    /// The HTTP server while ``start(host:port:requestLog:)`` is in effect.
    var server: RunningServer?

    /// Creates an emulator: defines the configured classes, loads the state file if there is
    /// one, otherwise applies the seed.
    ///
    /// - Throws: ``EmulatorError`` when a document is invalid or the state file is corrupt
    ///   (a corrupt file is reported and left as it is, never replaced).
    public init(configuration: EmulatorConfiguration = EmulatorConfiguration()) throws(EmulatorError) {
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
        dataSync = try DataSyncService(configuration: configuration, clock: clock)
        router = EmulatorRouter(services: [dataSync])
    }

    /// A handler that answers requests from this emulator (through its router), to plug it into
    /// any HTTP server.
    public nonisolated var handler: any ServerHandler { router }

    /// Answers one raw request, as the HTTP server would hand it over. Requests for different
    /// services run concurrently: one waiting for a long time never delays another.
    public nonisolated func respond(to request: ServerRequest) async -> ServerResponse {
        await router.handle(request)
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
        try await dataSync.seed(document)
    }

    // MARK: Clock

    /// The emulator's current time.
    public var currentTime: Date { clock.now.date }

    /// Stops the clock at `date` (until moved again); objects past their expiry vanish at once.
    public func setTime(_ date: Date) async {
        clock.set(to: EmulatorClock.Instant(date))
        await dataSync.sweepExpired()
    }

    /// Moves the clock forward (or back, with a negative value) by `seconds`; objects past their
    /// expiry vanish at once.
    public func advanceTime(bySeconds seconds: Double) async {
        // Whole microseconds, as the emulator stores time; a non-finite step moves nothing and
        // a huge one is clamped instead of trapping.
        let micros = (seconds * 1_000_000).rounded()
        if micros.isFinite {
            clock.advance(by: .microseconds(Int64(max(-9.2e15, min(9.2e15, micros)))))
        }
        await dataSync.sweepExpired()
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
}
