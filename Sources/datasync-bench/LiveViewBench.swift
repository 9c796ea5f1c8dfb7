import DataSync
import DataSyncEmulator
import DataSyncLive
import DataSyncModels
import DataSyncTestSupport
import Foundation
import JSONCore
import PubNubCore
import Realtime
import Transport

/// Live-view rows: how fast a 10,000-membership view applies events (the merge rules alone, then
/// end to end through the emulator, the subscribe loop and a reader taking every snapshot it can),
/// how fast it reads itself, and the memory each object costs.
enum LiveViewBench {
    static let size = Bench.scale(10_000, smoke: 100)
    /// "10,000" in the rows' names.
    static let sizeLabel = size.formatted()

    static func run() async throws -> [BenchRow] {
        let environment = ProcessInfo.processInfo.environment
        if let holder = environment[memoryProbe], let port = environment[memoryPort].flatMap({ Int($0) }) {
            let (raw, kept) = try await residentPerObject(holder: holder, port: port)
            print("live-memory \(raw) \(kept)")
            fflush(nil)
            exit(0)
        }
        // `DATASYNC_BENCH_LIVE_ONLY=merge` runs the rules-alone rows only (for a profiler: the
        // emulator's work would bury them); `DATASYNC_BENCH_LIVE_BATCHES=100` picks their batch sizes.
        let batches = environment[batchesVariable].map { $0.split(separator: ",").compactMap { Int($0) } } ?? [100, 1]
        var rows = try mergeRows(batches: batches.filter { $0 > 0 })
        if environment[onlyVariable] != "merge" { rows += try await endToEndRows() }
        return rows
    }

    static let onlyVariable = "DATASYNC_BENCH_LIVE_ONLY"
    static let batchesVariable = "DATASYNC_BENCH_LIVE_BATCHES"
    static let sideVariable = "DATASYNC_BENCH_LIVE_SIDE"

    static func memberships(_ count: Int) -> [PubNubDataSyncMembership] {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        return (0..<count).map { index in
            PubNubDataSyncMembership(
                id: "m\(index)", classVersion: 1, channelId: "bench", userId: "user-\(index)", status: "active",
                payload: ["role": "member"], createdAt: start, updatedAt: start, eTag: "e0")
        }
    }

    static func update(_ membership: PubNubDataSyncMembership, step: Int) -> PubNubDataSyncEvent {
        let relationship = PubNubDataSyncRelationship(
            id: membership.id, className: "Membership", classVersion: 1, entityAId: membership.channelId,
            entityBId: membership.userId, status: "s\(step)", payload: membership.payload,
            createdAt: membership.createdAt, updatedAt: membership.createdAt.addingTimeInterval(Double(step) * 1e-3),
            eTag: "e\(step)")
        return PubNubDataSyncEvent(
            change: .relationshipUpdated, kind: .membership,
            relationship: PubNubDataSyncRelationshipEvent(kind: .membership, relationship: relationship),
            className: "Membership", channel: "bench", timetoken: UInt64(step))
    }

