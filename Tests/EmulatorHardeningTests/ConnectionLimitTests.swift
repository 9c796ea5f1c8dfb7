import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A server configuration with the defaults changed by `configure`.
private func limits(_ configure: (inout HTTPServer.Configuration) -> Void) -> HTTPServer.Configuration {
    var configuration = HTTPServer.Configuration()
    configure(&configuration)
    return configuration
}

/// Runs `body` against a started `HTTPServer` with `HTTPTestingHandler`, then stops it. When
/// `started` is given, it counts the requests that reached the handler.
private func withServer(
    _ configuration: HTTPServer.Configuration,
    started: Locked<Int>? = nil,
    _ body: (HTTPServer, UInt16) async throws -> Void
) async throws {
    let observer = started.map { counter in
        { @Sendable (event: HTTPTestingHandler.Event) in
            if case .started = event { counter.withLock { $0 += 1 } }
        }
    }
    let server = HTTPServer(configuration: configuration, handler: HTTPTestingHandler(observer: observer))
    try await server.start()
    try await runThenStop({ try await body(server, try #require(server.port)) }, stop: { await server.stop() })
}

/// Opens `count` connections that each send a `/hold` request, which the handler keeps until the
/// connection goes, and waits until `started` (the server's counter) shows them all in the handler.
private func holdRequests(
    _ count: Int, port: UInt16, started: Locked<Int>, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> [RawSocket] {
    let held = try await onThread {
        try (0..<count).map { _ in
            let connection = try RawSocket(port: port, timeout: 10)
            try connection.send("GET /hold HTTP/1.1\r\nHost: localhost\r\n\r\n")
            return connection
        }
    }
    #expect(await eventually { started.withLock { $0 } == count }, sourceLocation: sourceLocation)
    return held
}

/// Issue 18, point 3: over the connection limit a client is answered at once (idle connections
/// give way first), and the bytes buffered across connections are capped.
@Suite("Connection and memory limits", .serialized)
struct ConnectionLimitTests {
    @Test("with many idle connections open on a small limit, a new client is answered at once")
    func idleConnectionsGiveWay() async throws {
        // Idle connections time out only after two minutes: an answer within the read timeout
        // can only come from making room.
        let configuration = limits {
            $0.maximumConnections = 16
            $0.idleTimeout = .seconds(120)
        }
        try await withServer(configuration) { server, port in
            let idle = try await onThread { try (0..<100).map { _ in try RawSocket(port: port, timeout: 10) } }
            #expect(await eventually { server.statistics.connectionsAccepted == 100 })
            let text = try await onThread { () throws -> String in
                let client = try RawSocket(port: port, timeout: 30)
                return try client.request("GET", "/bytes/2").text
            }
            #expect(text == "ab")
            #expect(server.statistics.idleConnectionsEvicted >= 85)
            #expect(server.statistics.openConnections <= 16)
            // The oldest idle connection was closed; its client reads the end of the stream.
            let first = idle[0]
            #expect(try await onThread { try first.readsEndOfStream() })
            withExtendedLifetime(idle) {}
        }
    }

    @Test("over the limit with no idle connection: 503 with Retry-After at once, held requests untouched")
    func activeConnectionsAreNotEvicted() async throws {
        let started = Locked(0)
        try await withServer(limits { $0.maximumConnections = 4 }, started: started) { server, port in
            let held = try await holdRequests(4, port: port, started: started)
            let refusal = try await onThread { () throws -> (RawHTTPResponse, Double) in
                let begin = Date()
                let client = try RawSocket(port: port, timeout: 30)
                let response = try client.request("GET", "/bytes/1")
                return (response, Date().timeIntervalSince(begin))
            }
            #expect(refusal.0.status == 503)
            #expect(refusal.0.header("Retry-After") == "1")
            #expect(refusal.0.text.contains("too many connections"))
            #expect(refusal.1 < 5)
            #expect(server.statistics.connectionsRefused == 1)
            #expect(server.statistics.handlersCancelled == 0)
            withExtendedLifetime(held) {}
        }
    }

    @Test("at the limit an idle connection is closed before any active one")
    func idleBeforeActive() async throws {
        let started = Locked(0)
        try await withServer(limits { $0.maximumConnections = 4 }, started: started) { server, port in
            let held = try await holdRequests(3, port: port, started: started)
            let idle = try await onThread { () throws -> RawSocket in
                let connection = try RawSocket(port: port, timeout: 10)
                guard try connection.request("GET", "/bytes/3").text == "abc" else { throw TestFailure("not served") }
                return connection
            }
            let text = try await onThread { () throws -> String in
                let client = try RawSocket(port: port, timeout: 30)
                return try client.request("GET", "/bytes/2", headers: [("Connection", "close")]).text
            }
            #expect(text == "ab")
            #expect(try await onThread { try idle.readsEndOfStream() })
            #expect(server.statistics.idleConnectionsEvicted == 1)
            #expect(server.statistics.handlersCancelled == 0)
            #expect(server.statistics.connectionsRefused == 0)
            withExtendedLifetime(held) {}
        }
    }

    @Test("a declared body that does not fit the buffer budget is refused with 503 before it is sent")
    func bufferBudgetRefusesDeclaredBodies() async throws {
        let configuration = limits { $0.maximumBufferedRequestBytes = 1 << 20 }
        try await withServer(configuration) { server, port in
            let first = try await onThread { () throws -> RawSocket in
                let connection = try RawSocket(port: port, timeout: 10)
                try connection.send(
                    "POST /echo?omitBody=1 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 900000\r\n\r\n")
                try connection.send([UInt8](repeating: 65, count: 700_000))
                return connection
            }
            // The first upload's head has been read and its declared body reserved: 900,000 of
            // the 1 MiB budget, so the next declared body cannot fit.
            #expect(await eventually { server.statistics.bufferedRequestBytes >= 900_000 })
            let refusal = try await onThread { () throws -> RawHTTPResponse in
                let client = try RawSocket(port: port, timeout: 30)
                // Only the head: the answer must come before any body byte.
                try client.send("POST /echo?omitBody=1 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 300000\r\n\r\n")
                return try client.response()
            }
            #expect(refusal.status == 503)
            #expect(refusal.header("Retry-After") == "1")
            #expect(refusal.text.contains("buffering too many request bytes"))
            #expect(server.statistics.requestsRefusedForBufferLimit == 1)
            // The first upload is unaffected and completes.
            let answer = try await onThread { () throws -> RawHTTPResponse in
                try first.send([UInt8](repeating: 65, count: 200_000))
                return try first.response()
            }
            #expect(answer.status == 200)
            // Once it is done, the budget is free again.
            let later = try await onThread { () throws -> Int in
                let client = try RawSocket(port: port, timeout: 30)
                return try client.request("POST", "/echo?omitBody=1", body: [UInt8](repeating: 66, count: 300_000))
                    .status
            }
            #expect(later == 200)
            #expect(await eventually { server.statistics.bufferedRequestBytes == 0 }, "nothing is left reserved")
        }
    }

    @Test("a chunked body growing past the buffer budget is refused with 503")
    func bufferBudgetRefusesGrowingBodies() async throws {
        let configuration = limits { $0.maximumBufferedRequestBytes = 256 * 1024 }
        try await withServer(configuration) { server, port in
            let response = try await onThread { () throws -> RawHTTPResponse in
                let client = try RawSocket(port: port, timeout: 30)
                try client.send(
                    "POST /echo?omitBody=1 HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
                let chunk = Array("8000\r\n".utf8) + [UInt8](repeating: 67, count: 0x8000) + [13, 10]
                do {
                    for _ in 0..<16 { try client.send(chunk) }
                    try client.send("0\r\n\r\n")
                } catch {
                    // The server may close while the rest is still being sent.
                }
                return try client.response()
            }
            #expect(response.status == 503)
            #expect(server.statistics.requestsRefusedForBufferLimit == 1)
        }
    }

    @Test("the emulator's limits come from its configuration: many idle clients, requests still answered")
    func emulatorLimits() async throws {
        var configuration = EmulatorConfiguration()
        configuration.serverLimits = EmulatorServerLimits(maximumConnections: 8, maximumBufferedRequestBytes: 1 << 20)
        let emulator = try Emulator(configuration: configuration)
        let port = try #require(try await emulator.start().port.map(UInt16.init))
        let statuses = try await onThread { () throws -> [Int] in
            let idle = try (0..<40).map { _ in try RawSocket(port: port, timeout: 10) }
            var statuses: [Int] = []
            for _ in 0..<8 {
                let client = try RawSocket(port: port, timeout: 30)
                statuses.append(try client.request("GET", "/time/0").status)
            }
            let big = try RawSocket(port: port, timeout: 30)
            try big.send("POST \(dataSyncPath("users")) HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2000000\r\n\r\n")
            statuses.append(try big.response().status)
            withExtendedLifetime(idle) {}
            return statuses
        }
        await emulator.stop()
        #expect(statuses == Array(repeating: 200, count: 8) + [503])
    }
}
