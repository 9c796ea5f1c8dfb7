import EmulatorHTTP
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

/// The router's two ways to answer (`respondImmediately(to:)` on the server's thread, `handle(_:)`
/// in a task) kept equal by running one request sequence through both: one emulator answers each
/// request at once when it can (falling back to the task path, as the HTTP server does), a twin
/// with the same seed and the same manual clock always takes the task path, and every answer must
/// be the same bytes. The sequence covers the services and the authorizer: reads and misses,
/// malformed paths, unclaimed paths, writes (never answered at once) and Access Manager refusals.
@Suite("Router: the immediate path answers as the task path does", .timeLimit(.minutes(1)))
struct ImmediatePathDifferentialTests {
    private static let seed: JSONValue = [
        "keysets": [
            "demo": [
                "users": [["id": "u1", "status": "active", "payload": ["name": "One"]]],
                "channels": [["id": "c1", "payload": ["topic": "news"]]],
            ],
            "sub-c": [
                "users": [["id": "u1", "status": "active", "payload": ["name": "Guarded"]]]
            ],
        ]
    ]

    /// A start time and no clock: a manual clock, so both twins stamp writes alike.
    private static func emulator() async throws -> Emulator {
        let configuration = EmulatorConfiguration(
            seed: seed, startTime: startInstant,
            pubSub: PubSubConfiguration(keysets: [
                PubSubKeyset(publishKey: "pub-demo", subscribeKey: "demo", secretKey: "sec-demo"),
                .protected(publishKey: "pub-c", subscribeKey: "sub-c", secretKey: "sec-c"),
            ]))
        let emulator = try Emulator(configuration: configuration)
        await emulator.waitForDataSyncEvents()
        return emulator
    }

    private static func request(_ method: String, _ target: String, body: JSONValue? = nil) -> ServerRequest {
        var headers: [(name: String, value: String)] = [(name: "Host", value: "localhost")]
        if body != nil { headers.append((name: "Content-Type", value: "application/json")) }
        return ServerRequest(
            method: method, target: target, headers: headers, body: body.map { Array($0.description.utf8) } ?? [])
    }

    private static let users = "/v1/datasync/subkeys/demo/users"

    /// In order: each write changes what the reads after it see, on both emulators alike.
    private static let sequence: [ServerRequest] = [
        request("GET", "\(users)/u1"),
        request("GET", "\(users)/u1?include=x"),
        request("GET", "\(users)/u1"),
        request("GET", "\(users)/nobody"),
        request("GET", "\(users)/u%ZZ"),
        request("GET", "/v1/datasync/subkeys/demo/channels/c1"),
        request("GET", "/v1/datasync/subkeys/unknown-keyset/users/u1"),
        request("GET", "/nowhere/at/all"),
        request("HEAD", "\(users)/u1"),
        request("GET", users),
        request("GET", "/time/0"),
        request("POST", users, body: ["data": ["id": "u2", "payload": ["name": "Two"]]]),
        request("GET", "\(users)/u2"),
        request("PATCH", "\(users)/u2", body: [["op": "replace", "path": "/payload/name", "value": "Deux"]]),
        request("GET", "\(users)/u2"),
        request("DELETE", "\(users)/u2"),
        request("GET", "\(users)/u2"),
        // Access Manager on sub-c: no token, a token that does not parse, a bad signature.
        request("GET", "/v1/datasync/subkeys/sub-c/users/u1"),
        request("GET", "/v1/datasync/subkeys/sub-c/users/u1?auth=not-a-token"),
        request("GET", "/v1/datasync/subkeys/sub-c/users/u1?signature=v2.bad&timestamp=1"),
        request("GET", "/publish/pub-c/sub-c/0/ch/0/%22hi%22"),
    ]

    @Test("one request sequence, answered at once where possible and in a task on a twin, gives the same bytes")
    func sameAnswersOnBothPaths() async throws {
        let immediateSide = try await Self.emulator()
        let taskSide = try await Self.emulator()
        var answeredAtOnce: [String] = []
        for request in Self.sequence {
            let immediate = immediateSide.router.respondImmediately(to: request)
            if immediate != nil { answeredAtOnce.append("\(request.method) \(request.target)") }
            let first = if let immediate { immediate } else { await immediateSide.router.handle(request) }
            let second = await taskSide.router.handle(request)
            let label = "\(request.method) \(request.target)"
            #expect(first.status == second.status, "\(label)")
            #expect(first.headers.map(\.name) == second.headers.map(\.name), "\(label)")
            #expect(first.headers.map(\.value) == second.headers.map(\.value), "\(label)")
            #expect(first.body == second.body, "\(label)")
            #expect(first.framing == second.framing, "\(label)")
            // Both emulators see each write's events on their bus before the next request, so the
            // reads after it may be answered at once again.
            await immediateSide.waitForDataSyncEvents()
            await taskSide.waitForDataSyncEvents()
        }
        // The comparison means something only if the immediate path answered a fair share.
        #expect(answeredAtOnce.count >= 8, "answered at once: \(answeredAtOnce)")
    }
}
