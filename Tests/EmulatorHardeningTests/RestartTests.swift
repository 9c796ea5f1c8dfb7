import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase
import Testing

@testable import DataSyncEmulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One subscribe answer: its cursor and its messages' payloads and timetokens.
private struct Delivery {
    var cursor: UInt64
    var messages: [(payload: JSONValue, timetoken: UInt64)]
}

private func decodeDelivery(_ body: [UInt8]) throws -> Delivery {
    let json = try JSONValue(parsing: body)
    let cursor = try #require(json["t"]?["t"]?.stringValue.flatMap { UInt64($0) }, "no cursor in the answer")
    let messages = try (json["m"]?.arrayValue ?? []).map { message in
        let timetoken = try #require(message["p"]?["t"]?.stringValue.flatMap { UInt64($0) })
        return (payload: message["d"] ?? .null, timetoken: timetoken)
    }
    return Delivery(cursor: cursor, messages: messages)
}

/// The timetoken of a `[1,"Sent","<tt>"]` answer.
private func acknowledgedTimetoken(_ status: Int, _ body: [UInt8]) throws -> UInt64 {
    #expect(status == 200)
    let json = try JSONValue(parsing: body)
    #expect(json[0]?.int64Value == 1)
    return try #require(json[2]?.stringValue.flatMap { UInt64($0) }, "no timetoken in \(json)")
}

private func get(_ emulator: Emulator, _ target: String) async -> ServerResponse {
    await emulator.respond(to: ServerRequest(method: "GET", target: target))
}

private func publish(_ emulator: Emulator, _ value: Int, channel: String = "ch") async throws -> UInt64 {
    let reply = await get(emulator, "/publish/demo/demo/0/\(channel)/0/\(value)")
    return try acknowledgedTimetoken(reply.status, reply.body)
}

private func subscribe(_ emulator: Emulator, _ channels: String = "ch", tt: UInt64, query: String = "")
    async throws -> Delivery
{
    let reply = await get(emulator, "/v2/subscribe/demo/\(channels)/0?uuid=sub&tt=\(tt)\(query)")
    #expect(reply.status == 200)
    return try decodeDelivery(reply.body)
}

private func timeEndpoint(_ emulator: Emulator) async throws -> UInt64 {
    let reply = await get(emulator, "/time/0")
    return try #require((try JSONValue(parsing: reply.body))[0]?.int64Value.map { UInt64($0) })
}

/// Issue 30 §4: with a state file, a restart keeps the catch-up buffer, channel groups and the
/// clock's setting, and timetokens continue above every one handed out before.
@Suite("restarts keep what clients ask for")
struct RestartTests {
    @Test("a cursor taken before a restart catches up on everything published after it, in order, once")
    func catchUpSurvivesRestart() async throws {
        try await withStateFile { path in
            var published: [(Int, UInt64)] = []
            let cursor: UInt64
            do {
                let first = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                for value in 0..<5 { published.append((value, try await publish(first, value))) }
                // The client's cursor: after the first five, before the next fifteen.
                cursor = try await subscribe(first, tt: 0).cursor
                for value in 5..<20 { published.append((value, try await publish(first, value))) }
                // A fire (not stored) and another channel are not the client's business.
                _ = try await publish(first, 99, channel: "other")
            }
            let second = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            // Published after the restart, it ends the catch-up at once even when nothing came back.
            let marker = try await publish(second, 100)
            let caughtUp = try await subscribe(second, tt: cursor)
            #expect(caughtUp.messages.map(\.payload) == (5..<20).map { JSONValue.int(Int64($0)) } + [100])
            #expect(caughtUp.messages.map(\.timetoken) == published.dropFirst(5).map(\.1) + [marker])
            #expect(caughtUp.cursor == marker)
            // Nothing comes twice: the next poll from the returned cursor sees only what is new.
            let fresh = try await publish(second, 20)
            let next = try await subscribe(second, tt: caughtUp.cursor)
            #expect(next.messages.map(\.payload) == [20])
            #expect(next.messages.map(\.timetoken) == [fresh])
            #expect(published.allSatisfy { marker > $0.1 })
        }
    }

    @Test("a stopped clock hands out no timetoken twice across a restart, nor one below a cursor")
    func stoppedClockContinuesAbove() async throws {
        try await withStateFile { path in
            let start = Date(timeIntervalSince1970: 1_788_766_495)
            var handedOut: [UInt64] = []
            do {
                let first = try Emulator(configuration: EmulatorConfiguration(stateFile: path, startTime: start))
                for value in 0..<3 { handedOut.append(try await publish(first, value)) }
                // Tokens handed out without a publish count as much: an empty answer's cursor, /time.
                handedOut.append(try await subscribe(first, "quiet", tt: 0).cursor)
                handedOut.append(try await timeEndpoint(first))
            }
            let second = try Emulator(configuration: EmulatorConfiguration(stateFile: path, startTime: start))
            let highest = try #require(handedOut.max())
            #expect(try await publish(second, 3) > highest)
            #expect(try await subscribe(second, "quiet", tt: 0).cursor > highest)
            #expect(try await timeEndpoint(second) > highest)
        }
    }

