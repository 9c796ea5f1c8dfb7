import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

/// Faults queued over HTTP with `/_emulator/v1/faults`, seen by clients over real sockets, on
/// every route family.
@Suite("Faults over HTTP")
struct FaultRouteTests {
    /// One request per family, each a request the family's service would answer at once.
    static let familyRequests: [(family: String, method: String, target: String)] = [
        ("datasync", "GET", "/v1/datasync/subkeys/demo/users"),
        ("publish", "GET", "/publish/demo/demo/0/general/0/%22hi%22"),
        ("signal", "GET", "/signal/demo/demo/0/general/0/1"),
        ("subscribe", "GET", "/v2/subscribe/demo/general/0?tt=0&uuid=u1"),
        ("presence", "GET", "/v2/presence/sub-key/demo/channel/general/heartbeat?uuid=u1&heartbeat=60"),
        ("presence", "GET", "/v2/presence/sub-key/demo/channel/general/leave?uuid=u1"),
        ("presence", "GET", "/v2/presence/sub-key/demo/channel/general?uuid=u1"),
        ("presence", "GET", "/v2/presence/sub-key/demo/uuid/u1?uuid=u1"),
        ("presence", "GET", "/v2/presence/sub-key/demo/channel/general/uuid/u1/data?uuid=u1&state=%7B%7D"),
        ("channel-groups", "GET", "/v1/channel-registration/sub-key/demo/channel-group/g1?add=general&uuid=u1"),
        ("access-manager", "POST", "/v3/pam/demo/grant"),
        ("time", "GET", "/time/0"),
        ("history", "GET", "/v3/history/sub-key/demo/channel/general?max=5"),
        ("history", "GET", "/v3/history/sub-key/demo/message-counts/general?timetoken=1"),
        ("message-actions", "GET", "/v1/message-actions/demo/channel/general"),
    ]

    @Test("a status fault on each family answers once with that family's error envelope, then the service answers")
    func statusOnEveryFamily() async throws {
        try await withServed { served in
            for (family, method, target) in Self.familyRequests {
                let added = try await served.send(
                    "POST", "/_emulator/v1/faults", json: ["kind": "status", "status": 503, "family": .string(family)])
                #expect(added.status == 201, "\(family): \(added.text)")
                let faulted = try await served.send(method, target)
                #expect(faulted.status == 503, "\(target)")
                switch family {
                case "datasync":
                    #expect(faulted.json?["errors"]?[0]?["errorCode"] == "DS-0000", "\(faulted.text)")
                case "access-manager":
                    #expect(faulted.json?["service"] == "Access Manager", "\(faulted.text)")
                default:
                    #expect(faulted.json?["message"] == "Service Unavailable", "\(faulted.text)")
                    #expect(faulted.json?["error"] == true)
                }
                let after = try await served.send(method, target)
                #expect(after.status != 503, "\(target) after the count ran out: \(after.text)")
            }
            let listed = try await served.send("GET", "/_emulator/v1/faults")
            #expect(listed.json == ["faults": []])
        }
    }

