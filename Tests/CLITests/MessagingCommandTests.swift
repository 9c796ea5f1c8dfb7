import DataSyncEmulator
import Foundation
import JSONCore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("datasync publish|signal|fire|here-now|where-now|time|channel-groups", .timeLimit(.minutes(2)))
struct MessagingCommandTests {
    @Test("time, publish, signal and fire print timetokens as strings")
    func timetokens() async throws {
        try await withEmulator { live in
            let time = try await live.run(["time"])
            try #require(time.status == 0, "\(time)")
            #expect(try time.json()["timetoken"]?.stringValue?.count == 17)
            #expect(try time.json()["date"]?.stringValue?.hasSuffix("Z") == true)
            for command in [
                [
                    "publish", "room", #"{"a":1}"#, "--meta", #"{"k":"v"}"#, "--no-store", "--custom-message-type",
                    "chat-msg",
                ],
                ["publish", "room", "plain words", "--text", "--compress", "--ttl", "2"],
                ["signal", "room", "true"], ["fire", "room", "[1,2]"],
            ] {
                let result = try await live.run(command)
                #expect(result.status == 0, "\(command): \(result)")
                #expect(try result.json()["channel"] == "room")
                #expect(try result.json()["timetoken"]?.stringValue?.count == 17, "\(result)")
            }
            let big = try await live.run(
                ["signal", "room", "-"], stdin: "\"" + String(repeating: "x", count: 100) + "\"")
            #expect(big.status == 1, "\(big)")
            #expect(big.stderr.contains("signalTooLarge"), "\(big)")
        }
    }

    @Test("here-now and where-now see a watching client")
    func presence() async throws {
        try await withEmulator { live in
            let watcher = try live.launch(["watch", "lobby", "--user-id", "ada"])
            try await watcher.waitFor("connected") { _, err in err.contains("status: connected") }
            let here = try await live.run(["here-now", "lobby"])
            try #require(here.status == 0, "\(here)")
            #expect(try here.json()["totalOccupancy"] == 1, "\(here)")
            #expect(try here.json()["channels"]?["lobby"]?["occupants"] == [["userId": "ada"]], "\(here)")
            let counted = try await live.run(["here-now", "lobby", "--no-users"])
            #expect(try counted.json()["channels"]?["lobby"]?["occupants"] == [], "\(counted)")
            let global = try await live.run(["here-now"])
            #expect(try global.json()["totalOccupancy"] == 1, "\(global)")
            let whereNow = try await live.run(["where-now", "ada"])
            #expect(try whereNow.json() == ["userId": "ada", "channels": ["lobby"]], "\(whereNow)")
            let own = try await live.run(["where-now", "--user-id", "nobody"])
            #expect(try own.json() == ["userId": "nobody", "channels": []], "\(own)")
            watcher.send(SIGINT)
            #expect(try await watcher.finish().status == 0)
        }
    }

    @Test("channel groups: add, list, show, remove, delete")
    func channelGroups() async throws {
        try await withEmulator { live in
            #expect(
                try await live.run(["channel-groups", "add", "feeds", "news", "sport"]).json()
                    == ["group": "feeds", "added": ["news", "sport"]])
            #expect(try await live.run(["groups", "list"]).json() == ["groups": ["feeds"]])
            #expect(try await live.run(["groups", "channels", "feeds"]).json()["channels"] == ["news", "sport"])
            #expect(try await live.run(["groups", "remove", "feeds", "sport"]).status == 0)
            #expect(try await live.run(["groups", "show", "feeds"]).json()["channels"] == ["news"])
            #expect(try await live.run(["groups", "delete", "feeds"]).json() == ["group": "feeds", "deleted": true])
            #expect(try await live.run(["groups", "list"]).json() == ["groups": []])
            let missing = try await live.run(["groups", "add", "feeds"])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("missing argument CHANNEL"))
        }
    }
}

@Suite("datasync emulator", .timeLimit(.minutes(2)))
struct EmulatorCommandTests {
    @Test("starts the emulator with datasync-emulator's flags, serves the CLI, stops on Ctrl-C")
    func runsInProcess() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("datasync-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let classes = home.appendingPathComponent("classes.json")
        try Data(try cliTestClasses.jsonString().utf8).write(to: classes)
        let server = try CLIProcess(
            [
                "emulator", "--port", "0", "--classes", classes.path, "--keyset", "pub2:sub2:sec2",
                "--subscribe-key", "mine", "--publish-key", "mine-pub",
            ],
            environment: CLIEnvironment.clean(home: home))
        let (banner, _) = try await server.waitFor("the banner") { out, _ in out.contains("Press Ctrl-C to stop.") }
        let origin = try #require(
            banner.split(separator: "\n").first { $0.hasPrefix("origin: ") }.map {
                String($0.dropFirst("origin: ".count))
            })
        #expect(origin.hasPrefix("http://127.0.0.1:"))
        #expect(banner.contains("subscribe key: mine\n"))
        #expect(banner.contains("publish key: mine-pub\n"))
        #expect(banner.contains("also keyset: publish key pub2, subscribe key sub2, access control off"))
        #expect(
            banner.contains(
                "export DATASYNC_ORIGIN=\(origin) DATASYNC_SUBSCRIBE_KEY=mine DATASYNC_PUBLISH_KEY=mine-pub"))

        var environment = CLIEnvironment.clean(home: home)
        environment["DATASYNC_ORIGIN"] = origin
        environment["DATASYNC_SUBSCRIBE_KEY"] = "mine"
        environment["DATASYNC_PUBLISH_KEY"] = "mine-pub"
        let created = try await CLIProcess(
            ["entities", "create", "--class", "Course", "--class-version", "1", "--id", "c1"], environment: environment
        ).finish()
        #expect(created.status == 0, "\(created)")
        let published = try await CLIProcess(["publish", "room", "1"], environment: environment).finish()
        #expect(published.status == 0, "\(published)")
        try await server.waitFor("the request log") { out, _ in out.contains("/v1/datasync/subkeys/mine/entities") }

        server.send(SIGINT)
        let result = try await server.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("stopped\n"), "\(result)")
    }
}
