import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase
import Testing

@testable import DataSyncEmulator

/// Collects what a feed subscriber is called with.
private final class Collected: Sendable {
    private let events = Locked<[ChangeEvent]>([])
    func append(_ event: ChangeEvent) { events.withLock { $0.append(event) } }
    var all: [ChangeEvent] { events.withLock { $0 } }
}

@Suite("Change feed subscribers", .timeLimit(.minutes(1)))
struct ChangeFeedTests {
    private static let noteClass: JSONValue = [
        "entityClasses": [
            [
                "name": "Note", "eventsEnabled": true,
                "versions": [
                    [
                        "version": 1,
                        "properties": [["name": "text", "pointer": "/payload/text", "type": "string"]],
                    ]
                ],
            ]
        ]
    ]

    /// A client with the events-enabled `Note` class on a stopped clock, and what a change
    /// subscriber added before any write collects.
    private static func noteClientWithSubscriber() async throws -> (TestClient, Collected) {
        let client = try TestClient(configuration: EmulatorConfiguration(classes: noteClass, startTime: startInstant))
        let collected = Collected()
        await client.emulator.dataSync.addChangeSubscriber { collected.append($0) }
        return (client, collected)
    }

    @Test("a subscriber sees create, update and delete of an events-enabled class in order, as they commit")
    func subscriberSeesWritesInOrder() async throws {
        let (client, collected) = try await Self.noteClientWithSubscriber()

        let created = try await client.create(
            "entities", ["id": "n1", "entityClass": "Note", "entityClassVersion": 1, "payload": ["text": "a"]])
        #expect(created.status == 201)
        // Called while the change commits: the event is there before the REST answer returns.
        #expect(collected.all.map(\.action) == [.create])
        let set = try await client.set("entities", "n1", ["entityClassVersion": 1, "payload": ["text": "b"]])
        #expect(set.status == 200)
        let patched = try await client.patch(
            "entities", "n1", [["op": "replace", "path": "/payload/text", "value": "c"]])
        #expect(patched.status == 200)
        _ = try await client.get("entities/n1")
        #expect(try await client.remove("entities", "n1").status == 200)

        let events = collected.all
        #expect(events.map(\.action) == [.create, .update, .update, .delete])
        #expect(events.map(\.sequence) == [1, 2, 3, 4])
        #expect(events.allSatisfy { $0.className == "Note" && $0.eventsEnabled && $0.id == "n1" })
        #expect(events.allSatisfy { $0.subscribeKey == "sub-a" && $0.objectType == "entity" })
        #expect(events.map { $0.object["payload"]?["text"] } == ["a", "b", "c", "c"])
        #expect(events.map(\.cause) == [.request, .request, .request, .request])
    }

    @Test("on a stopped clock every write is stamped later than the one before, so clients can order them")
    func stoppedClockStillOrdersWrites() async throws {
        // Before: a delete was stamped with the clock's time, earlier than the update it followed
        // (which had moved `updatedAt` one microsecond on), and a re-creation shared the delete's
        // microsecond, so a client keeping versions dropped it as part of the deleted incarnation.
        let (client, collected) = try await Self.noteClientWithSubscriber()
        let note: JSONValue = ["id": "n1", "entityClass": "Note", "entityClassVersion": 1, "payload": ["text": "a"]]
        #expect(try await client.create("entities", note).status == 201)
        #expect(
            try await client.patch("entities", "n1", [["op": "replace", "path": "/payload/text", "value": "b"]])
                .status == 200)
        #expect(try await client.remove("entities", "n1").status == 200)
        #expect(try await client.create("entities", note).status == 201)
        try await client.user("u1")
        try await client.user("u2")

        let events = collected.all
        #expect(events.map(\.action) == [.create, .update, .delete, .create, .create, .create])
        let times = events.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
        let recreated = try #require(events.dropFirst(3).first?.object["createdAt"]?.stringValue)
        let firstCreated = try #require(events.first?.object["createdAt"]?.stringValue)
        #expect(recreated != firstCreated, "the new incarnation has a createdAt of its own")
    }

    @Test("subscribers given at creation see the seed; a removed subscriber is not called again")
    func subscribersAtCreationAndRemoval() async throws {
        let collected = Collected()
        let seed: JSONValue = ["keysets": ["demo": ["users": [["id": "u1"], ["id": "u2"]]]]]
        let service = try DataSyncService(
            configuration: EmulatorConfiguration(seed: seed, startTime: startInstant),
            clock: .manual(startingAt: startInstant), changeSubscribers: [{ collected.append($0) }])
        #expect(collected.all.map(\.id) == ["u1", "u2"])

        let later = Collected()
        let id = await service.addChangeSubscriber { later.append($0) }
        let remove = ServerRequest(method: "DELETE", target: "/v1/datasync/subkeys/demo/users/u1")
        #expect(await service.respond(to: remove).status == 200)
        await service.removeChangeSubscriber(id)
        let removeAgain = ServerRequest(method: "DELETE", target: "/v1/datasync/subkeys/demo/users/u2")
        #expect(await service.respond(to: removeAgain).status == 200)
        #expect(later.all.map(\.id) == ["u1"])
        #expect(collected.all.map(\.id) == ["u1", "u2", "u1", "u2"])
    }

    @Test("while serving, moving a manual clock past a TTL removes the object without any request")
    func manualClockDrivesExpiry() async throws {
        let clock = EmulatorClock.manual(startingAt: startInstant)
        let client = try TestClient(configuration: EmulatorConfiguration(clock: clock))
        try await client.user("u1")
        let changes = await client.emulator.changes()
        _ = try await client.emulator.start()
        // The sweeper is asleep on the clock; move the clock itself (not Emulator.advanceTime).
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(31 * 86_400))
        var iterator = changes.makeAsyncIterator()
        let expired = try #require(await iterator.next())
        #expect(expired.id == "u1")
        #expect(expired.action == .delete)
        #expect(expired.cause == .expiry)
        await client.emulator.stop()
        #expect(clock.sleeperCount == 0)
    }
}
