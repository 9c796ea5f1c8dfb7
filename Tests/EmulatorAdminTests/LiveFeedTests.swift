import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

/// The console's feeds, over real HTTP: the router's in-memory request log, the live event
/// stream (DataSync changes and pub/sub events, long-polled) and object histories.
@Suite("Request log and live event stream over HTTP")
struct LiveFeedTests {
    @Test("every answered request is logged with its status, credentials redacted, admin calls left out")
    func requestLog() async throws {
        try await withServed { served in
            _ = try await served.send(
                "GET", "/v1/datasync/subkeys/demo/users?auth=tok%2Bsecret&uuid=me&signature=v2.abc")
            _ = try await served.send("DELETE", "/v3/pam/demo/grant/p0F2AkF0Gmk?timestamp=1&signature=v2.x")
            _ = try await served.send("GET", "/time/0?%61uth=hidden")
            _ = try await served.send("GET", "/nowhere")
            _ = try await served.send("GET", "/_emulator/v1/clock")
            let reply = try await served.send("GET", "/_emulator/v1/requests")
            #expect(reply.status == 200)
            let entries = try #require(reply.json?["requests"]?.arrayValue)
            #expect(
                entries.compactMap { $0["target"]?.stringValue } == [
                    "/v1/datasync/subkeys/demo/users?auth=REDACTED&uuid=me&signature=REDACTED",
                    "/v3/pam/demo/grant/REDACTED?timestamp=1&signature=REDACTED", "/time/0?%61uth=REDACTED",
                    "/nowhere",
                ])
            #expect(entries.compactMap { $0["status"]?.intValue }.first == 200)
            #expect(entries.compactMap { $0["status"]?.intValue }.last == 404)
            #expect(entries.compactMap { $0["area"]?.stringValue } == ["datasync", "access", "time", "other"])
            #expect(entries.compactMap { $0["sequence"]?.intValue } == [1, 2, 3, 4])
            #expect(entries[0]["method"] == "GET")
            #expect(entries[0]["durationMs"]?.doubleValue ?? -1 >= 0)
            #expect(!reply.text.contains("secret") && !reply.text.contains("abc") && !reply.text.contains("p0F2"))
            #expect(!reply.text.contains("hidden"))
            #expect(reply.json?["cursor"] == 4)
            // The same in process.
            #expect(served.emulator.recentRequests(limit: 2).map(\.target).last == "/nowhere")
            #expect(served.emulator.recentRequests().count == 4)
        }
    }

    @Test("the request log is a bounded ring")
    func bounded() async throws {
        let configuration = EmulatorConfiguration(
            startTime: adminStart, admin: AdminConfiguration(requestLogCapacity: 3))
        try await withServed(configuration) { served in
            for index in 1...5 { _ = try await served.send("GET", "/time/0?n=\(index)") }
            let reply = try await served.send("GET", "/_emulator/v1/requests?after=0")
            #expect(
                reply.json?["requests"]?.arrayValue?.compactMap { $0["target"]?.stringValue } == [
                    "/time/0?n=3", "/time/0?n=4", "/time/0?n=5",
                ])
            #expect(served.emulator.recentRequests().count == 3)
        }
    }

    @Test("a request-log long-poll returns as soon as a request is answered")
    func requestLongPoll() async throws {
        try await withServed { served in
            let cursor = try await served.send("GET", "/_emulator/v1/requests").json?["cursor"]?.intValue ?? -1
            let journal = served.emulator.admin.requestLog.journal
            // A `wait` that never runs out: only the append can end this poll.
            journal.replaceTimeoutSleep { _ in await suspendUntilCancelled() }
            let waiting = Task { try await served.send("GET", "/_emulator/v1/requests?after=\(cursor)&wait=30") }
            // Parked before the request it is waiting for is made.
            #expect(await eventually { journal.waiterCount > 0 })
            _ = try await served.send("GET", "/time/0")
            let reply = try await waiting.value
            #expect(reply.json?["requests"]?[0]?["target"] == "/time/0")
            #expect(reply.json?["requests"]?.arrayValue?.count == 1)
            // Nothing new: it answers empty once `wait` is over (at once: the timeout fires now).
            journal.replaceTimeoutSleep { _ in }
            let empty = try await served.send("GET", "/_emulator/v1/requests?after=\(cursor + 1)&wait=0.3")
            #expect(empty.json?["requests"] == [])
        }
    }

    @Test("the event stream long-polls DataSync changes and pub/sub events of a keyset")
    func eventStream() async throws {
        try await withServed { served in
            let first = try await served.send("GET", "/_emulator/v1/events?keyset=demo")
            #expect(first.json?["changes"] == [])
            let cursor = try #require(first.json?["cursor"]?.intValue)
            let messagesCursor = try #require(first.json?["messagesCursor"]?.stringValue)
            let waiting = Task {
                try await served.send(
                    "GET", "/_emulator/v1/events?keyset=demo&after=\(cursor)&messagesAfter=\(messagesCursor)&wait=20")
            }
            let changes = served.emulator.admin.changes
            // The poll is parked before the change it waits for is made.
            #expect(await eventually { changes.waiterCount > 0 })
            try await served.create("users", ["id": "ada", "entityClassVersion": 1, "payload": ["name": "Ada"]])
            let reply = try await waiting.value
            let change = try #require(reply.json?["changes"]?[0])
            #expect(change["action"] == "create")
            #expect(change["id"] == "ada")
            #expect(change["collection"] == "users")
            #expect(change["cause"] == "request")
            #expect(change["object"]?["payload"] == ["name": "Ada"])
            // The create's real-time delivery (e: 5) is on the bus too.
            let next = try await served.send(
                "GET",
                "/_emulator/v1/events?keyset=demo&after=\(reply.json?["cursor"]?.intValue ?? 0)"
                    + "&messagesAfter=\(messagesCursor)&wait=5")
            #expect(
                next.json?["messages"]?.arrayValue?.contains { $0["kind"] == "datasync" && $0["channel"] == "ada" }
                    == true)
            // A message published while a poll waits.
            let messageCursor = next.json?["messagesCursor"]?.stringValue ?? "0"
            let changeCursor = next.json?["cursor"]?.intValue ?? 0
            let poll = Task {
                try await served.send(
                    "GET",
                    "/_emulator/v1/events?keyset=demo&after=\(changeCursor)&messagesAfter=\(messageCursor)&wait=20")
            }
            #expect(await eventually { changes.waiterCount > 0 })
            _ = try await served.send("GET", "/publish/demo/demo/0/room/0/%7B%22n%22%3A1%7D?uuid=pat")
            let message = try #require(try await poll.value.json?["messages"]?[0])
            #expect(message["kind"] == "message")
            #expect(message["channel"] == "room")
            #expect(message["publisher"] == "pat")
            #expect(message["payload"] == ["n": 1])
            // Changes of other keysets are not in this keyset's stream.
            try await served.create("users", ["id": "elsewhere", "entityClassVersion": 1], keyset: "other")
            let quiet = try await served.send(
                "GET", "/_emulator/v1/events?keyset=demo&after=\(changeCursor)&messagesAfter=\(messageCursor)&wait=0.3")
            #expect(quiet.json?["changes"] == [])
        }
    }

    @Test("an object's history: its create, updates and delete, oldest first")
    func history() async throws {
        try await withServed { served in
            try await served.create("users", ["id": "h1", "entityClassVersion": 1])
            _ = try await served.send(
                "PATCH", "/v1/datasync/subkeys/demo/users/h1", json: [["op": "add", "path": "/status", "value": "on"]],
                contentType: "application/json-patch+json")
            _ = try await served.send("DELETE", "/v1/datasync/subkeys/demo/users/h1")
            try await served.create("users", ["id": "h2", "entityClassVersion": 1])
            let reply = try await served.send("GET", "/_emulator/v1/keysets/demo/history/users/h1")
            #expect(reply.status == 200)
            let changes = try #require(reply.json?["changes"]?.arrayValue)
            #expect(changes.compactMap { $0["action"]?.stringValue } == ["create", "update", "delete"])
            #expect(changes[1]["object"]?["status"] == "on")
            #expect(changes[1]["eTag"] != changes[0]["eTag"])
            let missing = try await served.send("GET", "/_emulator/v1/keysets/demo/history/widgets/h1")
            #expect(missing.status == 404)
        }
    }
}
