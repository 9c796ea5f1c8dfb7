import DataSyncTestSupport
import EmulatorHTTP
import JSONCore
import Testing

@Suite("HTTP server: test handler and fault injection")
struct FaultInjectionTests {
    @Test(arguments: [0, 1, 7, 100_000])
    func bytesRouteReturnsExactlyNBytes(count: Int) async throws {
        try await withConnection { _, client in
            let response = try await client.get("/bytes/\(count)")
            #expect(response.body.count == count)
            #expect(response.body == HTTPTestingHandler.pattern(count))
        }
    }

    @Test func chunkedResponseIsFramedInChunks() async throws {
        try await withConnection { _, client in
            try await client.send("GET /bytes/100?chunked=7 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let raw = try await client.readUntilClosed()
            let (response, consumed) = try #require(try RawSocket.parse(raw, method: "GET", atEnd: true))
            #expect(response.header("Transfer-Encoding") == "chunked")
            #expect(response.header("Content-Length") == nil)
            #expect(response.body == HTTPTestingHandler.pattern(100))
            #expect(consumed == raw.count)
            #expect(String(decoding: raw, as: UTF8.self).contains("\r\n7\r\nabcdefg\r\n"))
        }
    }

    @Test func gzipResponseDecompressesToTheBody() async throws {
        try await withConnection { _, client in
            let response = try await client.get("/bytes/5000?gzip=1")
            #expect(response.header("Content-Encoding") == "gzip")
            #expect(response.body.count < 5000)
            #expect(Array(response.body.prefix(2)) == [0x1F, 0x8B])
            #expect(Gzip.decompress(response.body) == HTTPTestingHandler.pattern(5000))
        }
    }

    @Test func checksumIsStandardCRC32() {
        #expect(HTTPTestingHandler.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(HTTPTestingHandler.checksum([]) == 0)
    }

    @Test func gzipRoundTripsEmptyAndRandomBodies() throws {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for body in [[], [1], random] {
            let compressed = try #require(Gzip.compress(body))
            #expect(Gzip.decompress(compressed) == body)
        }
        #expect(Gzip.decompress([1, 2, 3]) == nil)
    }

    @Test func truncatedBodyAnnouncesMoreThanItSends() async throws {
        try await withConnection { _, client in
            try await client.send("GET /truncate/100?sent=10 HTTP/1.1\r\nHost: x\r\n\r\n")
            let raw = try await client.readUntilClosed()
            let text = String(decoding: raw, as: UTF8.self)
            #expect(text.contains("Content-Length: 100\r\n"))
            #expect(text.hasSuffix("\r\n\r\nabcdefghij"))
            #expect(try RawSocket.parse(raw, method: "GET", atEnd: false) == nil)
        }
    }

    @Test func truncatedChunkedBodyHasNoFinalChunk() async throws {
        try await withConnection { _, client in
            try await client.send("GET /truncate/20?sent=5&chunked=4 HTTP/1.1\r\nHost: x\r\n\r\n")
            let text = String(decoding: try await client.readUntilClosed(), as: UTF8.self)
            #expect(text.hasSuffix("\r\n\r\n4\r\nabcd\r\n1\r\ne\r\n"))
        }
    }

    @Test func dropClosesWithoutAResponse() async throws {
        try await withConnection { server, client in
            try await client.send("GET /drop HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readUntilClosed().isEmpty)
            #expect(server.statistics.requestsReceived == 1)
        }
    }

    @Test func extraHeadersAndUnknownRoutes() async throws {
        try await withConnection { _, client in
            #expect(try await client.get("/bytes/1?header=X-Test%3A%20hello").header("X-Test") == "hello")
            let missing = try await client.get("/nowhere")
            #expect(missing.status == 404)
            #expect(missing.text == "not found")
        }
    }

    @Test func largeUploadAndDownloadRoundTrip() async throws {
        try await withConnection { _, client in
            let body = HTTPTestingHandler.pattern(3 * 1024 * 1024)
            try await client.send(
                Array("POST /echo?omitBody=1 HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
            let response = try await client.response()
            #expect(response.status == 200)
            let echo = try JSONValue(parsing: response.body)
            #expect(echo["bodyLength"] == .int(Int64(body.count)))
            #expect(echo["bodyCRC32"] == .int(Int64(HTTPTestingHandler.checksum(body))))
            #expect(echo["bodyBase64"] == nil)
            #expect(try await client.get("/bytes/\(body.count)").body == body)
        }
    }
}
