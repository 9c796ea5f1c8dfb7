import Auth
import DataSync
import DataSyncEmulator
import DataSyncLive
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubBase
import PubNubCore
import Realtime
import Testing
import Transport

struct RigFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// An emulator in this process on an ephemeral port whose clock moves only when told, writers
/// that change DataSync objects through REST, and a watcher client that runs live views, all on
/// one HTTP backend.
///
/// Every write first moves the emulator's clock by a millisecond, so timestamps advance as on the
/// real service (a stopped clock stamps a delete and a re-creation with the same instant). The
/// watcher's own clock (reconnection delays, the views' retry backoff) is a manual clock too.
final class LiveRig: Sendable, StoppableRig {
    static let startTime = Date(timeIntervalSince1970: 1_788_766_495.265_625)

    static let classes: JSONValue = [
        "entityClasses": [
            ClassFixtures.eventedProduct,
            ClassFixtures.entityClass(
                "Course", eventsEnabled: true,
                versions: [
                    ClassFixtures.version(
                        [ClassFixtures.property("title", "string"), ClassFixtures.property("enrolled", "integer")],
                        projections: [(name: "stats", pointers: ["/payload/enrolled"])])
                ]),
        ],
        "relationshipClasses": [
            ClassFixtures.eventedBought,
            ClassFixtures.relationshipClass("Related", from: "Product", to: "Product", eventsEnabled: true),
        ],
    ]

    let backend: HTTPBackend
    let emulator: Emulator
    let origin: String
    let host: String
    let port: Int
    let subscribeKey: String
    let publishKey: String
    let watcherClock = ManualClock()
    let watcher: PubNub
    let writers: [PubNub]
    let statuses = StatusLog()

    /// With `LIVE_RIG_LOG` set to a file path, the emulator's subscribe requests are appended there.
    static let requestLog: (@Sendable (String) -> Void)? =
        ProcessInfo.processInfo.environment["LIVE_RIG_LOG"] == nil ? nil : { @Sendable line in diag(line) }

    init(
        _ backend: HTTPBackend, keyset: PubSubKeyset = .demo, pubSub: PubSubConfiguration? = nil,
        writers count: Int = 2,
        writerToken: String? = nil, watcherToken: String? = nil,
        configure: (inout PubNubConfiguration) -> Void = { _ in }
    ) async throws {
        self.backend = backend
        var pubSub = pubSub ?? PubSubConfiguration()
        pubSub.keysets = [keyset]
        emulator = try Emulator(
            configuration: EmulatorConfiguration(classes: Self.classes, startTime: Self.startTime, pubSub: pubSub))
        let url = try await emulator.start(requestLog: Self.requestLog)
        host = try #require(url.host)
        port = try #require(url.port)
        origin = "\(host):\(port)"
        subscribeKey = keyset.subscribeKey
        publishKey = keyset.publishKey
        var configuration = PubNubConfiguration(
            publishKey: keyset.publishKey, subscribeKey: keyset.subscribeKey, userId: "watcher-\(backend)",
            authToken: watcherToken, origin: origin, useSecureConnections: false, transport: try backend.makeClient(),
            retryPolicy: .none, clock: watcherClock)
        configuration.subscribeReconnectionPolicy = .linear(delay: .seconds(2), maximumJitter: .zero)
        configuration.heartbeatInterval = .zero
        configure(&configuration)
        watcher = PubNub(configuration: configuration)
        writers = try (0..<count).map { index in
            PubNub(
                configuration: PubNubConfiguration(
                    publishKey: keyset.publishKey, subscribeKey: keyset.subscribeKey,
                    userId: "writer\(index)-\(backend)",
                    authToken: writerToken, origin: "\(url.host ?? ""):\(url.port ?? 0)", useSecureConnections: false,
                    transport: try backend.makeClient(), retryPolicy: .none, clock: ManualClock()))
        }
        statuses.attach(to: watcher)
    }

    var dataSync: PubNubDataSync { writers[0].dataSync }

    /// Moves the emulator's clock by a millisecond: the next write is stamped later than the last.
    func tick() async {
        await emulator.advanceTime(bySeconds: 0.001)
    }

    /// The Access Manager tool for this rig's keyset (server side, holds the secret key).
    func accessManager(secretKey: String) throws -> AccessManagerTestServer {
        let emulator = self.emulator
        return AccessManagerTestServer(
            client: try backend.makeClient(), host: host, port: port, publishKey: publishKey,
            subscribeKey: subscribeKey, secretKey: secretKey, now: { emulator.clock.now.date })
    }

    /// Lets the watcher's pending reconnection timer (or a view's retry) fire.
    func fireWatcherTimer(after delay: Duration = .seconds(2)) async {
        await watcherClock.waitForSleepers(1)
        watcherClock.advance(by: delay)
    }

    func stop() async {
        watcher.unsubscribeAll()
        await emulator.stop()
    }
}

/// Runs `body` with a fresh rig and always stops its emulator.
func withLiveRig(
    _ backend: HTTPBackend, keyset: PubSubKeyset = .demo, pubSub: PubSubConfiguration? = nil,
    writerToken: String? = nil, watcherToken: String? = nil,
    configure: (inout PubNubConfiguration) -> Void = { _ in }, _ body: (LiveRig) async throws -> Void
) async throws {
    try await LiveRig(
        backend, keyset: keyset, pubSub: pubSub, writerToken: writerToken, watcherToken: watcherToken,
        configure: configure
    ).run(body)
}

