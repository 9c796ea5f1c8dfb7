import DataSyncEmulator
import Foundation
import JSONCore

/// The state file (`--state-file`): the latency of one write (a PATCH answered by the emulator's
/// `respond(to:)`, saved before the answer) with 1,000, 10,000 and 100,000 objects stored, with
/// the journal next to the whole-file rewrite every write did before it (still selectable as
/// `stateFileWrites = .rewriteWholeFile`, so both are measured on the same machine and run).
/// Both fsync every write; the files go to the system's temporary directory.
enum PersistenceBench {
    static let sizes = Bench.scale([1_000, 10_000, 100_000], smoke: [100])

    static func run() async throws -> [BenchRow] {
        var rows: [BenchRow] = []
        for size in sizes {
            let writes = Bench.scale(300, smoke: 10)
            let rewrites = Bench.scale(size >= 100_000 ? 10 : 60, smoke: 5)
            let journal = try await measure(objects: size, writes: .journal, count: writes)
            let rewrite = try await measure(objects: size, writes: .rewriteWholeFile, count: rewrites)
            let memory = try await measure(objects: size, writes: nil, count: writes)
            let label = size.formatted()
            rows.append(
                BenchRow(
                    scenario: "state file: write latency, mean, \(label) objects stored", unit: "ms",
                    ours: journal.mean, baselineName: "whole-file rewrite", baseline: rewrite.mean,
                    higherIsBetter: false))
            rows.append(
                BenchRow(
                    scenario: "state file: write latency, p99, \(label) objects stored", unit: "ms",
                    ours: journal.p99, baselineName: "whole-file rewrite", baseline: rewrite.p99, higherIsBetter: false)
            )
            rows.append(
                BenchRow(
                    scenario: "same write without a state file (the request itself), \(label) objects", unit: "ms",
                    ours: memory.mean, higherIsBetter: false))
            rows.append(
                BenchRow(
                    scenario: "state file: snapshot size, \(label) objects", unit: "MB", ours: journal.snapshotMB,
                    higherIsBetter: false))
        }
        return rows
    }

    struct Figures {
        var mean: Double
        var p99: Double
        var snapshotMB: Double
    }

    /// Seeds `objects` users into an emulator with a state file (none when `writes` is nil), then
    /// times `count` PATCHes.
    static func measure(objects: Int, writes: StateFileWrites?, count: Int) async throws -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bench-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.json").path
        var users: [JSONValue] = []
        users.reserveCapacity(objects)
        for index in 0..<objects {
            users.append([
                "id": .string("user-\(index)"), "status": "active",
                "payload": [
                    "name": .string("User number \(index)"), "team": "core", "visits": .int(Int64(index % 97)),
                ],
            ])
        }
        var configuration = EmulatorConfiguration(
            seed: ["keysets": ["bench": ["users": .array(users)]]], stateFile: writes == nil ? nil : path)
        configuration.stateFileWrites = writes ?? .journal
        let emulator = try Emulator(configuration: configuration)
        let snapshotBytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let headers = [(name: "Content-Type", value: "application/json-patch+json")]
        let clock = ContinuousClock()
        var latencies: [Double] = []
        var generator = SystemRandomNumberGenerator()
        for round in 0..<count {
            let index = Int.random(in: 0..<objects, using: &generator)
            let body = Array(#"[{"op":"replace","path":"/payload/visits","value":\#(round)}]"#.utf8)
            let started = clock.now
            let response = await emulator.respond(
                to: ServerRequest(
                    method: "PATCH", target: "/v1/datasync/subkeys/bench/users/user-\(index)", headers: headers,
                    body: body))
            let elapsed = started.duration(to: clock.now)
            guard response.status == 200 else {
                throw BenchFailure(
                    message: "PATCH answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
            }
            latencies.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
        }
        latencies.sort()
        let mean = latencies.reduce(0, +) / Double(latencies.count)
        let p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
        return Figures(mean: mean, p99: p99, snapshotMB: Double(snapshotBytes) / 1e6)
    }
}
