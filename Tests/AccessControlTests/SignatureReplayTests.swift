import DataSyncEmulator
import Foundation
import JSONCore
import Testing

/// Issue 35, item 11: what the emulator does with a signed request sent again. The service keeps
/// no record of signatures (the scheme has no nonce: identical calls in one second are signed
/// identically), so neither does the emulator: a replay is accepted while its timestamp is within
/// 60 s of the clock, and refused after (Documentation/Emulator.md, "Request signatures and
/// replay").
@Suite("Signed requests sent again")
struct SignatureReplayTests {
    /// `method path?query` signed once, to be sent as many times as a test likes.
    private func signedTarget(
        _ client: AccessClient, _ method: String, _ path: String, query: [(name: String, value: String)] = [],
        timestamp: String? = nil
    ) -> String {
        var items = query
        items.append((name: "timestamp", value: timestamp ?? String(client.nowSeconds)))
        let signature = RequestSignature.sign(
            method: method, path: path, query: items, publishKey: AccessClient.publishKey,
            secretKey: AccessClient.secretKey)
        items.append((name: "signature", value: signature))
        return path + "?" + AccessClient.encodedQuery(items)
    }

    @Test("the same signed publish sent twice within 60 s is accepted twice, and refused once the window has passed")
    func replayWithinTheWindow() async throws {
        let client = try AccessClient()
        let publish = signedTarget(
            client, "GET", "/publish/\(AccessClient.publishKey)/\(AccessClient.subscribeKey)/0/room/0/%22hi%22",
            query: [(name: "uuid", value: "server")])
        let first = await client.send("GET", publish)
        #expect(first.status == 200, "\(first.text)")
        await client.emulator.advanceTime(bySeconds: 59)
        let again = await client.send("GET", publish)
        #expect(again.status == 200, "\(again.text)")
        // Two messages: a replay is a second publish, as on the service.
        #expect(first.json?[2] != again.json?[2])
        await client.emulator.advanceTime(bySeconds: 2)
        let late = await client.send("GET", publish)
        #expect(late.status == 403)
        #expect(late.json?["error"]?["message"] == "Request timestamp is out of range")
    }

    @Test("the same signed DataSync DELETE sent twice is authorized twice: the second finds nothing to delete")
    func replayedDelete() async throws {
        let client = try AccessClient()
        let path = "/v1/datasync/subkeys/\(AccessClient.subscribeKey)/users/u1"
        let create = await client.sendSigned(
            "POST", "/v1/datasync/subkeys/\(AccessClient.subscribeKey)/users",
            body: Array(#"{"data":{"id":"u1","entityClassVersion":1}}"#.utf8),
            headers: [(name: "Content-Type", value: AccessClient.contentType("POST", "users"))])
        #expect(create.status == 201, "\(create.text)")
        let delete = signedTarget(client, "DELETE", path)
        #expect(await client.send("DELETE", delete).status == 200)
        let replayed = await client.send("DELETE", delete)
        #expect(replayed.status == 404, "\(replayed.text)")
    }

    @Test(
        "a correct signature over an extreme timestamp is refused as out of range, not a crash",
        arguments: ["-9223372036854775808", "9223372036854775807", "0"])
    func extremeTimestamps(timestamp: String) async throws {
        let client = try AccessClient()
        let target = signedTarget(
            client, "GET", "/v1/datasync/subkeys/\(AccessClient.subscribeKey)/users", timestamp: timestamp)
        let reply = await client.send("GET", target)
        #expect(reply.status == 403)
        #expect(reply.json?["error"]?["message"] == "Request timestamp is out of range")
    }
}
