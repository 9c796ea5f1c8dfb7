import DataSyncEmulator
import Foundation
import JSONCore
import Testing

/// `datasync faults add|list|clear` against a live emulator, through the built executable.
@Suite("faults commands")
struct FaultsCommandTests {
    /// Whether the emulator answers `target` with `status` right now (in process, through its router).
    private func answer(_ live: LiveEmulator, _ target: String) async -> Int {
        await live.emulator.respond(to: ServerRequest(method: "GET", target: target)).status
    }

    @Test("add from options, list, then the fault fires once and is gone")
    func addListFire() async throws {
        try await withEmulator { live in
            let added = try await live.run([
                "faults", "add", "--kind", "status", "--status", "503", "--family", "publish", "--channel", "alerts",
                "--count", "2", "--compact",
            ])
            #expect(added.status == 0, "\(added)")
            #expect(
                try added.json()
                    == [
                        "id": "f1", "kind": "status", "status": 503, "family": "publish", "channel": "alerts",
                        "count": 2, "remaining": 2, "fired": 0,
                    ])
            #expect(await answer(live, "/publish/demo/demo/0/general/0/1") == 200)
            #expect(await answer(live, "/publish/demo/demo/0/alerts/0/1") == 503)
            let listed = try await live.run(["faults", "list"])
            #expect(listed.status == 0, "\(listed)")
            #expect(try listed.ndjson().map { $0["remaining"] } == [1])
            #expect(await answer(live, "/publish/demo/demo/0/alerts/0/1") == 503)
            #expect(await answer(live, "/publish/demo/demo/0/alerts/0/1") == 200)
            #expect(try await live.run(["faults", "list"]).stdout.isEmpty)
        }
    }

    @Test("--json gives the whole fault; clear removes one or all")
    func jsonAndClear() async throws {
        try await withEmulator { live in
            let first = try await live.run([
                "faults", "add", "--json", #"{"kind":"delay","seconds":2.5,"family":"time"}"#, "--compact",
            ])
            #expect(try first.json()["seconds"] == 2.5, "\(first)")
            _ = try await live.run(["faults", "add", "--kind", "reset", "--family", "datasync", "--probability", "0.5"])
            _ = try await live.run(["faults", "add", "--kind", "truncate", "--bytes", "3"])
            let removed = try await live.run(["faults", "clear", "f1", "--compact"])
            #expect(try removed.json() == ["removed": "f1"], "\(removed)")
            let missing = try await live.run(["faults", "clear", "f1"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("404"), "\(missing)")
            #expect(try await live.run(["faults", "list"]).ndjson().map { $0["id"] } == ["f2", "f3"])
            let cleared = try await live.run(["faults", "clear", "--compact"])
            #expect(try cleared.json() == ["cleared": 2])
            #expect(live.emulator.faultEntries.isEmpty)
        }
    }

    @Test("mistakes are usage errors (exit 2) naming the option or field")
    func mistakes() async throws {
        try await withEmulator { live in
            let noKind = try await live.run(["faults", "add", "--family", "time"])
            #expect(noKind.status == 2)
            #expect(noKind.stderr.contains("--kind"), "\(noKind)")
            let refused = try await live.run(["faults", "add", "--kind", "delay"])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("seconds:"), "\(refused)")
            let both = try await live.run(["faults", "add", "--json", #"{"kind":"reset"}"#, "--kind", "reset"])
            #expect(both.status == 2)
            let badNumber = try await live.run(["faults", "add", "--kind", "delay", "--seconds", "soon"])
            #expect(badNumber.status == 2)
            #expect(badNumber.stderr.contains("--seconds"))
            let badKind = try await live.run(["faults", "add", "--kind", "explode"])
            #expect(badKind.status == 2)
            #expect(live.emulator.faultEntries.isEmpty)
        }
    }

    @Test("the admin secret comes from the flag or DATASYNC_ADMIN_SECRET and is never printed")
    func adminSecret() async throws {
        var configuration = EmulatorConfiguration()
        configuration.admin = AdminConfiguration(secret: "cli-admin-secret-123")
        try await withEmulator(configuration) { live in
            let refused = try await live.run(["faults", "list"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("401") && refused.stderr.contains("--admin-secret"), "\(refused)")
            let environment = live.environment(extra: ["DATASYNC_ADMIN_SECRET": "cli-admin-secret-123"])
            let added = try await live.run(
                ["faults", "add", "--kind", "reset", "--family", "time", "--verbose"], environment: environment)
            #expect(added.status == 0, "\(added)")
            #expect(!added.stdout.contains("cli-admin-secret-123") && !added.stderr.contains("cli-admin-secret-123"))
            let flagged = try await live.run(["faults", "clear", "--admin-secret", "cli-admin-secret-123"])
            #expect(flagged.status == 0, "\(flagged)")
        }
    }

    @Test("an emulator that is not there is a service error (exit 1)")
    func unreachable() async throws {
        // Port 9 (discard) has no listener here. A stopped emulator's port would not do: under a
        // parallel test run another test's server can be given the same port at once.
        let result = try await CLIEnvironment.run(["faults", "list"], extra: ["DATASYNC_ORIGIN": "http://127.0.0.1:9"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("cannot reach the emulator"), "\(result)")
    }
}
