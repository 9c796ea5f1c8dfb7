import DataSyncEmulator
import JSONCore
import Testing

@Suite struct FilterAndFaultTests {
    @Test(arguments: [
        ("uuid == 'alice'", ["alice-1"]),
        ("meta.level > 3", ["bob-5"]),
        ("meta.level >= 1 && !(uuid == 'bob')", ["alice-1"]),
        ("meta.tags CONTAINS 'x' || meta.name LIKE 'car*'", ["alice-1", "carol"]),
        ("meta.name like '*OL'", ["carol"]),
        ("meta.missing != 'q'", ["alice-1", "bob-5", "carol"]),
    ])
    func filterExpressionsSelectMessagesByPublisherAndMeta(expression: String, expected: [String]) async throws {
        let client = try PubSubClient()
        let filter = "filter-expr=\(PubSubClient.encode(expression))"
        let cursor = try await client.handshake("room", query: filter)
        let metaA = PubSubClient.encode(#"{"level":1,"tags":["x","y"]}"#)
        let metaB = PubSubClient.encode(#"{"level":"5"}"#)
        let metaC = PubSubClient.encode(#"{"name":"Carol"}"#)
        _ = try await client.publish("room", "alice-1", query: "uuid=alice&meta=\(metaA)")
        _ = try await client.publish("room", "bob-5", query: "uuid=bob&meta=\(metaB)")
        _ = try await client.publish("room", "carol", query: "uuid=carol&meta=\(metaC)")
        let reply = await client.subscribe("room", tt: cursor, query: filter)
        #expect(reply.payloads.compactMap(\.stringValue) == expected)
    }

    @Test(arguments: ["uuid ==", "(meta.a == 1", "meta. == 1", "uuid == 'x", "a == 1", "uuid = 'x'"])
    func malformedFiltersAnswer481(expression: String) async throws {
        let client = try PubSubClient()
        let reply = await client.subscribe("room", tt: 0, query: "filter-expr=\(PubSubClient.encode(expression))")
        #expect(reply.status == 481)
        #expect(reply.json?["error"] == true)
    }

    @Test func faultsFirePerRouteAndPerCount() async throws {
        let client = try PubSubClient()
        client.emulator.injectFault(.status(503), on: .subscribe, count: 2)
        client.emulator.injectFault(.tooManyRequests(retryAfterSeconds: 7), on: .publish)
        #expect(await client.subscribe("room", tt: 0).status == 503)
        #expect((try await client.publish("room", 1)).status == 429)
        #expect(await client.subscribe("room", tt: 0).status == 503)
        #expect(await client.subscribe("room", tt: 0).status == 200)
        #expect((try await client.publish("room", 1)).status == 200)
    }

    @Test func faultKindsShapeTheAnswer() async throws {
        let client = try PubSubClient()
        client.emulator.injectFault(.tooManyRequests(retryAfterSeconds: 7), on: .time)
        let limited = await client.send("/time/0")
        #expect(limited.header("Retry-After") == "7")
        #expect(limited.json?["status"] == 429)
        client.emulator.injectFault(.forbidden, on: .presence)
        #expect(await client.send("/v2/presence/sub-key/demo/uuid/x").json?["service"] == "Access Manager")
        client.emulator.injectFault(.truncatedJSON, on: .time)
        let truncated = await client.send("/time/0")
        #expect(truncated.status == 200 && truncated.json == nil)
        client.emulator.injectFault(.malformedJSON, on: .any)
        #expect(await client.send("/time/0").json == nil)
        client.emulator.injectFault(.resetBeforeBody, on: .signal)
        let response = await client.emulator.respond(
            to: ServerRequest(method: "GET", target: "/signal/demo/demo/0/a/0/1"))
        #expect(response.fault == .dropConnection)
        client.emulator.injectFault(.delay(.seconds(5)), on: .time)
        let delayed = Task { await client.send("/time/0") }
        await client.clock.waitForSleepers(1)
        client.clock.advance(by: .seconds(5))
        #expect(await delayed.value.status == 200)
        client.emulator.injectFault(.status(500), on: .time, count: 5)
        client.emulator.clearFaults()
        #expect(await client.send("/time/0").status == 200)
    }
}