    /// The view's rules without I/O: a read of 10,000 memberships, then updates of random ones; a
    /// snapshot is taken every `batch` events (one per subscribe answer of that size, read by a
    /// reader as fast as they come), against the same updates written into a plain dictionary.
    static func mergeRows(batches: [Int] = [100, 1]) throws -> [BenchRow] {
        let base = memberships(size)
        var generator = SeededRandomNumberGenerator(seed: 3)
        let events = (1...Bench.scale(100_000, smoke: 500)).map { step in
            update(base[Int.random(in: 0..<size, using: &generator)], step: step)
        }
        let definition = try LiveViewDefinition<PubNubDataSyncMembership>.memberships(of: "bench", channelSide: true)
        var rows: [BenchRow] = []
        var checksum = 0
        for batch in batches {
            let count = batch == 1 ? Bench.scale(5_000, smoke: 100) : events.count
            let applyEvents = {
                var machine = LiveViewMachine<PubNubDataSyncMembership>(
                    options: PubNubLiveViewOptions(), projection: definition.projection,
                    interpret: definition.interpret)
                _ = machine.handle(.started(isReceiving: true))
                _ = machine.handle(.readSucceeded(generation: 1, base))
                // The reader holds the snapshot it has while the view moves on, as a UI does.
                var held = machine.takeSnapshot()
                for (index, event) in events.prefix(count).enumerated() {
                    _ = machine.handle(.event(event))
                    if (index + 1) % batch == 0 {
                        held = machine.takeSnapshot()
                        checksum &+= held.count
                    }
                }
                withExtendedLifetime(held) {}
            }
            let writeDictionary = {
                var table = Dictionary(uniqueKeysWithValues: base.map { ($0.id, $0) })
                for event in events.prefix(count) {
                    if case .membership(let membership)? = event.relationship?.object {
                        table[membership.id] = membership
                    }
                }
                checksum &+= table.count
            }
            // `DATASYNC_BENCH_LIVE_SIDE=view` (or `dictionary`) runs that side alone, a fixed 5
            // times, and no other row: a count of the work (`perf stat -e instructions`) compares
            // two builds where a loaded machine makes their rates too noisy to.
            if let side = ProcessInfo.processInfo.environment[sideVariable] {
                for _ in 0..<5 { side == "dictionary" ? writeDictionary() : applyEvents() }
                continue
            }
            let ours = Bench.throughput(operations: count, minimumTime: .milliseconds(300), applyEvents)
            let plain = Bench.throughput(operations: count, minimumTime: .milliseconds(300), writeDictionary)
            rows.append(
                BenchRow(
                    scenario:
                        "live: events applied to a \(sizeLabel)-membership view, a snapshot every \(batch) event(s) (rules alone)",
                    unit: "events/s", ours: ours, baselineName: "the same updates into a [id: membership]",
                    baseline: plain))
        }
        guard checksum != 0 else { throw BenchFailure(message: "nothing was applied") }
        return rows
    }

    /// A fresh emulator holding 10,000 memberships of `bench` (and their users), served on
    /// loopback, and a client on it (curl).
    static func fixture() async throws -> (emulator: Emulator, pubnub: PubNub) {
        let users: [JSONValue] = (0..<size).map { ["id": .string("user-\($0)")] }
        let links: [JSONValue] = (0..<size).map {
            [
                "id": .string("m\($0)"), "channelId": "bench", "userId": .string("user-\($0)"),
                "payload": ["role": "member"],
            ]
        }
        // `warm` holds one membership: the memory rows open a view of it first (see `residentPerObject`).
        let warm: JSONValue = ["id": "w0", "channelId": "warm", "userId": "user-0"]
        let seed: JSONValue = [
            "keysets": [
                "demo": [
                    "users": .array(users), "channels": [["id": "bench"], ["id": "warm"]],
                    "memberships": .array(links + [warm]),
                ]
            ]
        ]
        let emulator = try Emulator(configuration: EmulatorConfiguration(seed: seed))
        let url = try await emulator.start()
        return (emulator, try client(port: url.port ?? 0))
    }