/// ``withLiveRig(_:keyset:pubSub:writerToken:watcherToken:configure:_:)`` with ``World``'s objects
/// written before `body` runs: where the end-to-end view tests start.
func withSeededLiveRig(
    _ backend: HTTPBackend, pubSub: PubSubConfiguration? = nil,
    configure: (inout PubNubConfiguration) -> Void = { _ in }, _ body: (LiveRig) async throws -> Void
) async throws {
    try await withLiveRig(backend, pubSub: pubSub, configure: configure) { rig in
        try await World.seed(rig)
        try await body(rig)
    }
}

/// The watcher's subscribe statuses, with waits that never sleep.
final class StatusLog: Sendable {
    let waitable = Waitable<[PubNubStatus]>([])
    private var log: Waitable<[PubNubStatus]> { waitable }

    func attach(to pubnub: PubNub) {
        pubnub.onStatus = { [log] status in log.update { $0.append(status) } }
    }

    var all: [PubNubStatus] { log.value }

    /// Waits until `count` statuses of `category` were reported.
    @discardableResult
    func wait(for category: PubNubStatus.Category, count: Int = 1) async -> Bool {
        await log.wait { $0.filter { $0.category == category }.count >= count }
    }
}

/// Records every snapshot a view produces, in order, and lets a test wait (without sleeping) until
/// they satisfy a condition. A wait that is never satisfied ends with the test's time limit.
final class SnapshotLog<Object: PubNubDataSyncObject>: Sendable {
    private let log = Waitable<[PubNubLiveSnapshot<Object>]>([])
    private let ended = Waitable<String?>(nil)
    private let task: Locked<Task<Void, Never>?> = Locked(nil)

    /// Starts iterating `view` in a task of its own.
    init(_ view: PubNubLiveView<Object>) {
        let log = self.log
        let ended = self.ended
        task.withLock {
            $0 = Task {
                do {
                    for try await snapshot in view { log.update { $0.append(snapshot) } }
                    ended.update { $0 = "finished" }
                } catch {
                    ended.update { $0 = "failed: \(error)" }
                }
            }
        }
    }

    var snapshots: [PubNubLiveSnapshot<Object>] { log.value }
    var last: PubNubLiveSnapshot<Object>? { snapshots.last }
    var ending: String? { ended.value }

    /// Waits until the latest snapshot satisfies `condition`; false when the wait was cancelled.
    @discardableResult
    func waitForLast(_ condition: @escaping @Sendable (PubNubLiveSnapshot<Object>) -> Bool) async -> Bool {
        await log.wait { snapshots in snapshots.last.map(condition) ?? false }
    }

    /// Waits until any snapshot satisfied `condition`.
    @discardableResult
    func waitForAny(_ condition: @escaping @Sendable (PubNubLiveSnapshot<Object>) -> Bool) async -> Bool {
        await log.wait { $0.contains(where: condition) }
    }

    /// Waits until the latest snapshot is current and holds exactly `objects` (as the service
    /// answered them).
    @discardableResult
    func waitForConvergence(to objects: [Object]) async -> Bool {
        let expected = objects.sorted { $0.id < $1.id }
        return await waitForLast { $0.isCurrent && $0.values == expected }
    }

    /// Ends the iteration (the view unsubscribes what it alone held).
    func cancel() {
        task.withLock { $0?.cancel() }
    }

    func waitUntilEnded() async -> String? {
        _ = await ended.wait { $0 != nil }
        return ended.value
    }

    /// Every place where a snapshot showed an object at an older version than an earlier snapshot
    /// had shown it (deleted in between or not).
    var regressions: [String] {
        var newest: [String: Object] = [:]
        var found: [String] = []
        for snapshot in snapshots {
            for object in snapshot {
                if let seen = newest[object.id] {
                    if PubNubLiveVersion.isNewer(seen, than: object) {
                        found.append(
                            "snapshot \(snapshot.sequence): \(object.id) went back from \(seen.eTag)@\(seen.updatedAt) "
                                + "to \(object.eTag)@\(object.updatedAt)")
                    }
                    if PubNubLiveVersion.isNewer(object, than: seen) { newest[object.id] = object }
                } else {
                    newest[object.id] = object
                }
            }
        }
        return found
    }

    /// The staleness reasons the snapshots reported, in order, without repeats in a row.
    var stalenessTrail: [String] {
        var trail: [String] = []
        for snapshot in snapshots {
            let entry =
                snapshot.staleness.map { "\($0.reason):\($0.detail)" }
                ?? (snapshot.isComplete ? "current" : "incomplete")
            if trail.last != entry { trail.append(entry) }
        }
        return trail
    }
}

/// Ignores the refusals a random sequence of writes runs into (a conflict, an object already
/// removed): they are part of what it exercises.
func attempt(_ write: () async throws -> Void) async {
    do {
        try await write()
    } catch let error as PubNubError where [.conflict, .resourceNotFound, .preconditionFailed].contains(error.reason) {
    } catch {
        Issue.record("unexpected write failure: \(error)")
    }
}

/// Appends a line to the file `LIVE_RIG_LOG` names, when it exists (a debugging aid).
func diag(_ text: String) {
    guard let path = ProcessInfo.processInfo.environment["LIVE_RIG_LOG"],
        let handle = FileHandle(forWritingAtPath: path)
    else { return }
    handle.seekToEndOfFile()
    handle.write(Data((text + "\n").utf8))
    try? handle.close()
}
