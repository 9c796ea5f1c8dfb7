import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Realtime
import Testing
import Transport

/// What one receiver's listeners delivered, in order.
enum Heard: Sendable, CustomStringConvertible {
    case event(PubNubDataSyncEvent)
    case gap(PubNubDataSyncGap)
    /// A plain message the test published to mark a point in the stream.
    case marker(String)

    var event: PubNubDataSyncEvent? {
        if case .event(let event) = self { return event }
        return nil
    }

    var gap: PubNubDataSyncGap? {
        if case .gap(let gap) = self { return gap }
        return nil
    }

    var description: String {
        switch self {
        case .event(let event):
            return "event(\(event.change) \(event.kind) \(event.objectId ?? "?") on \(event.channel))"
        case .gap(let gap): return "\(gap)"
        case .marker(let name): return "marker(\(name))"
        }
    }
}

/// One receiver's deliveries as a stream the test reads a bounded number of items from.
final class Inbox {
    let continuation: AsyncStream<Heard>.Continuation
    private var iterator: AsyncStream<Heard>.Iterator

    init() {
        let (stream, continuation) = AsyncStream<Heard>.makeStream(bufferingPolicy: .unbounded)
        self.continuation = continuation
        iterator = stream.makeAsyncIterator()
    }

    /// Everything delivered before the marker `name` (other markers are left out). The marker is
    /// published after the writes under test, on the bus that orders every event, so whatever the
    /// writes sent this receiver has arrived when it does: nothing is awaited by time.
    func until(_ name: String) async -> [Heard] {
        var heard: [Heard] = []
        while let next = await iterator.next() {
            if case .marker(let marker) = next {
                if marker == name { return heard }
                continue
            }
            heard.append(next)
        }
        Issue.record("the inbox ended before marker \(name); got \(heard)")
        return heard
    }

    /// Everything delivered up to and including the first gap signal (markers left out).
    func throughGap() async -> [Heard] {
        var heard: [Heard] = []
        while let next = await iterator.next() {
            if case .marker = next { continue }
            heard.append(next)
            if next.gap != nil { return heard }
        }
        Issue.record("the inbox ended before a gap; got \(heard)")
        return heard
    }

    /// The events delivered before the marker `name`, requiring that no gap came.
    func events(until name: String) async -> [PubNubDataSyncEvent] {
        let heard = await until(name)
        #expect(heard.allSatisfy { $0.event != nil }, "unexpected gap among \(heard)")
        return heard.compactMap(\.event)
    }
}

/// A listener object that records into an inbox: the `PubNubEventsListener` path.
final class InboxListener: PubNubEventsListener {
    let continuation: AsyncStream<Heard>.Continuation

    init(_ inbox: Inbox) { continuation = inbox.continuation }

    func didReceive(dataSyncEvent: PubNubDataSyncEvent) { continuation.yield(.event(dataSyncEvent)) }
    func didReceive(dataSyncGap: PubNubDataSyncGap) { continuation.yield(.gap(dataSyncGap)) }
    func didReceive(message: PubNubMessage) {
        if case .string(let name) = message.payload { continuation.yield(.marker(name)) }
    }
}

/// Wires a receiver's `onDataSync` and `onMessage` closures into a new inbox.
func record(_ receiver: any EventListenerHolding) -> Inbox {
    let inbox = Inbox()
    let continuation = inbox.continuation
    let target = receiver
    target.onDataSync = { continuation.yield(.event($0)) }
    target.onMessage = { message in
        if case .string(let name) = message.payload { continuation.yield(.marker(name)) }
    }
    return inbox
}

func record(_ subscription: Subscription) -> Inbox {
    let inbox = record(subscription as any EventListenerHolding)
    let continuation = inbox.continuation
    subscription.onDataSyncGap = { continuation.yield(.gap($0)) }
    return inbox
}

func record(_ set: SubscriptionSet) -> Inbox {
    let inbox = record(set as any EventListenerHolding)
    let continuation = inbox.continuation
    set.onDataSyncGap = { continuation.yield(.gap($0)) }
    return inbox
}

func record(_ pubnub: PubNub) -> Inbox {
    let inbox = record(pubnub as any EventListenerHolding)
    let continuation = inbox.continuation
    pubnub.onDataSyncGap = { continuation.yield(.gap($0)) }
    return inbox
}

/// An emulator on an ephemeral loopback port with a stopped clock, a client that writes through
/// DataSync REST and a second client that watches through the subscribe loop, both on one backend.
final class RealtimeRig: StoppableRig {
    static let startTime = Date(timeIntervalSince1970: 1_788_766_495.265_625)

