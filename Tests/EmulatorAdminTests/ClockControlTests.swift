import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Testing
import Transport

/// Clock control under `/_emulator/v1/clock`, over real HTTP: reading it, and moving it so TTLs,
/// presence heartbeats and tokens expire without waiting.
@Suite("Clock control over HTTP")
struct ClockControlTests {
    @Test("reading the clock: the instant, its timetoken and whether it stands still")
    func read() async throws {
        try await withServed { served in
            let reply = try await served.send("GET", "/_emulator/v1/clock")
            #expect(reply.status == 200)
            #expect(
                reply.json
                    == [
                        "now": "2026-09-07T07:34:55.000000Z", "unixMicros": 1_788_766_495_000_000,
                        "timetoken": "17887664950000000", "stopped": true,
                    ])
        }
        try await withServed(EmulatorConfiguration()) { served in
            let reply = try await served.send("GET", "/_emulator/v1/clock")
            #expect(reply.json?["stopped"] == false)
            let micros = try #require(reply.json?["unixMicros"]?.int64Value)
            #expect(abs(Double(micros) / 1e6 - Date().timeIntervalSince1970) < 60)
        }
    }

    @Test("advancing by seconds, minutes, hours or days, in the query or the body")
    func advanceForms() async throws {
        try await withServed { served in
            var expected = adminStart
            for (target, json, step) in [
                ("/_emulator/v1/clock/advance?seconds=1.5", nil, 1.5),
                ("/_emulator/v1/clock/advance?minutes=2", nil, 120),
                ("/_emulator/v1/clock/advance", ["hours": 1] as JSONValue?, 3_600),
                ("/_emulator/v1/clock/advance", ["days": 1] as JSONValue?, 86_400),
                ("/_emulator/v1/clock/advance?seconds=-60", nil, -60),
            ] {
                let reply = try await served.send(
                    "POST", target, json: json, contentType: json == nil ? nil : "application/json")
                #expect(reply.status == 200, "\(target): \(reply.text)")
                expected += step
                #expect(await served.emulator.currentTime == expected)
                #expect(
                    reply.json?["unixMicros"]?.int64Value == Int64((expected.timeIntervalSince1970 * 1e6).rounded()))
            }
            for bad in ["", "?seconds=soon", "?seconds=1&days=1", "?weeks=1"] {
                let reply = try await served.send("POST", "/_emulator/v1/clock/advance" + bad)
                #expect(reply.status == 400, "\(bad)")
            }
            #expect(await served.emulator.currentTime == expected)
        }
    }

    @Test("setting the clock stops it at an instant")
    func set() async throws {
        try await withServed(EmulatorConfiguration()) { served in
            let reply = try await served.send("POST", "/_emulator/v1/clock/set?time=2030-01-01T00:00:00Z")
            #expect(reply.status == 200)
            #expect(reply.json?["now"] == "2030-01-01T00:00:00.000000Z")
            #expect(reply.json?["stopped"] == true)
            let body = try await served.send(
                "POST", "/_emulator/v1/clock/set", json: ["time": "2031-02-03T04:05:06.5Z"],
                contentType: "application/json")
            #expect(body.json?["now"] == "2031-02-03T04:05:06.500000Z")
            #expect(try await served.send("POST", "/_emulator/v1/clock/set?time=tomorrow").status == 400)
        }
    }

    @Test("the clock route refuses instants where presence and TTL arithmetic would saturate")
    func setOutOfRange() async throws {
        try await withServed(EmulatorConfiguration()) { served in
            for time in ["3000-01-01T00:00:00Z", "2262-04-11T23:47:16Z", "1969-12-31T23:59:59Z"] {
                let reply = try await served.send("POST", "/_emulator/v1/clock/set?time=\(time)")
                #expect(reply.status == 400, "\(time)")
                #expect(reply.text.contains("2200-01-01"), "\(reply.text)")
            }
            #expect(try await served.send("POST", "/_emulator/v1/clock/advance?days=100000").status == 400)
            #expect(try await served.send("POST", "/_emulator/v1/clock/advance?days=-100000").status == 400)
            let last = try await served.send("POST", "/_emulator/v1/clock/set?time=2200-01-01T00:00:00Z")
            #expect(last.status == 200)
            #expect(try await served.send("POST", "/_emulator/v1/clock/advance?seconds=1").status == 400)
            // A heartbeat at the latest settable instant still times out when it should, not at once.
            let beat = try await served.send("GET", "/v2/presence/sub-key/demo/channel/x/heartbeat?uuid=a&heartbeat=60")
            #expect(beat.status == 200)
            let here = try await served.send("GET", "/v2/presence/sub-key/demo/channel/x?uuid=b")
            #expect(here.json?["occupancy"] == 1, "\(here.text)")
        }
    }

    @Test("advancing past a TTL removes the object at once, over HTTP and in process")
    func ttl() async throws {
        try await withServed { served in
            try await served.create("users", ["id": "old", "entityClassVersion": 1])
            let created = try await served.send("GET", "/v1/datasync/subkeys/demo/users/old")
            #expect(created.json?["data"]?["expiresAt"] == "2026-10-08T00:00:00Z")
            _ = try await served.send("POST", "/_emulator/v1/clock/advance?days=30")
            #expect(try await served.send("GET", "/v1/datasync/subkeys/demo/users/old").status == 200)
            let before = await served.emulator.lastSequence
            _ = try await served.send("POST", "/_emulator/v1/clock/advance?days=1")
            // Swept by the move itself: the delete is on the feed before any request reads it.
            let changes = await served.emulator.changes(after: before)
            #expect(changes.map(\.cause) == [.expiry])
            #expect(try await served.send("GET", "/v1/datasync/subkeys/demo/users/old").status == 404)
            // The same through the in-process API.
            try await served.create("users", ["id": "young", "entityClassVersion": 1])
            await served.emulator.advanceTime(days: 40)
            #expect(try await served.send("GET", "/v1/datasync/subkeys/demo/users/young").status == 404)
        }
    }

    @Test("advancing past a heartbeat times the presence out at once, with its timeout event")
    func presenceTimeout() async throws {
        try await withServed { served in
            _ = try await served.send("GET", "/v2/presence/sub-key/demo/channel/room/heartbeat?uuid=ann&heartbeat=60")
            let here = try await served.send("GET", "/v2/presence/sub-key/demo/channel/room")
            #expect(here.json?["occupancy"] == 1)
            let presence = try await served.send("GET", "/_emulator/v1/keysets/demo/presence")
            #expect(presence.json?["channels"]?[0]?["occupants"]?[0]?["uuid"] == "ann")
            _ = try await served.send("POST", "/_emulator/v1/clock/advance?seconds=61")
            // Already timed out on the bus: the console's view and the event log show it.
            let after = try await served.send("GET", "/_emulator/v1/keysets/demo/presence")
            #expect(after.json?["channels"] == [])
            let events = try await served.send("GET", "/_emulator/v1/events?keyset=demo")
            let actions = events.json?["messages"]?.arrayValue?.compactMap { $0["payload"]?["action"]?.stringValue }
            #expect(actions == ["join", "timeout"])
            #expect(try await served.send("GET", "/v2/presence/sub-key/demo/channel/room").json?["occupancy"] == 0)
        }
    }

    @Test("advancing past a token's TTL makes the next request with it 'Token is expired.'")
    func tokenExpiry() async throws {
        try await withServed(protectedAdminConfiguration) { served in
            let clock = served.emulator.clock
            let server = AccessManagerTestServer(
                client: try CurlHTTPClient(), host: "127.0.0.1", port: Int(served.port), publishKey: "pub",
                subscribeKey: "sub", secretKey: "sec", now: { clock.now.date })
            let token = try await server.grantToken(ttlMinutes: 10, resources: ["channels": ["room": 2]])
            let publish = "/publish/pub/sub/0/room/0/%22hi%22?auth=" + token
            #expect(try await served.send("GET", publish).status == 200)
            let admin = [(name: "Authorization", value: "Bearer \(served.emulator.adminSecret)")]
            _ = try await served.send("POST", "/_emulator/v1/clock/advance?minutes=10", headers: admin)
            let expired = try await served.send("GET", publish)
            #expect(expired.status == 403)
            #expect(expired.json?["message"] == "Token is expired.")
        }
    }
}
