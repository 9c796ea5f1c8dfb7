import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 18, point 5: with the journal, an acknowledged write still survives `kill -9` of the
/// executable, and a state cut mid-write still loads (its torn tail is cut off).
@Suite("kill -9", .serialized)
struct KillTests {
    /// What one client thread had acknowledged when the emulator was killed.
    struct Progress: Sendable {
        var created: [String] = []
        /// The counter's last acknowledged value and the value of a write in flight, if any.
        var counterAcknowledged: Int64?
        var counterAttempted: Int64?
    }

    /// One client: creates users and bumps its counter user until the connection fails.
    static func client(port: UInt16, round: Int, number: Int, start: Int64, progress: Locked<[Progress]>) {
        // A generous read timeout: the kill ends the connection at once, and a write the loaded
        // machine answers slowly must not stop a writer before then.
        guard let connection = try? RawSocket(port: port, timeout: 60) else { return }
        var value = start
        var index = 0
        while true {
            index += 1
            if index % 3 == 0 {
                value += 1
                let attempted = value
                progress.withLock { $0[number].counterAttempted = attempted }
                let body = #"[{"op":"replace","path":"/payload/n","value":\#(attempted)}]"#
                guard
                    let reply = try? connection.request(
                        "PATCH", dataSyncPath("users/counter\(number)"),
                        headers: [("Content-Type", "application/json-patch+json")], body: Array(body.utf8)),
                    reply.status == 200
                else { return }
                progress.withLock { $0[number].counterAcknowledged = attempted }
            } else {
                let id = "r\(round)-c\(number)-\(index)"
                guard
                    let body = try? dataBody([
                        "id": .string(id), "entityClassVersion": 1, "payload": ["round": .int(Int64(round))],
                    ]),
                    let reply = try? connection.request(
                        "POST", dataSyncPath("users"), headers: [("Content-Type", userMediaType)], body: body),
                    reply.status == 201
                else { return }
                progress.withLock { $0[number].created.append(id) }
            }
        }
    }

    /// Acknowledged writes per round before the kill: three rounds make more than the 100 the
    /// test asks for, with writes still in flight when the emulator dies.
    static let acknowledgedPerRound = 40

    /// Writes the emulator acknowledged to the clients so far: creates plus counter bumps.
    static func acknowledgedWrites(_ progress: [Progress]) -> Int {
        progress.reduce(0) { total, client in
            total + client.created.count + (client.counterAcknowledged == nil ? 0 : 1)
        }
    }

    @Test("every acknowledged write is there after kill -9, three times over", .timeLimit(.minutes(5)))
    func killNine() async throws {
        try await withStateFile { path in
            let clients = 4
            var acknowledged: [String] = []
            var counters = [(acknowledged: Int64, attempted: Int64)](repeating: (0, 0), count: clients)
            var killsWithWritesInFlight = 0
            for round in 0...3 {
                let emulator = try await EmulatorProcess.start(arguments: ["--state-file", path])
                emulator.drainOutput()
                let port = emulator.port
                // Everything acknowledged before the last kill is there.
                let snapshot = (acknowledged, counters)
                let missing = try await onThread { () throws -> [String] in
                    let connection = try RawSocket(port: port)
                    var missing: [String] = []
                    if round == 0 {
                        for number in 0..<clients {
                            let body = try dataBody([
                                "id": .string("counter\(number)"), "entityClassVersion": 1, "payload": ["n": 0],
                            ])
                            let reply = try connection.request(
                                "POST", dataSyncPath("users"), headers: [("Content-Type", userMediaType)], body: body)
                            guard reply.status == 201 else {
                                throw TestFailure("counter create answered \(reply.status)")
                            }
                        }
                    }
                    for id in snapshot.0 where try connection.request("GET", dataSyncPath("users/\(id)")).status != 200
                    {
                        missing.append(id)
                    }
                    for number in 0..<clients {
                        let reply = try connection.request("GET", dataSyncPath("users/counter\(number)"))
                        let value = (try? JSONValue(parsing: reply.body))?["data"]?["payload"]?["n"]?.int64Value ?? -1
                        let (acked, attempted) = snapshot.1[number]
                        if value != acked && value != attempted {
                            missing.append("counter\(number) = \(value), acknowledged \(acked), attempted \(attempted)")
                        }
                    }
                    return missing
                }
                #expect(missing.isEmpty, "lost after kill \(round): \(missing.prefix(10))")
                guard round < 3 else {
                    try await emulator.stopped()
                    break
                }
                // Writers hammer it; kill -9 in the middle.
                let progress = Locked([Progress](repeating: Progress(), count: clients))
                let starts = try await onThread { () throws -> [Int64] in
                    let connection = try RawSocket(port: port)
                    return try (0..<clients).map { number in
                        let reply = try connection.request("GET", dataSyncPath("users/counter\(number)"))
                        return (try JSONValue(parsing: reply.body))["data"]?["payload"]?["n"]?.int64Value ?? 0
                    }
                }
                let finished = Locked(0)
                for number in 0..<clients {
                    let thread = Thread {
                        Self.client(port: port, round: round, number: number, start: starts[number], progress: progress)
                        finished.withLock { $0 += 1 }
                    }
                    thread.start()
                }
                // Kill once the writers have had writes acknowledged, however long that takes on a
                // loaded machine: a fixed pause could end before a stalled emulator answered one.
                let target = Self.acknowledgedPerRound
                _ = await eventually {
                    progress.withLock { Self.acknowledgedWrites($0) } >= target || finished.withLock { $0 } == clients
                }
                let acknowledgedThisRound = progress.withLock { Self.acknowledgedWrites($0) }
                #expect(
                    acknowledgedThisRound >= target,
                    "round \(round): \(acknowledgedThisRound) writes acknowledged before every writer stopped")
                let inFlight = progress.withLock { $0.reduce(0) { $0 + $1.created.count } }
                #expect(try await emulator.stopped(signal: SIGKILL) == .killed(SIGKILL))
                #expect(await eventually { finished.withLock { $0 } == clients })
                if inFlight > 0 { killsWithWritesInFlight += 1 }
                for (number, state) in progress.withLock({ $0 }).enumerated() {
                    acknowledged += state.created
                    let acked = state.counterAcknowledged ?? counters[number].acknowledged
                    counters[number] = (acked, state.counterAttempted ?? acked)
                }
            }
            #expect(killsWithWritesInFlight == 3)
            #expect(acknowledged.count > 100, "only \(acknowledged.count) writes were acknowledged")
        }
    }
}
