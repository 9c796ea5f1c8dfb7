import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

/// Sends one request over a real loopback socket as written (with `Connection: close`) and reads
/// the response, on a thread of its own so no cooperative thread blocks.
func exchange(port: UInt16, _ request: String) async throws -> (status: Int, body: String) {
    let method = String(request.prefix { $0 != " " })
    let response = try await RawSocket.exchange(port: port, Array(request.utf8), method: method)
    return (response.status, response.text)
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
