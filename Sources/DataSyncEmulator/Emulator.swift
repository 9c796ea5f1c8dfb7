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
    /// (``Emulator/advanceTime(bySeconds:)``); otherwise it follows the system clock.
    public var startTime: Date?

    /// Creates a configuration.
    public init(
        filterFastConditionLimit: Int = 10, classes: JSONValue? = nil, seed: JSONValue? = nil,
        stateFile: String? = nil, startTime: Date? = nil
    ) {
        self.filterFastConditionLimit = filterFastConditionLimit
        self.classes = classes
        self.seed = seed
        self.stateFile = stateFile
        self.startTime = startTime
    }
}

/// A local DataSync service: the REST semantics of the DataSync API over a set of keysets,
/// with an injectable clock and an ordered change feed. It accepts any publish key, subscribe
/// key and credential (access control is not emulated yet).
///
/// Use it in process through ``handler`` (any HTTP server, or requests built by hand) or
/// serve it over HTTP.
///
/// ```swift
/// let emulator = try Emulator(configuration: EmulatorConfiguration(startTime: Date()))
/// let response = await emulator.respond(to: ServerRequest(method: "GET", target: "/v1/datasync/subkeys/demo/users"))
/// await emulator.advanceTime(days: 31)  // everything created above has now expired
/// ```
public actor Emulator {
    let engine: Engine
    private let stateFile: String?
    /// The HTTP server while ``start(host:port:)`` is in effect.
    var server: RunningServer?

    /// Creates an emulator: defines the configured classes, loads the state file if there is
    /// one, otherwise applies the seed.
    ///
    /// - Throws: ``EmulatorError`` when a document is invalid or the state file is corrupt
    ///   (a corrupt file is reported and left as it is, never replaced).
    public init(configuration: EmulatorConfiguration = EmulatorConfiguration()) throws(EmulatorError) {
        let clock = Engine.Clock(
            frozenAt: configuration.startTime.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded(.down)) })
        engine = Engine(filterFastConditionLimit: max(1, configuration.filterFastConditionLimit), clock: clock)
        stateFile = configuration.stateFile
        if let classes = configuration.classes { try engine.setClassTemplate(classes) }
        var loaded = false
        if let stateFile, let document = try StateFile.read(path: stateFile) {
            try StateFile.restore(document, into: engine)
            loaded = true
        }
        if !loaded, let seed = configuration.seed {
            try engine.seed(seed)
        }
        try Self.persist(engine, to: stateFile)
    }

    /// A handler that answers DataSync REST requests from this emulator.
    public nonisolated var handler: any ServerHandler { EmulatorHandler(emulator: self) }

    /// Answers one raw request.
    public func respond(to request: ServerRequest) -> ServerResponse {
        let response = engine.handle(request)
        do {
            try persistIfNeeded()
        } catch {
            return Engine.errorResponse(
                APIError(status: 500, code: .internalError, message: "the change was applied but not saved: \(error)"))
        }
        return response
    }

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

    // MARK: Seeding

    /// Defines classes (class-document format) in the keyset of `subscribeKey`.
    public func defineClasses(_ document: JSONValue, subscribeKey: String) throws(EmulatorError) {
        try engine.defineClasses(document, subscribeKey: subscribeKey)
        try persistIfNeeded()
    }

    /// Creates objects from a seed document (`{"keysets":{"<sub>":{"users":[…],…}}}`).
    public func seed(_ document: JSONValue) throws(EmulatorError) {
        defer { try? persistIfNeeded() }
        try engine.seed(document)
    }

    // MARK: Clock

    /// The emulator's current time.
    public var currentTime: Date { Date(timeIntervalSince1970: Double(engine.now()) / 1_000_000) }

    /// Stops the clock at `date` (until moved again); objects past their expiry vanish at once.
    public func setTime(_ date: Date) {
        engine.clock = Engine.Clock(frozenAt: Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down)))
        engine.sweepAll()
        try? persistIfNeeded()
    }

    /// Moves the clock forward (or back, with a negative value) by `seconds`.
    public func advanceTime(bySeconds seconds: Double) {
        engine.clock.offset += Int64((seconds * 1_000_000).rounded())
        engine.sweepAll()
        try? persistIfNeeded()
    }

    /// Moves the clock forward by whole days.
    public func advanceTime(days: Int) {
        advanceTime(bySeconds: Double(days) * 86_400)
    }

    // MARK: Change feed

    /// Every change committed after this call, in order. Buffering is unbounded so no change is
    /// dropped; stop iterating (cancel the task) to unsubscribe.
    public func changes() -> AsyncStream<ChangeEvent> { engine.feed.subscribe() }

    /// Changes after `sequence` still held in the replay window (the last 10,000 at least).
    public func changes(after sequence: UInt64) -> [ChangeEvent] { engine.feed.events(after: sequence) }

    /// The sequence number of the last committed change (0 before any).
    public var lastSequence: UInt64 { engine.revision }

    /// Removes every object whose `expiresAt` has passed, in every keyset (requests do this for
    /// their own keyset, and a serving emulator about once a second).
    func sweepExpired() {
        engine.sweepAll()
        try? persistIfNeeded()
    }
}

/// Routes requests from an HTTP server to an ``Emulator``.
struct EmulatorHandler: ServerHandler {
    let emulator: Emulator

    func handle(_ request: ServerRequest) async -> ServerResponse {
        await emulator.respond(to: request)
    }
}
