import DataSyncEmulator
import Foundation
import JSONCore
import Testing

/// Classes for the custom kinds: an events-enabled entity class with a named projection, and a
/// relationship class.
let cliTestClasses: JSONValue = [
    "entityClasses": [
        [
            "name": "Course", "eventsEnabled": true,
            "versions": [
                [
                    "version": 1,
                    "properties": [
                        ["name": "title", "pointer": "/payload/title", "type": "string", "filtering": "full"],
                        ["name": "enrolled", "pointer": "/payload/enrolled", "type": "integer"],
                    ],
                    "projections": [["name": "stats", "pointers": ["/payload/enrolled"]]],
                ]
            ],
        ]
    ],
    "relationshipClasses": [["name": "Enrollment", "eventsEnabled": true, "versions": [["version": 1]]]],
]

@Suite("datasync users|channels|memberships|entities|relationships", .timeLimit(.minutes(3)))
struct ObjectCommandTests {
    /// create, get, list, set (from `get` output on stdin), update with an eTag, a stale eTag
    /// (exit 1), remove, get after remove (exit 1): the same story for every kind.
    @Test("a CRUD round trip", arguments: ["users", "channels", "entities"])
    func entityRoundTrip(_ kind: String) async throws {
        try await withEmulator(EmulatorConfiguration(classes: cliTestClasses)) { live in
            let classFlags = kind == "entities" ? ["--class", "Course"] : []
            let created = try await live.run(
                [
                    kind, "create", "--id", "x1", "--class-version", "1", "--status", "active", "--payload",
                    #"{"title":"One"}"#,
                ] + classFlags)
            try #require(created.status == 0, "\(created)")
            let object = try created.json()
            #expect(object["id"] == "x1")
            #expect(object["status"] == "active")
            #expect(object["payload"] == ["title": "One"])
            let className = kind == "users" ? "User" : kind == "channels" ? "Channel" : "Course"
            #expect(object["entityClass"] == .string(className))
            let firstTag = try #require(object["eTag"]?.stringValue)

            let read = try await live.run([kind, "get", "x1"])
            #expect(read.status == 0)
            #expect(try read.json() == object)

            let listed = try await live.run([kind, "list"] + classFlags)
            #expect(listed.status == 0, "\(listed)")
            #expect(try listed.ndjson().map { $0["id"] } == ["x1"])

            // `get` output fed back to `set --json -`, with one flag overriding it.
            let replaced = try await live.run(
                [kind, "set", "x1", "--json", "-", "--status", "archived"], stdin: read.stdout)
            try #require(replaced.status == 0, "\(replaced)")
            #expect(try replaced.json()["status"] == "archived")
            #expect(try replaced.json()["payload"] == ["title": "One"])
            let secondTag = try #require(try replaced.json()["eTag"]?.stringValue)
            #expect(secondTag != firstTag)

            let patched = try await live.run(
                [
                    kind, "update", "x1", "--if-matches-etag", secondTag, "--ops",
                    #"[{"op":"replace","path":"/payload/title","value":"Two"}]"#,
                ])
            try #require(patched.status == 0, "\(patched)")
            #expect(try patched.json()["payload"] == ["title": "Two"])

            let stale = try await live.run([kind, "remove", "x1", "--if-match", firstTag])
            #expect(stale.status == 1, "\(stale)")
            #expect(stale.stderr.contains("preconditionFailed (HTTP 412)"), "\(stale)")

            let removed = try await live.run([kind, "remove", "x1"])
            #expect(removed.status == 0)
            #expect(try removed.json() == ["id": "x1", "removed": true])
            let gone = try await live.run([kind, "get", "x1"])
            #expect(gone.status == 1)
            #expect(gone.stderr.contains("resourceNotFound (HTTP 404)"), "\(gone)")
        }
    }

