import Foundation
import JSONCore
import Testing

@Suite("datasync admin export|import|reset|clock|classes", .timeLimit(.minutes(2)))
struct AdminCommandTests {
    @Test("export, reset and import round-trip the state of a keyset")
    func exportResetImport() async throws {
        try await withEmulator { live in
            let created = try await live.run([
                "users", "create", "--id", "alice", "--class-version", "1", "--payload", #"{"fullName":"Alice"}"#,
            ])
            try #require(created.status == 0, "\(created)")
            let export = try await live.run(["admin", "export", "--keyset", "demo", "--compact"])
            try #require(export.status == 0, "\(export)")
            #expect(export.stdout.contains("alice"), "\(export)")
            let reset = try await live.run(["admin", "reset", "--keyset", "demo"])
            #expect(reset.status == 0, "\(reset)")
            #expect(try await live.run(["users", "get", "alice"]).status == 1)
            let imported = try await live.run(["admin", "import", "-"], stdin: export.stdout)
            #expect(imported.status == 0, "\(imported)")
            let back = try await live.run(["users", "get", "alice"])
            #expect(back.status == 0, "\(back)")
            #expect(try back.json()["payload"]?["fullName"] == "Alice", "\(back)")
            let neither = try await live.run(["admin", "reset"])
            #expect(neither.status == 2, "\(neither)")
            #expect(neither.stderr.contains("give exactly one of --keyset SUB and --all"), "\(neither)")
            let all = try await live.run(["admin", "reset", "--all"])
            #expect(all.status == 0, "\(all)")
            #expect(try await live.run(["users", "get", "alice"]).status == 1)
        }
    }

    @Test("clock show, advance and set move the emulator's clock")
    func clock() async throws {
        try await withEmulator { live in
            let before = try await live.run(["admin", "clock", "show"])
            try #require(before.status == 0, "\(before)")
            let start = try #require(try before.json()["unixMicros"]?.intValue, "\(before)")
            let advanced = try await live.run(["admin", "clock", "advance", "--days", "2"])
            try #require(advanced.status == 0, "\(advanced)")
            let after = try #require(try advanced.json()["unixMicros"]?.intValue, "\(advanced)")
            #expect(after - start >= 2 * 86_400 * 1_000_000)
            let set = try await live.run(["admin", "clock", "set", "2030-01-01T00:00:00Z"])
            try #require(set.status == 0, "\(set)")
            #expect(try set.json()["stopped"] == true, "\(set)")
            #expect(try set.json()["now"]?.stringValue?.hasPrefix("2030-01-01T00:00:00") == true, "\(set)")
            let nothing = try await live.run(["admin", "clock", "advance"])
            #expect(nothing.status == 2, "\(nothing)")
            let bad = try await live.run(["admin", "clock", "set", "tomorrow"])
            #expect(bad.status == 2, "\(bad)")
        }
    }

    @Test("classes lists each keyset's classes, one line a keyset")
    func classes() async throws {
        try await withEmulator { live in
            _ = try await live.run(["users", "list"])
            let result = try await live.run(["admin", "classes", "--keyset", "demo"])
            try #require(result.status == 0, "\(result)")
            let lines = try result.ndjson()
            try #require(lines.count == 1, "\(result)")
            #expect(lines[0]["subscribeKey"] == "demo")
            #expect((lines[0]["entityClasses"]?.arrayValue?.count ?? 0) > 0, "\(result)")
        }
    }

    @Test("an emulator that is not there is exit 1")
    func unreachable() async throws {
        let result = try await CLIEnvironment.run(
            ["admin", "clock", "show"], extra: ["DATASYNC_ORIGIN": "http://127.0.0.1:9"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("cannot reach the emulator"), "\(result)")
    }
}
