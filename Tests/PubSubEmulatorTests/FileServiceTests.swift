import DataSyncEmulator
import EmulatorHTTP
import Foundation
import JSONCore
import Testing

/// The emulator's file routes, driven with raw requests: generate an upload form, upload through
/// it, list, redirect, download, delete and announce.
@Suite struct FileServiceTests {
    static let boundary = "test-boundary-42"
    static let host = ("Host", "127.0.0.1:8090")

    struct Form {
        var id: String
        var name: String
        var url: String
        var fields: [(String, String)]
        /// The upload route's target (path only) on this emulator.
        var target: String { String(url.dropFirst("http://127.0.0.1:8090".count)) }
    }

    private func generate(_ client: PubSubClient, channel: String = "room", name: String) async throws -> Form {
        let reply = await client.send(
            "POST", "/v1/files/demo/channels/\(channel)/generate-upload-url?uuid=alice",
            body: Array(#"{"name":"\#(name)"}"#.utf8), headers: [("Content-Type", "application/json"), Self.host])
        try #require(reply.status == 200, "\(reply.text)")
        let json = try #require(reply.json)
        let request = try #require(json["file_upload_request"])
        #expect(request["method"] == "POST")
        #expect(request["expiration_date"]?.stringValue != nil)
        let fields = try #require(request["form_fields"]?.arrayValue).map {
            ($0["key"]?.stringValue ?? "", $0["value"]?.stringValue ?? "")
        }
        return Form(
            id: try #require(json["data"]?["id"]?.stringValue), name: try #require(json["data"]?["name"]?.stringValue),
            url: try #require(request["url"]?.stringValue), fields: fields)
    }

    static func multipart(_ fields: [(String, String)], file: [UInt8]?, fileType: String? = "text/plain")
        -> [UInt8]
    {
        var body: [UInt8] = []
        for (key, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(key)\"\r\n\r\n\(value)\r\n".utf8)
        }
        if let file {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x\"\r\n".utf8)
            if let fileType { body += Array("Content-Type: \(fileType)\r\n".utf8) }
            body += Array("\r\n".utf8) + file + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }

    private func upload(_ client: PubSubClient, _ form: Form, _ file: [UInt8], fields: [(String, String)]? = nil)
        async -> PubSubReply
    {
        await client.send(
            "POST", form.target, body: Self.multipart(fields ?? form.fields, file: file),
            headers: [("Content-Type", "multipart/form-data; boundary=\(Self.boundary)")])
    }

    @Test func uploadListRedirectDownloadAndDelete() async throws {
        let client = try PubSubClient()
        let form = try await generate(client, name: "notes.txt")
        #expect(form.name == "notes.txt")
        #expect(form.url.hasPrefix("http://127.0.0.1:8090/_files/upload/"))
        #expect(form.fields.first?.0 == "key" && form.fields.first?.1 == "\(form.id)/notes.txt")
        let uploaded = await upload(client, form, Array("hello".utf8))
        #expect(uploaded.status == 204, "\(uploaded.text)")

        let listed = await client.send("GET", "/v1/files/demo/channels/room/files?uuid=alice")
        let data = try #require(listed.json?["data"]?.arrayValue)
        #expect(data.count == 1)
        #expect(data.first?["id"]?.stringValue == form.id && data.first?["size"] == 5)
        #expect(listed.json?["next"] == nil)

        let redirect = await client.send(
            "GET", "/v1/files/demo/channels/room/files/\(form.id)/notes.txt?uuid=alice", headers: [Self.host])
        #expect(redirect.status == 307)
        let location = try #require(redirect.header("Location"))
        #expect(location.hasPrefix("http://127.0.0.1:8090/_files/download/demo/room/\(form.id)/notes.txt?"))
        let downloaded = await client.send("GET", String(location.dropFirst("http://127.0.0.1:8090".count)))
        #expect(downloaded.status == 200)
        #expect(downloaded.body == Array("hello".utf8))
        #expect(downloaded.header("Content-Type") == "text/plain")

        let deleted = await client.send("DELETE", "/v1/files/demo/channels/room/files/\(form.id)/notes.txt")
        #expect(deleted.status == 200)
        #expect(await client.send("GET", String(location.dropFirst("http://127.0.0.1:8090".count))).status == 404)
        #expect(await client.send("DELETE", "/v1/files/demo/channels/room/files/\(form.id)/notes.txt").status == 404)
    }

    @Test func listPagesWithNext() async throws {
        let client = try PubSubClient()
        var ids: [String] = []
        for index in 0..<5 {
            let form = try await generate(client, name: "f\(index)")
            #expect(await upload(client, form, [UInt8(index)]).status == 204)
            ids.append(form.id)
        }
        var seen: [String] = []
        var next: String?
        repeat {
            let target = "/v1/files/demo/channels/room/files?limit=2" + (next.map { "&next=\($0)" } ?? "")
            let reply = await client.send("GET", target)
            try #require(reply.status == 200, "\(reply.text)")
            let page = try #require(reply.json?["data"]?.arrayValue)
            #expect(page.count <= 2)
            #expect(reply.json?["count"] == .int(Int64(page.count)))
            seen += page.compactMap { $0["id"]?.stringValue }
            next = reply.json?["next"]?.stringValue
        } while next != nil
        #expect(seen == ids)
        #expect(await client.send("GET", "/v1/files/demo/channels/room/files?limit=0").status == 400)
        #expect(await client.send("GET", "/v1/files/demo/channels/room/files?next=%25%25").status == 400)
    }

    @Test func uploadsMustEchoTheSignedFormAndExpire() async throws {
        let client = try PubSubClient()
        let form = try await generate(client, name: "a.bin")
        // Another name under the same signature.
        var forged = form.fields
        forged[0].1 = "\(form.id)/other.bin"
        #expect(await upload(client, form, [1], fields: forged).status == 403)
        // A field missing.
        #expect(await upload(client, form, [1], fields: Array(form.fields.dropLast())).status == 400)
        // After the form's lifetime.
        client.clock.advance(by: .seconds(601))
        #expect(await upload(client, form, [1]).status == 403)
        let fresh = try await generate(client, name: "a.bin")
        #expect(await upload(client, fresh, [1]).status == 204)
    }

    @Test func downloadURLsAreSignedAndExpire() async throws {
        let client = try PubSubClient()
        let form = try await generate(client, name: "a.bin")
        #expect(await upload(client, form, [7]).status == 204)
        let redirect = await client.send(
            "GET", "/v1/files/demo/channels/room/files/\(form.id)/a.bin", headers: [Self.host])
        let target = String(try #require(redirect.header("Location")).dropFirst("http://127.0.0.1:8090".count))
        #expect(await client.send("GET", target.replacingOccurrences(of: "a.bin?", with: "b.bin?")).status == 403)
        #expect(await client.send("GET", target + "x").status == 403)
        client.clock.advance(by: .seconds(3601))
        #expect(await client.send("GET", target).status == 403)
        #expect(
            await client.send("GET", "/v1/files/demo/channels/room/files/\(form.id)/missing").status == 404)
    }

    @Test func sizeLimitsAreEnforced() async throws {
        var pubSub = PubSubConfiguration()
        pubSub.maximumFileBytes = 10
        pubSub.maximumFileStorageBytes = 15
        let client = try PubSubClient(pubSub: pubSub)
        let first = try await generate(client, name: "a")
        #expect(await upload(client, first, Array(repeating: 1, count: 11)).status == 413)
        #expect(await upload(client, first, Array(repeating: 1, count: 10)).status == 204)
        let second = try await generate(client, name: "b")
        #expect(await upload(client, second, Array(repeating: 1, count: 6)).status == 507)
        // Replacing the same id frees what it held.
        #expect(await upload(client, first, Array(repeating: 2, count: 9)).status == 204)
        #expect(await upload(client, second, Array(repeating: 1, count: 6)).status == 204)
    }

    @Test func malformedUploadsAreRefusedWith4xx() async throws {
        let client = try PubSubClient()
        let form = try await generate(client, name: "a")
        let good = Self.multipart(form.fields, file: [1, 2, 3])
        let cases: [(String?, [UInt8])] = [
            (nil, good),
            ("text/plain", good),
            ("multipart/form-data", good),
            ("multipart/form-data; boundary=", good),
            ("multipart/form-data; boundary=other", good),
            ("multipart/form-data; boundary=\(Self.boundary)", Array(good.dropLast(8))),
            ("multipart/form-data; boundary=\(Self.boundary)", []),
            ("multipart/form-data; boundary=\(Self.boundary)", Self.multipart(form.fields, file: nil)),
            ("multipart/form-data; boundary=\(Self.boundary)", Self.multipart(form.fields + form.fields, file: [1])),
        ]
        for (type, body) in cases {
            let reply = await client.send(
                "POST", form.target, body: body, headers: type.map { [("Content-Type", $0)] } ?? [])
            #expect((400..<500).contains(reply.status), "\(type ?? "none"): \(reply.text)")
        }
        // Fields after the file are refused: storage ignores them, so they would not be checked.
        var late = form.fields
        let last = late.removeLast()
        var body = Self.multipart(late, file: [1])
        body.removeLast("--\(Self.boundary)--\r\n".utf8.count)
        body += Array(
            "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"\(last.0)\"\r\n\r\n\(last.1)\r\n".utf8)
        body += Array("--\(Self.boundary)--\r\n".utf8)
        let reply = await client.send(
            "POST", form.target, body: body,
            headers: [("Content-Type", "multipart/form-data; boundary=\(Self.boundary)")])
        #expect(reply.status == 400)
    }

    @Test func publishFileAnnouncesEventType4AndStoresInHistory() async throws {
        let client = try PubSubClient()
        let cursor = try await client.handshake("room")
        let message = #"{"message":{"text":"hi"},"file":{"id":"f1","name":"a.txt"}}"#
        let sent = await client.send(
            "/v1/files/publish-file/demo/demo/0/room/0/\(PubSubClient.encode(message))?uuid=alice&store=1&meta=%7B%22k%22%3A1%7D"
        )
        let timetoken = try PubSubClient.sentTimetoken(sent)
        let events = await client.subscribe("room", tt: cursor).messages
        #expect(events.count == 1)
        #expect(events.first?["e"] == 4)
        #expect(events.first?["d"]?["file"]?["id"] == "f1")
        #expect(events.first?["i"] == "alice")
        #expect(events.first?["u"] == ["k": 1])
        let history = await client.send("/v3/history/sub-key/demo/channel/room?include_message_type=true")
        let stored = try #require(history.json?["channels"]?["room"]?.arrayValue)
        #expect(stored.count == 1)
        #expect(stored.first?["message_type"] == 4)
        #expect(stored.first?["timetoken"]?.stringValue == String(timetoken))

        // store=0 (what Python sends unless told to store) announces without storing; meta=null is no meta.
        _ = try PubSubClient.sentTimetoken(
            await client.send(
                "/v1/files/publish-file/demo/demo/0/room/0/\(PubSubClient.encode(message))?store=0&meta=null"))
        let again = await client.send("/v3/history/sub-key/demo/channel/room")
        #expect(again.json?["channels"]?["room"]?.arrayValue?.count == 1)

        // ptto sets the timetoken subscribers and the history see, as for a publish.
        let overridden = try PubSubClient.sentTimetoken(
            await client.send("/v1/files/publish-file/demo/demo/0/room/0/\(PubSubClient.encode(message))?ptto=42"))
        #expect(overridden == 42)

        // Wrong keys, a file message without a file, and a non-GET are refused.
        #expect(await client.send("/v1/files/publish-file/nope/demo/0/room/0/%7B%7D").status == 400)
        #expect(await client.send("/v1/files/publish-file/demo/demo/0/room/0/%7B%7D").status == 400)
        #expect(await client.send("POST", "/v1/files/publish-file/demo/demo/0/room/0/%7B%7D").status == 405)
    }

    @Test func unknownKeysAndBadRequestsAreRefused() async throws {
        let client = try PubSubClient()
        let unknown = await client.send(
            "POST", "/v1/files/nope/channels/room/generate-upload-url", body: Array(#"{"name":"a"}"#.utf8))
        #expect(unknown.status == 400)
        for body in ["", "[]", #"{"name":""}"#, #"{"name":5}"#, "{\"name\":\"a\\u0001\"}"] {
            let reply = await client.send(
                "POST", "/v1/files/demo/channels/room/generate-upload-url", body: Array(body.utf8))
            #expect(reply.status == 400, "\(body)")
            #expect(reply.json?["error"]?["source"] == "files")
        }
        #expect(await client.send("PUT", "/v1/files/demo/channels/room/files").status == 405)
        #expect(await client.send("GET", "/v1/files/demo/channels/room/nothing").status == 404)
        #expect(await client.send("GET", "/_files/upload/demo/room").status == 405)
        #expect(await client.send("GET", "/_files/elsewhere").status == 404)
    }
}
