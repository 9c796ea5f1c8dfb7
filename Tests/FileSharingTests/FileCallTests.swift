import DataSyncEmulator
import FileSharing
import JSONCore
import Testing
import Transport

/// The request-building parts of file sharing, without a server.
@Suite struct FileCallTests {
    @Test func storageURLsBecomeRequests() throws {
        let request = try FileCall.storageRequest(
            "http://127.0.0.1:8090/_files/download/demo/room%2F1/id/a%20b.txt?expires=5&signature=a%2Bb%3D",
            method: .get)
        #expect(request.scheme == "http" && request.host == "127.0.0.1" && request.port == 8090)
        #expect(request.path == "/_files/download/demo/room%2F1/id/a%20b.txt")
        #expect(
            request.queryItems == [
                HTTPQueryItem(name: "expires", value: "5"), HTTPQueryItem(name: "signature", value: "a+b="),
            ])
        let s3 = try FileCall.storageRequest("https://bucket.s3.amazonaws.com", method: .post)
        #expect(s3.scheme == "https" && s3.host == "bucket.s3.amazonaws.com" && s3.port == nil && s3.path == "/")
        let v6 = try FileCall.storageRequest("http://[::1]:9/x", method: .get)
        #expect(v6.host == "::1" && v6.port == 9 && v6.path == "/x")
        for bad in ["", "/relative", "ftp://host/x", "http://", "http://host:99999/", "http://h/?a=%zz"] {
            #expect(throws: PubNubError.self, "\(bad)") { try FileCall.storageRequest(bad, method: .get) }
        }
    }

    /// The body the SDK builds is one the emulator's strict parser reads back field for field
    /// (two independent implementations of RFC 7578 agreeing).
    @Test func multipartBodiesParseBackWithTheEmulatorsParser() throws {
        let fields = [(key: "key", value: "id/a \"quoted\".txt"), (key: "Content-Type", value: "text/plain")]
        let data: [UInt8] = Array(0...255) + Array("\r\n--not-the-boundary\r\n".utf8)
        let (body, contentType) = FileCall.multipartBody(
            fields: fields, fileName: "a \"quoted\".txt", contentType: "image/png", data: data,
            boundary: FileCall.makeBoundary())
        let boundary = try MultipartForm.boundary(contentType: contentType)
        let form = try MultipartForm(parsing: body, boundary: boundary)
        #expect(form.parts.map(\.name) == ["key", "Content-Type", "file"])
        #expect(form["key"]?.text == "id/a \"quoted\".txt")
        #expect(form["file"]?.filename == "a \"quoted\".txt")
        #expect(form["file"]?.contentType == "image/png")
        #expect(form["file"]?.body == data)
    }

    @Test func publishFileMessagePathAndQuery() throws {
        let call = try FileCall.publishFileMessage(
            publishKey: "pub", subscribeKey: "sub", channel: "a b", file: PubNubFileReference(id: "i", name: "n"),
            message: nil,
            options: PubNubFileMessageOptions(
                shouldStore: false, storeTTL: 2, meta: ["k": 1], customMessageType: "t-1x"),
            module: nil)
        #expect(call.method == .get)
        #expect(
            call.path
                == "/v1/files/publish-file/pub/sub/0/a%20b/0/"
                + HTTPRequest.encodePathSegment(#"{"file":{"id":"i","name":"n"},"message":null}"#)
                || call.path
                    == "/v1/files/publish-file/pub/sub/0/a%20b/0/"
                    + HTTPRequest.encodePathSegment(#"{"message":null,"file":{"id":"i","name":"n"}}"#)
        )
        #expect(call.query.map(\.name) == ["store", "ttl", "meta", "custom_message_type"])
        #expect(call.query.map(\.value) == ["0", "2", #"{"k":1}"#, "t-1x"])
    }
}
