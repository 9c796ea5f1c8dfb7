import DataSyncEmulator
import Foundation
import JSONCore
import Testing

@Suite("datasync history fetch|delete|counts and actions add|remove|list", .timeLimit(.minutes(2)))
struct HistoryCommandTests {
    /// Publishes `count` messages `{"n":1}`… on `channel` through the CLI; returns their timetokens.
    private func publish(_ live: LiveEmulator, _ channel: String, count: Int) async throws -> [String] {
        var timetokens: [String] = []
        for index in 1...count {
            let result = try await live.run(["publish", channel, #"{"n":\#(index)}"#, "--meta", #"{"i":\#(index)}"#])
            try #require(result.status == 0, "\(result)")
            timetokens.append(try #require(try result.json()["timetoken"]?.stringValue))
        }
        return timetokens
    }

    private func lines(_ text: String) throws -> [JSONValue] {
        try text.split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
    }

    @Test("fetch prints stored messages oldest first, pages with --start, and --all reads every page")
    func fetchAndPage() async throws {
        try await withEmulator { live in
            let timetokens = try await publish(live, "room-1", count: 5)
            let fetched = try await live.run(["history", "fetch", "room-1", "--meta"])
            try #require(fetched.status == 0, "\(fetched)")
            let messages = try lines(fetched.stdout)
            #expect(messages.map { $0["timetoken"]?.stringValue } == timetokens.map(Optional.some))
            #expect(messages.first?["message"] == ["n": 1])
            #expect(messages.first?["meta"] == ["i": 1])
            #expect(messages.first?["channel"] == "room-1")
            #expect(messages.first?["publisher"] != nil)

            // A page of two: the newest two, and a note naming the next --start.
            let page = try await live.run(["history", "fetch", "room-1", "--limit", "2"])
            #expect(try lines(page.stdout).map { $0["timetoken"]?.stringValue } == [timetokens[3], timetokens[4]])
            #expect(page.stderr.contains("--start \(timetokens[3])"), "\(page)")
            let older = try await live.run(["history", "fetch", "room-1", "--limit", "2", "--start", timetokens[3]])
            #expect(try lines(older.stdout).map { $0["timetoken"]?.stringValue } == [timetokens[1], timetokens[2]])

            let all = try await live.run(["history", "fetch", "room-1", "--limit", "2", "--all"])
            try #require(all.status == 0, "\(all)")
            #expect(try lines(all.stdout).map { $0["timetoken"]?.stringValue } == timetokens.map(Optional.some))
            #expect(!all.stderr.contains("--start"), "\(all)")

            // Usage mistakes exit 2 and name the argument.
            let badStart = try await live.run(["history", "fetch", "room-1", "--start", "yesterday"])
            #expect(badStart.status == 2, "\(badStart)")
            #expect(badStart.stderr.contains("--start takes a timetoken"), "\(badStart)")
            let allTwo = try await live.run(["history", "fetch", "a", "b", "--all"])
            #expect(allTwo.status == 2, "\(allTwo)")
        }
    }

    @Test("counts per channel since a timetoken; delete one message, a range, or all of them")
    func countsAndDelete() async throws {
        try await withEmulator { live in
            let timetokens = try await publish(live, "room-1", count: 4)
            _ = try await publish(live, "room-2", count: 1)
            let counts = try await live.run([
                "history", "counts", "room-1", "room-2", "--since", timetokens[1], "--compact",
            ])
            try #require(counts.status == 0, "\(counts)")
            #expect(try counts.json() == ["channels": ["room-1": 2, "room-2": 1]], "\(counts)")
            let pairs = try await live.run(["history", "counts", "room-1=\(timetokens[0])", "--compact"])
            #expect(try pairs.json() == ["channels": ["room-1": 3]], "\(pairs)")
            let missing = try await live.run(["history", "counts", "room-1"])
            #expect(missing.status == 2, "\(missing)")

            let one = try await live.run(["history", "delete", "room-1", "--timetoken", timetokens[1], "--compact"])
            try #require(one.status == 0, "\(one)")
            #expect(try one.json()["end"]?.stringValue == timetokens[1])
            var left = try lines(try await live.run(["history", "fetch", "room-1"]).stdout)
            #expect(left.map { $0["timetoken"]?.stringValue } == [timetokens[0], timetokens[2], timetokens[3]])

            // Nothing to say what to delete: a usage error, and nothing is deleted.
            let vague = try await live.run(["history", "delete", "room-1"])
            #expect(vague.status == 2, "\(vague)")
            #expect(vague.stderr.contains("--all"), "\(vague)")
            let everything = try await live.run(["history", "delete", "room-1", "--all"])
            #expect(everything.status == 0, "\(everything)")
            left = try lines(try await live.run(["history", "fetch", "room-1"]).stdout)
            #expect(left.isEmpty)
            #expect(try lines(try await live.run(["history", "fetch", "room-2"]).stdout).count == 1)
        }
    }

    @Test("actions add, list (paged), remove; fetch --actions shows them; errors exit 1")
    func messageActions() async throws {
        try await withEmulator { live in
            let timetokens = try await publish(live, "room-1", count: 1)
            let message = timetokens[0]
            var added: [String] = []
            for value in ["wave", "smile", "heart"] {
                let result = try await live.run(
                    ["actions", "add", "room-1", message, "reaction", value, "--compact", "--user-id", "ada"])
                try #require(result.status == 0, "\(result)")
                #expect(try result.json()["value"]?.stringValue == value)
                #expect(try result.json()["userId"] == "ada")
                #expect(try result.json()["messageTimetoken"]?.stringValue == message)
                added.append(try #require(try result.json()["actionTimetoken"]?.stringValue))
            }
            let duplicate = try await live.run([
                "actions", "add", "room-1", message, "reaction", "wave", "--user-id", "ada",
            ])
            #expect(duplicate.status == 1, "\(duplicate)")

            let listed = try await live.run(["actions", "list", "room-1"])
            #expect(try lines(listed.stdout).map { $0["actionTimetoken"]?.stringValue } == added.map(Optional.some))
            let page = try await live.run(["actions", "list", "room-1", "--limit", "2"])
            #expect(try lines(page.stdout).count == 2)
            #expect(page.stderr.contains("--start \(added[1])"), "\(page)")
            let all = try await live.run(["actions", "list", "room-1", "--limit", "2", "--all"])
            #expect(try lines(all.stdout).map { $0["actionTimetoken"]?.stringValue } == added.map(Optional.some))

            let withActions = try lines(try await live.run(["history", "fetch", "room-1", "--actions"]).stdout)
            #expect(withActions.first?["actions"]?.arrayValue?.count == 3, "\(withActions)")

            let removed = try await live.run(["actions", "remove", "room-1", message, added[0], "--compact"])
            try #require(removed.status == 0, "\(removed)")
            #expect(try removed.json()["removed"] == true)
            let after = try lines(try await live.run(["actions", "list", "room-1"]).stdout)
            #expect(after.map { $0["value"]?.stringValue } == ["smile", "heart"])
            let again = try await live.run(["actions", "remove", "room-1", message, added[0]])
            #expect(again.status == 1, "\(again)")
            let badTimetoken = try await live.run(["actions", "remove", "room-1", message, "abc"])
            #expect(badTimetoken.status == 2, "\(badTimetoken)")
            #expect(badTimetoken.stderr.contains("ACTION_TT"), "\(badTimetoken)")
        }
    }

    @Test("with access control on, --token decides, and --output json reports the refusal on stderr")
    func tokenAndJSONErrors() async throws {
        try await withEmulator(TokenCommandTests.protected) { live in
            let environment = live.environment(extra: ["DATASYNC_SECRET_KEY": "s3cret", "DATASYNC_USER_ID": "ada"])
            let grant = try await live.run(
                ["grant", "--authorized-user-id", "ada", "--resource", "channels=room-1=rwd", "--compact"],
                environment: environment)
            let token = try #require(try grant.json()["token"]?.stringValue, "\(grant)")
            let published = try await live.run(["publish", "room-1", "1", "--token", token], environment: environment)
            try #require(published.status == 0, "\(published)")
            let refused = try await live.run(
                ["history", "fetch", "room-1", "--output", "json"], environment: environment)
            #expect(refused.status == 1, "\(refused)")
            let error = try #require(try JSONValue(parsing: Array(refused.stderr.utf8))["error"], "\(refused)")
            #expect(error["command"] == "history fetch", "\(refused)")
            #expect(error["httpStatus"] == 403, "\(refused)")
            let allowed = try await live.run(
                ["history", "fetch", "room-1", "--token", token], environment: environment)
            #expect(allowed.status == 0, "\(allowed)")
            #expect(try lines(allowed.stdout).count == 1)
        }
    }
}