    static let classes: JSONValue = [
        "entityClasses": [
            ClassFixtures.entityClass(
                "Employee", extends: "User", eventsEnabled: true,
                versions: [ClassFixtures.version([ClassFixtures.property("team", "string")])]),
            ClassFixtures.eventedProduct,
            ClassFixtures.entityClass(
                "Course", eventsEnabled: true,
                versions: [
                    ClassFixtures.version(
                        [
                            ClassFixtures.property("title", "string"), ClassFixtures.property("enrolled", "integer"),
                            ClassFixtures.property("notes", "string"),
                        ],
                        projections: [(name: "stats", pointers: ["/payload/enrolled"])])
                ]),
        ],
        "relationshipClasses": [
            ClassFixtures.eventedBought
        ],
    ]

    let emulator: Emulator
    /// Writes through DataSync REST.
    let writer: PubNub
    /// Subscribes.
    let watcher: PubNub
    private var statuses: AsyncStream<PubNubStatus>.Iterator

    var dataSync: PubNubDataSync { writer.dataSync }

    init(
        _ backend: HTTPBackend, pubSub: PubSubConfiguration = PubSubConfiguration(),
        configure: (inout PubNubConfiguration) -> Void = { _ in }
    ) async throws {
        emulator = try Emulator(
            configuration: EmulatorConfiguration(classes: Self.classes, startTime: Self.startTime, pubSub: pubSub))
        let url = try await emulator.start()
        let origin = "\(try #require(url.host)):\(try #require(url.port))"
        func client(_ userId: String) throws -> PubNub {
            var configuration = PubNubConfiguration(
                publishKey: "demo", subscribeKey: "demo", userId: "\(userId)-\(backend)", origin: origin,
                useSecureConnections: false, transport: try backend.makeClient())
            configuration.heartbeatInterval = .zero
            configure(&configuration)
            return PubNub(configuration: configuration)
        }
        writer = try client("writer")
        watcher = try client("watcher")
        statuses = watcher.statuses(bufferingPolicy: .unbounded).makeAsyncIterator()
    }

    /// The next subscribe status of `category` that satisfies `condition`.
    @discardableResult
    func status(
        _ category: PubNubStatus.Category, where condition: (PubNubStatus) -> Bool = { _ in true }
    ) async throws -> PubNubStatus {
        while let status = await statuses.next() {
            if status.category == category, condition(status) { return status }
        }
        throw RigFailure("the status stream ended before \(category)")
    }

    /// Runs `subscribe` and waits until the loop is connected with every channel of `channels`.
    func connect(_ channels: [String], _ subscribe: () throws -> Void) async throws {
        try subscribe()
        try await status(.connected) { Set($0.subscribedChannels).isSuperset(of: channels) }
    }

    /// Creates users, channels and `Product` entities (class version 1, no payload), in that order,
    /// through DataSync REST: the objects a test links and watches.
    func seed(users: [String] = [], channels: [String] = [], products: [String] = []) async throws {
        for id in users { _ = try await dataSync.createUser(classVersion: 1, id: id) }
        for id in channels { _ = try await dataSync.createChannel(classVersion: 1, id: id) }
        for id in products { _ = try await dataSync.createEntity(className: "Product", classVersion: 1, id: id) }
    }

    /// Subscribes the watcher to the DataSync entity of each id (one subscription each), waits until
    /// the loop is connected to all of them, and returns their inboxes in the order of `ids`.
    func watch(_ ids: [String]) async throws -> [Inbox] {
        let subscriptions = ids.map { watcher.dataSyncEntity($0).subscription() }
        let inboxes = subscriptions.map { record($0) }
        try await connect(ids) { for subscription in subscriptions { subscription.subscribe() } }
        return inboxes
    }

    /// Publishes the plain message `name` on each of `channels`: a point after every event sent so far.
    func mark(_ name: String, on channels: [String]) async {
        for channel in channels {
            await emulator.publish(ServerEnvelope(subscribeKey: "demo", channel: channel, payload: .string(name)))
        }
    }

    func stop() async {
        watcher.unsubscribeAll()
        await emulator.stop()
    }
}

struct RigFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` with a fresh rig and always stops its emulator.
func withRig(
    _ backend: HTTPBackend, pubSub: PubSubConfiguration = PubSubConfiguration(),
    configure: (inout PubNubConfiguration) -> Void = { _ in }, _ body: (RealtimeRig) async throws -> Void
) async throws {
    try await RealtimeRig(backend, pubSub: pubSub, configure: configure).run(body)
}

extension PubNubDataSyncEvent {
    /// The created or updated user, or nil.
    var user: PubNubDataSyncUser? {
        guard case .user(let user)? = entity?.object else { return nil }
        return user
    }

    var channelObject: PubNubDataSyncChannel? {
        guard case .channel(let channel)? = entity?.object else { return nil }
        return channel
    }

    var customEntity: PubNubDataSyncEntity? {
        guard case .entity(let entity)? = entity?.object else { return nil }
        return entity
    }

    var membership: PubNubDataSyncMembership? {
        guard case .membership(let membership)? = relationship?.object else { return nil }
        return membership
    }

    var customRelationship: PubNubDataSyncRelationship? {
        guard case .relationship(let relationship)? = relationship?.object else { return nil }
        return relationship
    }
}