    @Test("a clock moved with the admin routes stays moved, and timetokens never go lower, forwards or back")
    func movedClockStaysMoved() async throws {
        try await withStateFile { path in
            let configuration = EmulatorConfiguration(stateFile: path)
            let day = 86_400.0
            var before: UInt64 = 0
            do {
                let first = try Emulator(configuration: configuration)
                await first.advanceTime(days: 1)
                before = try await publish(first, 1)
            }
            // Forwards: still a day ahead of the system clock, and above the tokens of that day.
            let past = Date(timeIntervalSinceNow: -3_600)
            var afterBack: UInt64 = 0
            var timeBefore: UInt64 = 0
            do {
                // Scoped: the state file is locked for as long as an emulator on it lives.
                let second = try Emulator(configuration: configuration)
                #expect(await second.currentTime.timeIntervalSinceNow > day - 3_600)
                #expect(second.clock.isStopped == false)
                let afterForward = try await publish(second, 2)
                #expect(afterForward > before)
                // Back: set an hour into the past; tokens still climb, in this run and the next.
                await second.setTime(past)
                afterBack = try await publish(second, 3)
                #expect(afterBack > afterForward)
                // `/time` draws from a sequence of its own (keysets are independent); it never goes back either.
                timeBefore = try await timeEndpoint(second)
            }
            let third = try Emulator(configuration: configuration)
            #expect(third.clock.isStopped)
            #expect(abs(await third.currentTime.timeIntervalSince(past)) < 0.001)
            #expect(try await publish(third, 4) > afterBack)
            #expect(try await timeEndpoint(third) > timeBefore)
        }
    }

    @Test("channel groups survive a restart; a reset keyset stays reset")
    func groupsSurviveRestart() async throws {
        try await withStateFile { path in
            do {
                let first = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                let base = "/v1/channel-registration/sub-key/demo/channel-group"
                #expect(await get(first, "\(base)/friends?add=a,b").status == 200)
                #expect(await get(first, "\(base)/gone?add=c").status == 200)
                #expect(await get(first, "\(base)/friends?remove=b").status == 200)
                #expect(await get(first, "\(base)/gone/remove").status == 200)
            }
            do {
                let second = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                let groups = await second.bus.groupsSnapshot("demo")
                #expect(groups == ["friends": ["a"]])
                _ = try await publish(second, 1)
                await second.resetKeyset("demo")
            }
            let third = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            #expect(await third.bus.groupsSnapshot("demo").isEmpty)
            #expect(await third.bus.recentEvents("demo", after: nil, limit: 10).events.isEmpty)
        }
    }

    @Test("a restart with a smaller buffer keeps the newest events")
    func smallerBufferKeepsNewest() async throws {
        try await withStateFile { path in
            do {
                let first = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                for value in 0..<12 { _ = try await publish(first, value) }
            }
            let small = EmulatorConfiguration(stateFile: path, pubSub: PubSubConfiguration(catchUpBufferSize: 5))
            let second = try Emulator(configuration: small)
            let kept = await second.bus.recentEvents("demo", after: 0, limit: 100).events.map(\.payload)
            #expect(kept == (7..<12).map { JSONValue.int(Int64($0)) })
        }
    }

    @Test("a torn last record of the pub/sub file is dropped; a damaged one before others is refused")
    func tornAndDamagedRecords() async throws {
        try await withStateFile { path in
            let pubSubPath = path + ".pubsub"
            do {
                let first = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                for value in 0..<3 { _ = try await publish(first, value) }
            }
            // A record whose length promises more than the file holds: a write cut short by a crash.
            let handle = try #require(FileHandle(forWritingAtPath: pubSubPath))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data([40, 0, 0, 0, 1, 2, 3, 4, 5]))
            try handle.close()
            do {
                let second = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                let kept = await second.bus.recentEvents("demo", after: 0, limit: 100).events.map(\.payload)
                #expect(kept == [0, 1, 2])
                _ = try await publish(second, 3)
            }
            // One byte changed inside the first event record, with records after it: damage.
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: pubSubPath)))
            let marker = Array(#""r":"event""#.utf8)
            let at = try #require(
                (0...(bytes.count - marker.count)).first { Array(bytes[$0..<($0 + marker.count)]) == marker })
            bytes[at + 1] = UInt8(ascii: "R")
            try Data(bytes).write(to: URL(fileURLWithPath: pubSubPath))
            do {
                _ = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
                Issue.record("a damaged pub/sub file was accepted")
            } catch let error as EmulatorError {
                #expect(error.code == .corruptStateFile)
                #expect(error.message.contains(pubSubPath))
            }
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: pubSubPath))) == bytes)
        }
    }

    @Test("a publish the state file cannot take is answered 500 and delivered to nobody")
    func unsavedPublishIsRefused() async throws {
        try await withStateFile { path in
            var configuration = EmulatorConfiguration(stateFile: path)
            let faults = StorageFaults()
            configuration.pubSubStorageFaults = faults
            do {
                let first = try Emulator(configuration: configuration)
                faults.inject(.appendFails)
                let refused = await get(first, "/publish/demo/demo/0/ch/0/1")
                #expect(refused.status == 500)
                #expect((try JSONValue(parsing: refused.body))[0]?.int64Value == 0)
                _ = try await publish(first, 2)
                let held = await first.bus.recentEvents("demo", after: 0, limit: 100).events.map(\.payload)
                #expect(held == [2])
            }
            let second = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            #expect(await second.bus.recentEvents("demo", after: 0, limit: 100).events.map(\.payload) == [2])
        }
    }

    @Test("without a state file nothing is written next to anything")
    func noStateFileNoJournal() async throws {
        let emulator = try Emulator()
        _ = try await publish(emulator, 1)
        #expect(await emulator.bus.persists == false)
    }
}