    /// A client of the emulator on `port` (curl).
    static func client(port: Int) throws -> PubNub {
        var configuration = PubNubConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: "bench-live", origin: "127.0.0.1:\(port)",
            useSecureConnections: false, transport: try CurlHTTPClient())
        // Bursts of a hundred events per answer are what this measures, not gaps.
        configuration.requestMessageCountThreshold = 0
        configuration.heartbeatInterval = .zero
        return PubNub(configuration: configuration)
    }

    /// Iterates `view` in a task of its own, handing over the latest snapshot.
    static func read(
        _ view: PubNubLiveView<PubNubDataSyncMembership>
    ) -> (reader: Task<Void, Never>, latest: AsyncStream<PubNubLiveSnapshot<PubNubDataSyncMembership>>.Iterator) {
        let (snapshots, continuation) = AsyncStream.makeStream(
            of: PubNubLiveSnapshot<PubNubDataSyncMembership>.self, bufferingPolicy: .bufferingNewest(1))
        let reader = Task {
            do {
                for try await snapshot in view { continuation.yield(snapshot) }
            } catch {}
            continuation.finish()
        }
        return (reader, snapshots.makeAsyncIterator())
    }

    /// Waits for the first complete, current snapshot of all `count` (10,000 unless told).
    static func firstRead(
        _ latest: inout AsyncStream<PubNubLiveSnapshot<PubNubDataSyncMembership>>.Iterator, count: Int = size
    ) async throws -> PubNubLiveSnapshot<PubNubDataSyncMembership> {
        while let snapshot = await latest.next() {
            if snapshot.isCurrent, snapshot.count == count { return snapshot }
        }
        throw BenchFailure(message: "the view never read its \(count) memberships")
    }

    static func plainRead(
        _ pubnub: PubNub, channel: String = "bench", count: Int = size
    ) async throws -> [PubNubDataSyncMembership] {
        var plain: [PubNubDataSyncMembership] = []
        for try await membership in pubnub.dataSync.memberships(channelId: channel, pageSize: 100) {
            plain.append(membership)
        }
        guard plain.count == count else { throw BenchFailure(message: "a plain read found \(plain.count)") }
        return plain
    }

    /// Set in the environment of a child run that measures one holder's memory and exits; the
    /// port of the parent's emulator comes in ``memoryPort``.
    static let memoryProbe = "DATASYNC_BENCH_LIVE_MEMORY"
    static let memoryPort = "DATASYNC_BENCH_LIVE_PORT"

    /// In a fresh process with no emulator of its own: the memory `holder` (`view` or `array`) adds
    /// per membership, reading the parent's emulator, measured two ways.
    ///
    /// `raw` is the growth of the process's resident set, as issue 34 measured it: it includes the
    /// pages of the executable's code run for the first time (1.6 MB of them for a view: the
    /// subscribe loop, the live-view code) and the subscribe loop's own start, neither of which
    /// grows with the objects. `kept` first runs the same kind of holder over the one-membership
    /// channel `warm` (so those costs are paid before), then counts anonymous resident memory
    /// (resident minus file-backed) after `malloc_trim` handed freed pages back: what the holder
    /// keeps allocated for its objects.
    static func residentPerObject(holder: String, port: Int) async throws -> (raw: Double, kept: Double) {
        let pubnub = try client(port: port)
        // One small request first, so the transport's own start-up is not counted.
        _ = try await pubnub.dataSync.getMemberships(channelId: "bench", limit: 1)
        guard let before = Bench.residentBytes() else { throw BenchFailure(message: "no RSS here") }
        let warm: Any
        if holder == "view" {
            var (reader, latest) = read(try pubnub.liveViews.memberships(ofChannel: "warm"))
            warm = (reader, try await firstRead(&latest, count: 1))
        } else {
            warm = try await plainRead(pubnub, channel: "warm", count: 1)
        }
        guard let anonymousBefore = anonymousResidentBytes() else { throw BenchFailure(message: "no RSS here") }
        let kept: Any
        if holder == "view" {
            var (reader, latest) = read(try pubnub.liveViews.memberships(ofChannel: "bench"))
            kept = (reader, try await firstRead(&latest))
        } else {
            kept = try await plainRead(pubnub)
        }
        guard let after = Bench.residentBytes(), let anonymousAfter = anonymousResidentBytes() else {
            throw BenchFailure(message: "no RSS here")
        }
        withExtendedLifetime((warm, kept)) {}
        return (
            Double(max(0, after - before)) / Double(size),
            Double(max(0, anonymousAfter - anonymousBefore)) / Double(size)
        )
    }

    /// Resident bytes not backed by a file (heap, stacks), after `malloc_trim`; Linux only.
    static func anonymousResidentBytes() -> Int? {
        guard let resident = SubscriptionsBench.heapBytes(),
            let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 2, let shared = Int(fields[2]) else { return nil }
        return resident - shared * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Runs this executable again once per holder, so each measures in a process of its own.
    static func memoryRows(port: Int) -> [BenchRow] {
        func measure(_ holder: String) -> (raw: Double, kept: Double)? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["live"]
            var environment = ProcessInfo.processInfo.environment
            environment[memoryProbe] = holder
            environment[memoryPort] = String(port)
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            guard (try? process.run()) != nil else { return nil }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first {
                $0.hasPrefix("live-memory ")
            }
            let numbers = line.map { $0.split(separator: " ").dropFirst().compactMap { Double($0) } } ?? []
            return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
        }
        guard let view = measure("view"), let array = measure("array") else { return [] }
        return [
            BenchRow(
                scenario:
                    "live: memory per object of a \(sizeLabel)-membership view (RSS delta of a fresh reader process)",
                unit: "bytes", ours: view.raw, baselineName: "the same read held in an array", baseline: array.raw,
                higherIsBetter: false),
            BenchRow(
                scenario: "live: the same, anonymous RSS after a warm-up view and malloc_trim (what the objects keep)",
                unit: "bytes", ours: view.kept, baselineName: "the same read held in an array", baseline: array.kept,
                higherIsBetter: false),
        ]
    }

    /// Through the emulator on loopback (curl): the first read of 10,000 memberships (100 pages),
    /// then in-process updates as fast as the emulator takes them while a reader takes snapshots.
    static func endToEndRows() async throws -> [BenchRow] {
        let (emulator, pubnub) = try await fixture()
        defer { Task { await emulator.stop() } }
        let memory = memoryRows(port: await emulator.baseURL?.port ?? 0)
        if memory.isEmpty, Smoke.isOn { throw BenchFailure(message: "live: a memory probe child process failed") }
        let clock = ContinuousClock()
        let plainStarted = clock.now
        _ = try await plainRead(pubnub)
        let plainSeconds = seconds(plainStarted.duration(to: clock.now))
        let started = clock.now
        var (reader, latest) = read(try pubnub.liveViews.memberships(ofChannel: "bench"))
        _ = try await firstRead(&latest)
        let readSeconds = seconds(started.duration(to: clock.now))
        var rows = [
            BenchRow(
                scenario: "live: first read of a \(sizeLabel)-membership view (\(size / 100) pages, curl, loopback)",
                unit: "objects/s",
                ours: Double(size) / readSeconds, baselineName: "the same pages into an array (dataSync.memberships)",
                baseline: Double(size) / plainSeconds)
        ]

        let updates = Bench.scale(5_000, smoke: 50)
        var generator = SeededRandomNumberGenerator(seed: 9)
        let headers = [(name: "Content-Type", value: "application/json-patch+json")]
        var lastETag = ""
        var lastID = ""
        let writesStarted = clock.now
        for step in 1...updates {
            let id = "m\(Int.random(in: 0..<size, using: &generator))"
            let body: JSONValue = [["op": "add", "path": "/status", "value": .string("s\(step)")]]
            let response = await emulator.respond(
                to: ServerRequest(
                    method: "PATCH", target: "/v1/datasync/subkeys/demo/memberships/\(id)", headers: headers,
                    body: try body.jsonBytes()))
            guard response.status == 200, let json = try? JSONValue(parsing: response.body),
                let eTag = json["data"]?["eTag"]?.stringValue
            else { throw BenchFailure(message: "an update answered \(response.status)") }
            lastETag = eTag
            lastID = id
        }
        let writeSeconds = seconds(writesStarted.duration(to: clock.now))
        while let snapshot = await latest.next() {
            if snapshot[id: lastID]?.eTag == lastETag { break }
        }
        let viewSeconds = seconds(writesStarted.duration(to: clock.now))
        rows.append(
            BenchRow(
                scenario:
                    "live: \(updates.formatted()) membership updates reaching a \(sizeLabel)-membership view "
                    + "(emulator → subscribe → view, curl)",
                unit: "events/s", ours: Double(updates) / viewSeconds,
                baselineName: "the writes alone (in-process PATCH)", baseline: Double(updates) / writeSeconds))
        reader.cancel()
        pubnub.unsubscribeAll()
        rows += memory
        return rows
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
