import DataSync
import DataSyncEmulator
import Foundation
import JSONCore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("datasync watch", .timeLimit(.minutes(2)))
struct WatchTests {
    /// Starts `watch` and waits for its `connected` status (on stderr).
    static func watch(_ live: LiveEmulator, _ arguments: [String]) async throws -> CLIProcess {
        let watcher = try live.launch(["watch"] + arguments)
        try await watcher.waitFor("the connected status") { _, err in err.contains("status: connected") }
        return watcher
    }

    @Test("receives, as NDJSON, changes another CLI process makes; Ctrl-C unsubscribes and exits 0")
    func changesFromAnotherProcess() async throws {
        try await withEmulator { live in
            let watcher = try await Self.watch(live, ["alice"])
            // Another process writes.
            let created = try await live.run(
                ["users", "create", "--id", "alice", "--class-version", "1", "--payload", #"{"mood":"curious"}"#])
            try #require(created.status == 0, "\(created)")
            #expect(try await live.run(["channels", "create", "--id", "room-1", "--class-version", "1"]).status == 0)
            let joined = try await live.run(
                ["memberships", "create", "--channel", "room-1", "--user", "alice", "--class-version", "1"])
            try #require(joined.status == 0, "\(joined)")
            let (out, _) = try await watcher.waitFor("two events") { out, _ in
                out.split(separator: "\n").count >= 2
            }
            let events = try out.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            #expect(events[0]["type"] == "dataSync")
            #expect(events[0]["change"] == "entityCreated")
            #expect(events[0]["kind"] == "user")
            #expect(events[0]["channel"] == "alice")
            #expect(events[0]["object"]?["payload"] == ["mood": "curious"])
            #expect(events[0]["object"]?["eTag"] == (try created.json()["eTag"]))
            // The membership's event comes on both of its sides, so on alice's channel too.
            #expect(events[1]["change"] == "relationshipCreated")
            #expect(events[1]["kind"] == "membership")
            #expect(events[1]["object"]?["channelId"] == "room-1")
            #expect(events[1]["timetoken"]?.stringValue?.count == 17)

            watcher.send(SIGINT)
            let result = try await watcher.finish()
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.contains("watch stopped (SIGINT)"), "\(result)")
            #expect(result.stderr.contains("status: disconnected"), "\(result)")
        }
    }

    @Test("a change made through the SDK by the test process itself, and messages, with --count")
    func changesFromTheTestProcess() async throws {
        try await withEmulator { live in
            let watcher = try await Self.watch(live, ["bob", "room-9", "--count", "2"])
            let pubnub = PubNub(
                configuration: PubNubConfiguration(
                    publishKey: "demo", subscribeKey: "demo", userId: "test", origin: live.origin,
                    useSecureConnections: false))
            _ = try await pubnub.dataSync.createUser(classVersion: 1, id: "bob", status: "new")
            let published = try await live.run(["publish", "room-9", #"{"text":"hi"}"#])
            try #require(published.status == 0, "\(published)")
            let result = try await watcher.finish()
            #expect(result.status == 0, "\(result)")
            let events = try result.ndjson()
            try #require(events.count == 2, "\(result)")
            #expect(events[0]["change"] == "entityCreated")
            #expect(events[0]["object"]?["status"] == "new")
            #expect(events[1]["type"] == "message")
            #expect(events[1]["payload"] == ["text": "hi"])
            #expect(events[1]["publisher"] == "datasync-cli")
            #expect(events[1]["timetoken"] == (try published.json()["timetoken"]))
        }
    }

    @Test("--projection watches the object's projection channel; --format human prints readable lines")
    func projectionAndHumanForm() async throws {
        try await withEmulator(EmulatorConfiguration(classes: cliTestClasses)) { live in
            let watcher = try await Self.watch(live, ["swift", "--projection", "stats", "--format", "human"])
            let created = try await live.run(
                [
                    "entities", "create", "--class", "Course", "--class-version", "1", "--id", "swift", "--payload",
                    #"{"title":"Swift","enrolled":3}"#,
                ])
            try #require(created.status == 0, "\(created)")
            let (out, _) = try await watcher.waitFor("the projection's event") { out, _ in out.contains("\n") }
            #expect(
                out.contains("__stats__swift  datasync entityCreated custom swift (Course v1) [projection stats]"),
                "\(out)")
            #expect(out.contains(#"payload={"enrolled":3}"#), "\(out)")
            #expect(!out.contains("Swift"), "the stats projection leaves the title out: \(out)")
            watcher.send(SIGTERM)
            #expect(try await watcher.finish().status == 0)
        }
    }

    @Test("--presence shows another client joining and leaving")
    func presence() async throws {
        try await withEmulator { live in
            let watcher = try await Self.watch(live, ["lobby", "--presence"])
            let visitor = try await Self.watch(live, ["lobby", "--user-id", "visitor"])
            try await watcher.waitFor("the join") { out, _ in out.contains(#""action":"join""#) }
            visitor.send(SIGINT)
            #expect(try await visitor.finish().status == 0)
            try await watcher.waitFor("the leave") { out, _ in out.contains(#""action":"leave""#) }
            let events = try watcher.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            #expect(events.contains { $0["type"] == "presence" && $0["userId"] == "visitor" })
            watcher.send(SIGINT)
            #expect(try await watcher.finish().status == 0)
        }
    }

    @Test("a subscription the service refuses (403 without a token) ends watch with exit 1")
    func refusedSubscription() async throws {
        try await withEmulator(protectedDemoEmulator) { live in
            let result = try await live.run(["watch", "room"])
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("status: accessDenied (subscribe, HTTP 403)"), "\(result)")
            #expect(result.stderr.contains("watch: the subscription failed"), "\(result)")
        }
    }
}