    @Test("a status fault can carry Retry-After, and a malformed fault sends a complete 200 no client can read")
    func retryAfterAndMalformed() async throws {
        try await withServed { served in
            let added = try await served.send(
                "POST", "/_emulator/v1/faults",
                json: ["kind": "status", "status": 429, "retryAfter": 3, "family": "publish"])
            #expect(added.json?["retryAfter"] == 3, "the stored fault spells it out: \(added.text)")
            let limited = try await served.send("GET", "/publish/demo/demo/0/general/0/%22hi%22")
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "3")
            #expect(limited.json?["error"] == true, "still the family's error envelope: \(limited.text)")

            _ = try await served.send("POST", "/_emulator/v1/faults", json: ["kind": "malformed", "family": "time"])
            let cut = try await served.send("GET", "/time/0")
            #expect(cut.status == 200)
            #expect(cut.text == #"{"t":"#)
            #expect(cut.header("Content-Type") == "application/json")
            _ = try await served.send(
                "POST", "/_emulator/v1/faults", json: ["kind": "malformed", "family": "datasync", "body": "<html>"])
            let html = try await served.send("GET", "/v1/datasync/subkeys/demo/users")
            #expect(html.status == 200)
            #expect(html.text == "<html>")
            #expect(try await served.send("GET", "/time/0").json != nil, "each fired once, then the service answers")
        }
    }

    @Test("history and message-action faults match the channels those calls name")
    func historyChannels() async throws {
        try await withServed { served in
            _ = try await served.send(
                "POST", "/_emulator/v1/faults",
                json: ["kind": "status", "status": 500, "family": "history", "channel": "alerts", "count": 2])
            #expect(try await served.send("GET", "/v3/history/sub-key/demo/channel/general").status == 200)
            #expect(try await served.send("GET", "/v3/history/sub-key/demo/channel/news,alerts").status == 500)
            #expect(
                try await served.send("GET", "/v3/history/sub-key/demo/message-counts/alerts?timetoken=1").status == 500
            )
            _ = try await served.send(
                "POST", "/_emulator/v1/faults",
                json: ["kind": "status", "status": 503, "family": "message-actions", "channel": "alerts"])
            #expect(try await served.send("GET", "/v3/history/sub-key/demo/channel/alerts").status == 200)
            #expect(try await served.send("GET", "/v1/message-actions/demo/channel/alerts").status == 503)
        }
    }

    @Test("a fault on one family leaves the others and the admin routes alone")
    func familyIsolation() async throws {
        try await withServed { served in
            _ = try await served.send(
                "POST", "/_emulator/v1/faults",
                json: ["kind": "status", "status": 500, "family": "publish", "count": 5])
            #expect(try await served.send("GET", "/time/0").status == 200)
            #expect(try await served.send("GET", "/v1/datasync/subkeys/demo/users").status == 200)
            _ = try await served.send("POST", "/_emulator/v1/faults", json: ["kind": "reset", "count": 3])
            // `any` covers every service route, never the admin API.
            let clock = try await served.send("GET", "/_emulator/v1/clock")
            #expect(clock.status == 200)
            let listed = try await served.send("GET", "/_emulator/v1/faults")
            #expect(listed.json?["faults"]?.arrayValue?.count == 2)
            #expect(listed.json?["faults"]?[0]?["remaining"] == 5)
            #expect(listed.json?["faults"]?[1]?["family"] == "any")
        }
    }

    @Test("a custom JSON body replaces the envelope; method, path prefix and channel narrow the match")
    func matching() async throws {
        try await withServed { served in
            let added = try await served.send(
                "POST", "/_emulator/v1/faults",
                json: [
                    "kind": "status", "status": 500, "body": ["oops": true], "family": "publish", "method": "get",
                    "channel": "alerts", "count": 2,
                ])
            #expect(
                added.json
                    == [
                        "id": "f1", "kind": "status", "status": 500, "body": ["oops": true], "family": "publish",
                        "method": "GET", "channel": "alerts", "count": 2, "remaining": 2, "fired": 0,
                    ])
            #expect(try await served.send("GET", "/publish/demo/demo/0/general/0/1").status == 200)
            let hit = try await served.send("GET", "/publish/demo/demo/0/alerts/0/1")
            #expect(hit.status == 500)
            #expect(hit.json == ["oops": true])
            #expect(hit.header("Content-Type") == "application/json")
            let post = try await served.send("POST", "/publish/demo/demo/0/alerts/0", json: 1)
            #expect(post.status == 200, "\(post.text)")
            _ = try await served.send(
                "POST", "/_emulator/v1/faults",
                json: ["kind": "status", "status": 502, "pathPrefix": "/v1/datasync/subkeys/other/"])
            #expect(try await served.send("GET", "/v1/datasync/subkeys/demo/users").status == 200)
            #expect(try await served.send("GET", "/v1/datasync/subkeys/other/users").status == 502)
            _ = try await served.send(
                "POST", "/_emulator/v1/faults",
                json: ["kind": "status", "status": 504, "family": "subscribe", "channel": "alerts"])
            #expect(try await served.send("GET", "/v2/subscribe/demo/general/0?tt=0&uuid=u1").status == 200)
            let subscribe = try await served.send("GET", "/v2/subscribe/demo/general,alerts/0?tt=0&uuid=u1")
            #expect(subscribe.status == 504, "a subscribe listing the channel matches")
            let listed = try await served.send("GET", "/_emulator/v1/faults")
            #expect(listed.json?["faults"]?.arrayValue?.map { $0["remaining"] } == [1])
        }
    }

    @Test("reset closes without an answer; truncate sends the head and part of the body")
    func resetAndTruncate() async throws {
        try await withServed { served in
            _ = try await served.send("POST", "/_emulator/v1/faults", json: ["kind": "reset", "family": "time"])
            await #expect(throws: RawSocketError.self) { try await served.send("GET", "/time/0") }
            #expect(try await served.send("GET", "/time/0").status == 200)

            _ = try await served.send(
                "POST", "/_emulator/v1/faults", json: ["kind": "truncate", "family": "datasync", "bytes": 5])
            let cut = try await served.send("GET", "/v1/datasync/subkeys/demo/users")
            #expect(cut.status == 200)
            #expect(cut.body.count == 5)
            let length = try #require(cut.header("Content-Length").flatMap { Int($0) })
            #expect(length > 5)
            let whole = try await served.send("GET", "/v1/datasync/subkeys/demo/users")
            #expect(whole.body.count == length)
        }
    }

    @Test("delay and blackhole wait on the emulator clock")
    func delayAndBlackhole() async throws {
        try await withServed { served in
            let emulator = served.emulator
            /// Installs `fault` (lasting `seconds`), sends `target`, and returns the request once the
            /// fault holds it and the clock stands one second before the fault ends, still holding it.
            func heldOneSecondShort(
                _ fault: [String: JSONValue], seconds: Int64, _ target: String
            ) async throws -> Task<HTTPReply, any Error> {
                var fault = fault
                fault["seconds"] = .int(seconds)
                _ = try await served.send("POST", "/_emulator/v1/faults", json: .object(fault))
                let request = Task { try await served.send("GET", target) }
                #expect(await eventually { emulator.faultHeldCount >= 1 })
                emulator.clock.advance(by: .seconds(seconds - 1))
                #expect(emulator.faultHeldCount == 1)
                return request
            }
            let delayed = try await heldOneSecondShort(["kind": "delay", "family": "time"], seconds: 30, "/time/0")
            emulator.clock.advance(by: .seconds(1))
            #expect(try await delayed.value.status == 200)

            let held = try await heldOneSecondShort(
                ["kind": "blackhole", "family": "datasync"], seconds: 120, "/v1/datasync/subkeys/demo/users")
            emulator.clock.advance(by: .seconds(1))
            await #expect(throws: RawSocketError.self) { try await held.value }
            #expect(emulator.faultHeldCount == 0)
        }
    }

    @Test("probabilistic faults follow the seed")
    func probability() async throws {
        func firings(_ served: Served) async throws -> [Bool] {
            served.emulator.seedFaults(42)
            _ = try await served.send("DELETE", "/_emulator/v1/faults")
            let added = try await served.send(
                "POST", "/_emulator/v1/faults",
                json: ["kind": "status", "status": 500, "family": "time", "probability": 0.5])
            #expect(added.json?["remaining"] == .null)
            var fired: [Bool] = []
            for _ in 0..<40 { fired.append(try await served.send("GET", "/time/0").status == 500) }
            return fired
        }
        try await withServed { served in
            let first = try await firings(served)
            #expect(first.contains(true) && first.contains(false))
            #expect(try await firings(served) == first)
            let listed = try await served.send("GET", "/_emulator/v1/faults")
            #expect(listed.json?["faults"]?[0]?["fired"]?.intValue == first.filter { $0 }.count)
        }
    }

    @Test("faults are removed one by one or all at once")
    func removal() async throws {
        try await withServed { served in
            for _ in 0..<3 {
                _ = try await served.send("POST", "/_emulator/v1/faults", json: ["kind": "reset", "family": "time"])
            }
            let removed = try await served.send("DELETE", "/_emulator/v1/faults/f2")
            #expect(removed.json == ["removed": "f2"])
            #expect(try await served.send("DELETE", "/_emulator/v1/faults/f2").status == 404)
            let ids = try await served.send("GET", "/_emulator/v1/faults").json?["faults"]?.arrayValue?.map {
                $0["id"]?.stringValue
            }
            #expect(ids == ["f1", "f3"])
            #expect(try await served.send("DELETE", "/_emulator/v1/faults").json == ["cleared": 2])
            #expect(try await served.send("GET", "/time/0").status == 200)
            #expect(try await served.send("PUT", "/_emulator/v1/faults").status == 405)
        }
    }

    @Test("bad fault descriptions get a 400 naming the field")
    func validation() async throws {
        let cases: [(JSONValue, String)] = [
            ([:], "kind"),
            (["kind": "explode"], "kind"),
            (["kind": "status"], "status"),
            (["kind": "status", "status": 700], "status"),
            (["kind": "status", "status": 500, "seconds": 1], "seconds"),
            (["kind": "delay"], "seconds"),
            (["kind": "blackhole", "seconds": -1], "seconds"),
            (["kind": "truncate", "bytes": -3], "bytes"),
            (["kind": "status", "status": 429, "retryAfter": -1], "retryAfter"),
            (["kind": "status", "status": 429, "retryAfter": "soon"], "retryAfter"),
            (["kind": "reset", "retryAfter": 2], "retryAfter"),
            (["kind": "malformed", "body": ["t": 1]], "body"),
            (["kind": "malformed", "status": 500], "status"),
            (["kind": "reset", "family": "nope"], "family"),
            (["kind": "reset", "count": 0], "count"),
            (["kind": "reset", "probability": 1.5], "probability"),
            (["kind": "reset", "pathPrefix": "time"], "pathPrefix"),
            (["kind": "reset", "pathPrefix": "/_emulator/v1"], "pathPrefix"),
            (["kind": "reset", "method": "G T"], "method"),
            (["kind": "reset", "channel": 3], "channel"),
            (["kind": "reset", "colour": "red"], "colour"),
            ([1, 2], "body"),
        ]
        try await withServed { served in
            for (json, field) in cases {
                let reply = try await served.send("POST", "/_emulator/v1/faults", json: json)
                #expect(reply.status == 400, "\(json)")
                #expect(reply.errorMessage?.hasPrefix(field + ":") == true, "\(json): \(reply.text)")
            }
            let notJSON = try await http(served.port, "POST", "/_emulator/v1/faults", body: Array("{".utf8))
            #expect(notJSON.status == 400)
            #expect(notJSON.errorMessage?.hasPrefix("body:") == true)
            #expect(try await served.send("GET", "/_emulator/v1/faults").json == ["faults": []])
        }
    }

    @Test("the faults routes need the admin secret when one is configured")
    func adminAccess() async throws {
        var configuration = EmulatorConfiguration(startTime: adminStart)
        configuration.admin = AdminConfiguration(secret: "s3cret-s3cret-s3cret")
        try await withServed(configuration) { served in
            let refused = try await served.send("POST", "/_emulator/v1/faults", json: ["kind": "reset"])
            #expect(refused.status == 401)
            let allowed = try await served.send(
                "POST", "/_emulator/v1/faults", json: ["kind": "status", "status": 500, "family": "time"],
                headers: [(name: "Authorization", value: "Bearer s3cret-s3cret-s3cret")])
            #expect(allowed.status == 201)
            let foreign = try await served.send(
                "DELETE", "/_emulator/v1/faults",
                headers: [
                    (name: "Authorization", value: "Bearer s3cret-s3cret-s3cret"),
                    (name: "Origin", value: "http://evil.example"),
                ])
            #expect(foreign.status == 403)
            #expect(try await served.send("GET", "/time/0").status == 500)
        }
    }

    @Test("in process: addFault and clearFaults share the registry with the admin routes")
    func inProcess() async throws {
        try await withServed { served in
            let entry = served.emulator.addFault(FaultRule(.status(429, body: nil), family: .time, count: 2))
            let listed = try await served.send("GET", "/_emulator/v1/faults")
            #expect(listed.json?["faults"]?[0]?["id"] == .string(entry.id))
            #expect(try await served.send("GET", "/time/0").status == 429)
            #expect(served.emulator.faultEntries.first?.remaining == 1)
            served.emulator.clearFaults()
            #expect(try await served.send("GET", "/time/0").status == 200)
            #expect(served.emulator.removeFault(id: entry.id) == false)
        }
    }
}
