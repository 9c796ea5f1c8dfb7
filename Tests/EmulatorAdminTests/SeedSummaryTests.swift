import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--seed` prints a one-line summary of what it loaded; the banner prints the console and one
/// example command.
@Suite("Seed summary and banner")
struct SeedSummaryTests {
    static let seed: JSONValue = [
        "keysets": [
            "demo": [
                "entityClasses": [["name": "Product", "versions": [["version": 1]]]],
                "users": [["id": "alice"], ["id": "bob"]],
                "channels": [["id": "general"]],
                "entities": [["id": "p1", "entityClass": "Product"]],
                "memberships": [["channelId": "general", "userId": "alice"]],
            ],
            "other": ["users": [["id": "zed"]]],
        ]
    ]

    @Test("the summary counts what the seed created, per keyset and collection")
    func summary() throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(seed: Self.seed, startTime: adminStart))
        let summary = try #require(emulator.seedSummary)
        #expect(summary.objectCount == 6)
        #expect(summary.objects["demo"] == ["users": 2, "channels": 1, "entities": 1, "memberships": 1])
        #expect(summary.classes == ["demo": 1])
        #expect(!summary.skipped)
        #expect(
            summary.description
                == "seed: created 6 objects in keyset demo (2 users, 1 channel, 1 entity, 1 membership, 1 class); "
                + "keyset other (1 user)")
        #expect(try Emulator(configuration: EmulatorConfiguration()).seedSummary == nil)
    }

    @Test("with a state file already there the seed is skipped, and the summary says so")
    func skipped() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seed-summary-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stateFile = directory.appendingPathComponent("state.json").path
        do {
            // Scoped: an emulator holds its state file's lock until it is gone.
            let first = try Emulator(
                configuration: EmulatorConfiguration(seed: Self.seed, stateFile: stateFile, startTime: adminStart))
            #expect(first.seedSummary?.objectCount == 6)
        }
        // The first emulator's last references may be dropped on other threads after the scope
        // ends; the emulator gives that only a short grace before refusing the file as in use.
        #expect(await eventually { Self.lockIsFree(stateFile) }, "the first emulator never released its state file")
        let second = try Emulator(
            configuration: EmulatorConfiguration(seed: Self.seed, stateFile: stateFile, startTime: adminStart))
        #expect(second.seedSummary?.skipped == true)
        #expect(second.seedSummary?.description == "seed: skipped, the state file was loaded instead")
    }

    /// Whether no emulator holds the state file's lock (`<path>.lock`, an exclusive `flock`):
    /// probed on a descriptor of its own, which conflicts with an emulator's even in this process.
    static func lockIsFree(_ stateFile: String) -> Bool {
        let fd = open(stateFile + ".lock", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
        _ = flock(fd, LOCK_UN)
        return true
    }

    /// The `datasync-emulator` binary next to the test bundle (built with the tests).
    static var binary: URL? {
        let directory =
            Bundle.main.executableURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("datasync-emulator")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    @Test(
        "datasync-emulator --seed prints the summary, the console and an example command that works",
        .enabled(if: binary != nil, "the datasync-emulator binary is not built next to the tests"))
    func banner() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("banner-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seedFile = directory.appendingPathComponent("seed.json")
        try Data(try Self.seed.jsonBytes()).write(to: seedFile)
        let binary = try #require(Self.binary)
        let process = try ChildProcess(executable: binary.path, arguments: ["--port", "0", "--seed", seedFile.path])
        defer { process.send(SIGTERM) }
        let (banner, _) = try await process.waitFor("the banner") { out, _ in out.contains("Press Ctrl-C to stop.") }
        let lines = banner.components(separatedBy: "\n")
        let seedLine = lines.first { $0.hasPrefix("seed: ") }
        #expect(seedLine?.hasPrefix("seed: created 6 objects in keyset demo (2 users") == true, "\(lines)")
        let origin = try #require(lines.first { $0.hasPrefix("origin: ") }?.dropFirst("origin: ".count))
        #expect(lines.contains("console: \(origin)/_emulator/console/"))
        let example = try #require(lines.first { $0.hasPrefix("try: curl -s ") })
        #expect(example == "try: curl -s '\(origin)/v1/datasync/subkeys/demo/users?limit=5'")
        // Run the example's request: it lists the seeded users.
        let port = try #require(URL(string: String(origin))?.port.flatMap { UInt16(exactly: $0) })
        let reply = try await http(port, "GET", "/v1/datasync/subkeys/demo/users?limit=5")
        #expect(reply.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["alice", "bob"])
    }
}
