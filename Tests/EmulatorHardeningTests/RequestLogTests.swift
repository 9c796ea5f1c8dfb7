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

/// Issue 18, points 1 and 2: the request log never blocks or kills the server, and never holds
/// a secret. The executable is run as a child process with its standard output on a pipe.
@Suite("Request log", .serialized)
struct RequestLogTests {
    @Test("a reader that closes the output after the banner neither kills nor stalls the emulator")
    func closedOutput() async throws {
        let emulator = try await EmulatorProcess.start()
        emulator.closeOutput()
        let port = emulator.port
        try await onThread {
            let connection = try RawSocket(port: port, timeout: 10)
            for index in 0..<200 {
                let response = try connection.request("GET", "/time/0?n=\(index)")
                guard response.status == 200 else { throw TestFailure("request \(index) answered \(response.status)") }
            }
            // New connections too.
            for index in 0..<20 {
                let fresh = try RawSocket(port: port, timeout: 10)
                let response = try fresh.request("GET", "/time/0", headers: [("Connection", "close")])
                guard response.status == 200 else {
                    throw TestFailure("connection \(index) answered \(response.status)")
                }
            }
        }
        #expect(emulator.isRunning)
        #expect(try await emulator.stopped() == .exited(0))
    }

    @Test("an output nobody reads never stalls the emulator: 2,500 requests are all answered promptly")
    func undrainedOutput() async throws {
        let emulator = try await EmulatorProcess.start()
        let port = emulator.port
        // Long targets make long log lines: the pipe (64 KiB) is full after a few hundred.
        let padding = String(repeating: "p", count: 300)
        let slowest = try await onThread { () throws -> Double in
            let connection = try RawSocket(port: port, timeout: 15)
            var slowest = 0.0
            for index in 0..<2_500 {
                let started = Date()
                let response = try connection.request("GET", "/time/0?n=\(index)&padding=\(padding)")
                guard response.status == 200 else { throw TestFailure("request \(index) answered \(response.status)") }
                slowest = max(slowest, Date().timeIntervalSince(started))
            }
            let fresh = try RawSocket(port: port, timeout: 15)
            guard try fresh.request("GET", "/time/0").status == 200 else {
                throw TestFailure("a new connection failed")
            }
            return slowest
        }
        #expect(slowest < 5, "the slowest request took \(slowest) s")
        #expect(emulator.isRunning)
        // It still stops on SIGTERM (its last lines cannot be written; it waits for them briefly).
        #expect(try await emulator.stopped(grace: 15) == .exited(0))
    }

    @Test("clients resetting connections mid-response do not kill the emulator (no SIGPIPE on sockets)")
    func resetMidResponse() async throws {
        let emulator = try await EmulatorProcess.start()
        emulator.closeOutput()
        let port = emulator.port
        try await onThread {
            let setup = try RawSocket(port: port, timeout: 10)
            let payload = String(repeating: "z", count: 60_000)
            for index in 0..<20 {
                let body = try dataBody([
                    "id": .string("big\(index)"), "entityClassVersion": 1, "payload": ["blob": .string(payload)],
                ])
                let created = try setup.request(
                    "POST", dataSyncPath("users"), headers: [("Content-Type", userMediaType)], body: body)
                guard created.status == 201 else { throw TestFailure("create answered \(created.status)") }
            }
            for _ in 0..<30 {
                // Ask for a 1.2 MB page, then reset the connection without reading it.
                let client = try RawSocket(port: port, timeout: 10)
                try client.send("GET \(dataSyncPath("users?limit=100")) HTTP/1.1\r\nHost: localhost\r\n\r\n")
                var option = linger(l_onoff: 1, l_linger: 0)
                setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
                client.close()
            }
            guard try setup.request("GET", "/time/0").status == 200 else {
                throw TestFailure("not answered after resets")
            }
        }
        #expect(emulator.isRunning)
        try await emulator.stopped()
    }

    @Test("no log line holds an auth token, a signature or a revoked token; they read REDACTED")
    func secretsAreRedacted() async throws {
        let lines = Locked<[String]>([])
        let emulator = try Emulator()
        let url = try await emulator.start(requestLog: { line in lines.withLock { $0.append(line) } })
        defer { Task { await emulator.stop() } }
        let port = try #require(url.port.map(UInt16.init))
        let targets = [
            "/time/0?auth=SECRET-ONE&uuid=me",
            "/time/0?uuid=me&signature=v2.SECRET-TWO&timestamp=1",
            "/time/0?%61uth=SECRET-THREE",
            "/time/0?AUTH=SECRET-FOUR&Signature=SECRET-FIVE",
            dataSyncPath("users?auth=SECRET-SIX"),
        ]
        try await onThread {
            let connection = try RawSocket(port: port)
            for target in targets { _ = try connection.request("GET", target) }
            _ = try connection.request("DELETE", "/v3/pam/demo/grant/SECRET-SEVEN-TOKEN?uuid=me")
        }
        await emulator.stop()
        let logged = lines.withLock { $0 }
        #expect(logged.count == targets.count + 1)
        for line in logged {
            #expect(!line.contains("SECRET"), "leaked: \(line)")
        }
        #expect(logged.first?.hasPrefix("GET /time/0?auth=REDACTED&uuid=me -> 200") == true)
        #expect(logged.contains { $0.hasPrefix("DELETE /v3/pam/demo/grant/REDACTED?uuid=me -> ") })
        #expect(logged.contains { $0.contains("signature=REDACTED&timestamp=1") })
    }