/// Issue 30 §4 with `kill -9`: every publish acknowledged before the kill is in the catch-up
/// buffer after the restart, in order, once.
@Suite("kill -9 while publishing", .serialized)
struct PublishKillTests {
    /// What the publisher saw: each acknowledged value with its timetoken, and a value in flight.
    struct Progress: Sendable {
        var acknowledged: [(value: Int, timetoken: UInt64)] = []
        var attempted: Int?
    }

    @Test("acknowledged publishes survive kill -9 and arrive in order, once")
    func acknowledgedPublishesSurvive() async throws {
        try await withStateFile { path in
            let emulator = try await EmulatorProcess.start(arguments: ["--state-file", path])
            emulator.drainOutput()
            let port = emulator.port
            let cursor = try await onThread { () throws -> UInt64 in
                let connection = try RawSocket(port: port)
                let reply = try connection.request("GET", "/v2/subscribe/demo/ch/0?uuid=sub&tt=0")
                return try decodeDelivery(reply.body).cursor
            }
            // The publisher runs until the connection dies; the kill comes once it has 150 answers.
            let progress = Locked(Progress())
            let (reachedTarget, reached) = AsyncStream<Void>.makeStream()
            let (stoppedPublishing, stopped) = AsyncStream<Void>.makeStream()
            let publisher = Thread {
                defer { stopped.finish() }
                guard let connection = try? RawSocket(port: port, timeout: 10) else { return }
                for value in 0... {
                    progress.withLock { $0.attempted = value }
                    guard let reply = try? connection.request("GET", "/publish/demo/demo/0/ch/0/\(value)"),
                        reply.status == 200, let json = try? JSONValue(parsing: reply.body),
                        let timetoken = json[2]?.stringValue.flatMap({ UInt64($0) })
                    else { return }
                    let count = progress.withLock { progress in
                        progress.acknowledged.append((value, timetoken))
                        progress.attempted = nil
                        return progress.acknowledged.count
                    }
                    if count == 150 { reached.finish() }
                }
            }
            publisher.start()
            for await _ in reachedTarget {}
            #expect(try await emulator.stopped(signal: SIGKILL) == .killed(SIGKILL))
            for await _ in stoppedPublishing {}
            let seen = progress.withLock { $0 }
            #expect(seen.acknowledged.count >= 150)

            let restarted = try await EmulatorProcess.start(arguments: ["--state-file", path])
            restarted.drainOutput()
            let newPort = restarted.port
            let (delivered, marker) = try await onThread {
                () throws -> ([(payload: JSONValue, timetoken: UInt64)], UInt64) in
                let connection = try RawSocket(port: newPort)
                // A marker published now ends the catch-up, so no poll waits for messages that never come.
                let sent = try connection.request("GET", "/publish/demo/demo/0/ch/0/%22end%22")
                let marker = try acknowledgedTimetoken(sent.status, sent.body)
                var messages: [(payload: JSONValue, timetoken: UInt64)] = []
                var position = cursor
                while messages.last?.payload != "end" {
                    let reply = try connection.request("GET", "/v2/subscribe/demo/ch/0?uuid=sub&tt=\(position)")
                    let delivery = try decodeDelivery(reply.body)
                    guard !delivery.messages.isEmpty else { throw TestFailure("an empty answer before the marker") }
                    messages += delivery.messages
                    position = delivery.cursor
                }
                return (Array(messages.dropLast()), marker)
            }
            try await restarted.stopped()
            // Every acknowledged publish, with its timetoken, in order, once; at most the one in
            // flight at the kill comes after them (written, but its answer never arrived).
            let acknowledged = seen.acknowledged
            #expect(delivered.count >= acknowledged.count)
            #expect(
                zip(delivered, acknowledged).allSatisfy {
                    $0.payload == .int(Int64($1.value)) && $0.timetoken == $1.timetoken
                })
            let extra = delivered.dropFirst(acknowledged.count).map(\.payload)
            #expect(extra.isEmpty || extra == [.int(Int64(seen.attempted ?? -1))], "unexpected extras \(extra)")
            #expect(acknowledged.allSatisfy { marker > $0.timetoken })
        }
    }
}
