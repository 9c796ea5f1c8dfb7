import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends one request over a real loopback socket with `Connection: close` and reads the whole
/// response, on a thread of its own so no cooperative thread blocks.
func exchange(port: UInt16, _ request: String) async throws -> (status: Int, body: String) {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try blockingExchange(port: port, request) })
        }
        thread.start()
    }
}

struct SocketError: Error { var message: String }

private func blockingExchange(port: UInt16, _ request: String) throws -> (status: Int, body: String) {
    #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw SocketError(message: "socket failed") }
    defer { close(fd) }
    // Generous on purpose: what these tests check is the answer, not its speed. In a full test
    // run the emulator's handler tasks share two cooperative threads with hundreds of other tests,
    // and on a loaded machine an answer has been seen to take longer than 20 s.
    var timeout = timeval(tv_sec: 180, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { throw SocketError(message: "connect failed") }
    let bytes = Array(request.utf8)
    var sent = 0
    while sent < bytes.count {
        let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw SocketError(message: "send failed") }
        sent += count
    }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        // A signal (a child process of another test ending) interrupts a recv with a timeout set.
        if count < 0, errno == EINTR { continue }
        if count < 0 { throw SocketError(message: "recv failed: errno \(errno)") }
        if count == 0 { break }
        received += chunk[0..<count]
    }
    let text = String(decoding: received, as: UTF8.self)
    guard let headEnd = text.range(of: "\r\n\r\n"),
        let status = Int(text.split(separator: " ", maxSplits: 2).dropFirst().first ?? "")
    else { throw SocketError(message: "no HTTP response: \(text)") }
    return (status, String(text[headEnd.upperBound...]))
}

@Suite("Over real sockets")
struct SocketTests {
    @Test("start serves the REST API on an ephemeral port and stop ends it")
    func startAndStop() async throws {
        let emulator = try Emulator(configuration: EmulatorConfiguration(startTime: startInstant))
        let url = try await emulator.start()
        #expect(url.scheme == "http")
        #expect(url.host == "127.0.0.1")
        let port = try #require(url.port.flatMap { UInt16(exactly: $0) })
        #expect(port != 0)
        #expect(try await emulator.start() == url)

        let body = #"{"data":{"id":"alice","entityClassVersion":1,"payload":{"name":"Alice"}}}"#
        let created = try await exchange(
            port: port,
            "POST /v1/datasync/subkeys/demo/users?uuid=me&auth=anything HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/vnd.pubnub.objects.user+json;version=1\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        #expect(created.status == 201)
        let data = try JSONValue(parsing: created.body)["data"]
        #expect(data?["id"] == "alice")
        #expect(data?["expiresAt"] == "2026-10-08T00:00:00Z")

        let read = try await exchange(
            port: port,
            "GET /v1/datasync/subkeys/demo/users/alice HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        #expect(read.status == 200)
        #expect(try JSONValue(parsing: read.body)["data"] == data)

        let removed = try await exchange(
            port: port,
            "DELETE /v1/datasync/subkeys/demo/users/alice HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        #expect(removed.status == 200)
        #expect(removed.body.isEmpty)

        await emulator.stop()
        #expect(await emulator.baseURL == nil)
        // The state stays: served again (on a new port), the keyset is still there.
        let again = try await emulator.start()
        let againPort = try #require(again.port.flatMap { UInt16(exactly: $0) })
        let missing = try await exchange(
            port: againPort,
            "GET /v1/datasync/subkeys/demo/users/alice HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        #expect(missing.status == 404)
        await emulator.stop()
    }
}