    @Test("memberships: create from flags, filter by user and channel, set, update, remove")
    func membershipRoundTrip() async throws {
        try await withEmulator { live in
            #expect(try await live.run(["users", "create", "--id", "alice", "--class-version", "1"]).status == 0)
            #expect(try await live.run(["channels", "create", "--id", "room-1", "--class-version", "1"]).status == 0)
            #expect(try await live.run(["channels", "create", "--id", "room-2", "--class-version", "1"]).status == 0)
            let created = try await live.run(
                [
                    "memberships", "create", "--id", "m1", "--channel", "room-1", "--user", "alice", "--class-version",
                    "1",
                    "--payload", #"{"role":"admin"}"#,
                ])
            try #require(created.status == 0, "\(created)")
            #expect(try created.json()["channelId"] == "room-1")
            #expect(try created.json()["userId"] == "alice")
            // The same fields from a document instead of flags.
            let fromDocument = try await live.run(
                [
                    "memberships", "create", "--json",
                    #"{"id":"m2","channelId":"room-2","userId":"alice","classVersion":1}"#,
                ])
            try #require(fromDocument.status == 0, "\(fromDocument)")

            let mine = try await live.run(["memberships", "list", "--user", "alice", "--sort", "id:desc"])
            #expect(try mine.ndjson().map { $0["id"] } == ["m2", "m1"])
            let roomOne = try await live.run(["memberships", "list", "--channel", "room-1"])
            #expect(try roomOne.ndjson().map { $0["id"] } == ["m1"])

            let duplicate = try await live.run(
                ["memberships", "create", "--channel", "room-1", "--user", "alice", "--class-version", "1"])
            #expect(duplicate.status == 1)
            #expect(duplicate.stderr.contains("HTTP 409"), "\(duplicate)")

            let set = try await live.run(["memberships", "set", "m1", "--class-version", "1", "--status", "muted"])
            #expect(try set.json()["status"] == "muted")
            #expect(try set.json()["payload"] == nil)
            let updated = try await live.run(
                ["memberships", "update", "m1", "--ops", #"{"op":"add","path":"/payload","value":{"role":"guest"}}"#])
            #expect(try updated.json()["payload"] == ["role": "guest"], "\(updated)")
            #expect(try await live.run(["memberships", "get", "m1"]).json()["status"] == "muted")
            #expect(try await live.run(["memberships", "remove", "m1"]).status == 0)
            #expect(try await live.run(["memberships", "get", "m1"]).status == 1)
        }
    }

    @Test("relationships: create between two entities, list by side, set, update, remove")
    func relationshipRoundTrip() async throws {
        try await withEmulator(EmulatorConfiguration(classes: cliTestClasses)) { live in
            #expect(try await live.run(["users", "create", "--id", "alice", "--class-version", "1"]).status == 0)
            #expect(
                try await live.run(["entities", "create", "--class", "Course", "--id", "swift", "--class-version", "1"])
                    .status == 0)
            let created = try await live.run(
                [
                    "relationships", "create", "--class", "Enrollment", "--class-version", "1", "--entity-a", "alice",
                    "--entity-b", "swift", "--id", "r1", "--status", "enrolled",
                ])
            try #require(created.status == 0, "\(created)")
            #expect(try created.json()["relationshipClass"] == "Enrollment")
            #expect(try created.json()["entityAId"] == "alice")
            #expect(try created.json()["entityBId"] == "swift")

            let bySide = try await live.run(["relationships", "list", "--class", "Enrollment", "--entity-b", "swift"])
            #expect(try bySide.ndjson().map { $0["id"] } == ["r1"])
            let none = try await live.run(["relationships", "list", "--class", "Enrollment", "--entity-a", "bob"])
            #expect(none.status == 0)
            #expect(none.lines.isEmpty)

            let set = try await live.run(
                ["relationships", "set", "r1", "--class-version", "1", "--payload", #"{"lessons":3}"#])
            #expect(try set.json()["payload"] == ["lessons": 3])
            #expect(try set.json()["status"] == nil)
            let updated = try await live.run(
                [
                    "relationships", "update", "r1", "--ops",
                    #"[{"op":"test","path":"/payload/lessons","value":3},"#
                        + #"{"op":"replace","path":"/payload/lessons","value":4}]"#,
                ])
            #expect(try updated.json()["payload"] == ["lessons": 4], "\(updated)")
            // A failed `test` operation: the service answers 409 and nothing changes.
            let failedTest = try await live.run(
                ["relationships", "update", "r1", "--ops", #"{"op":"test","path":"/payload/lessons","value":99}"#])
            #expect(failedTest.status == 1)
            #expect(try await live.run(["relationships", "remove", "r1"]).status == 0)
            #expect(try await live.run(["relationships", "get", "r1"]).status == 1)
        }
    }

    @Test("payload and operations from a file and from standard input")
    func inputFromFilesAndStandardInput() async throws {
        try await withEmulator { live in
            let file = live.home.appendingPathComponent("payload.json")
            try Data(#"{"fullName":"Ada","tags":["a","b"]}"#.utf8).write(to: file)
            let created = try await live.run(
                ["users", "create", "--id", "ada", "--class-version", "1", "--payload", "@" + file.path])
            #expect(try created.json()["payload"] == ["fullName": "Ada", "tags": ["a", "b"]], "\(created)")
            let patched = try await live.run(
                ["users", "update", "ada", "--operations", "-"],
                stdin: #"[{"op":"remove","path":"/payload/tags"}]"#)
            #expect(try patched.json()["payload"] == ["fullName": "Ada"], "\(patched)")
            let pretty = try await live.run(["users", "get", "ada", "--pretty"])
            #expect(pretty.stdout.contains("\n  \"id\": \"ada\""), "\(pretty)")
            #expect(try pretty.json()["id"] == "ada")
        }
    }
}