    // A writer that blocked on the full pipe would never return from the 20,000 writes: the time
    // limit turns that hang into a failure, and the dropped-line count shows the lines were shed.
    @Test(
        "the line writer drops and counts lines instead of blocking, and reports the gap", .timeLimit(.minutes(1)))
    func lineWriterDropsWhenFull() async throws {
        let observed = try await onThread { () throws -> (Int, Bool, String) in
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw TestFailure("pipe() failed") }
            defer {
                close(ends[0])
                close(ends[1])
            }
            // Fill the pipe first, so the writer's first write blocks whatever the timing: then
            // nothing drains the buffer and the flush below must give up.
            let flags = fcntl(ends[1], F_GETFL)
            _ = fcntl(ends[1], F_SETFL, flags | O_NONBLOCK)
            let filler = [UInt8](repeating: UInt8(ascii: "\n"), count: 4096)
            while write(ends[1], filler, filler.count) > 0 {}
            while write(ends[1], filler, 1) > 0 {}
            _ = fcntl(ends[1], F_SETFL, flags)
            let writer = LineWriter(fileDescriptor: ends[1], capacityBytes: 4096)
            for index in 0..<20_000 { writer.write("line \(index) " + String(repeating: "x", count: 40)) }
            let dropped = writer.statistics.droppedLines
            let flushed = writer.flush(timeout: .milliseconds(100))
            // Drain the pipe until the writer has written all it held (it says how many lines
            // went missing first); only then is there room for one more line.
            _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
            var text = [UInt8]()
            let deadline = Date().addingTimeInterval(30)
            var chunk = [UInt8](repeating: 0, count: 65_536)
            func drain() {
                while true {
                    let count = read(ends[0], &chunk, chunk.count)
                    guard count > 0 else { return }
                    text += chunk[0..<count]
                }
            }
            repeat { drain() } while !writer.flush(timeout: .milliseconds(5)) && Date() < deadline
            writer.write("after")
            while !String(decoding: text, as: UTF8.self).contains("after\n") && Date() < deadline {
                drain()
                usleep(1000)
            }
            return (dropped, flushed, String(decoding: text, as: UTF8.self))
        }
        #expect(observed.0 > 10_000)
        #expect(!observed.1)
        #expect(observed.2.contains("lines dropped (the output was not being read)"))
        #expect(observed.2.hasSuffix("after\n"))
    }

    @Test("the line writer writes every line whole and in order, and cuts an over-long one with an ellipsis")
    func lineWriterKeepsLinesInOrder() async throws {
        let observed = try await onThread { () throws -> (Bool, LineWriter.Statistics, String) in
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("linewriter-\(UUID()).log").path
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0 else { throw TestFailure("open() failed") }
            defer {
                close(fd)
                unlink(path)
            }
            let writer = LineWriter(fileDescriptor: fd)
            for index in 0..<3_000 { writer.write("line \(index) é") }
            writer.write(String(repeating: "y", count: LineWriter.maximumLineBytes + 10))
            writer.write("")
            writer.write("last")
            let flushed = writer.flush(timeout: .seconds(10))
            let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
            return (flushed, writer.statistics, text)
        }
        #expect(observed.0)
        #expect(observed.1.writtenLines == 3_003)
        #expect(observed.1.droppedLines == 0)
        let expected =
            (0..<3_000).map { "line \($0) é\n" }.joined()
            + String(repeating: "y", count: LineWriter.maximumLineBytes) + "…\n" + "\n" + "last\n"
        #expect(observed.2 == expected)
    }

    @Test("the line writer survives a closed pipe even where SIGPIPE is not ignored")
    func lineWriterClosedPipe() async throws {
        let observed = try await onThread { () throws -> (Bool, Int) in
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw TestFailure("pipe() failed") }
            defer { close(ends[1]) }
            close(ends[0])
            let writer = LineWriter(fileDescriptor: ends[1])
            writer.write("nobody reads this")
            _ = writer.flush(timeout: .seconds(5))
            let deadline = Date().addingTimeInterval(5)
            while !writer.statistics.outputClosed && Date() < deadline { usleep(1000) }
            writer.write("dropped")
            return (writer.statistics.outputClosed, writer.statistics.droppedLines)
        }
        #expect(observed.0)
        #expect(observed.1 >= 2)
    }
}
