import Testing

@testable import Transport

@Suite("HTTPRequest encoding")
struct HTTPRequestTests {
    @Test(
        "query values encode everything but unreserved characters",
        arguments: [
            ("plain", "plain"),
            ("a b", "a%20b"),
            ("a+b", "a%2Bb"),
            ("&=?#/", "%26%3D%3F%23%2F"),
            ("~-._", "~-._"),
            ("é", "%C3%A9"),
            ("🙂", "%F0%9F%99%82"),
            ("100%", "100%25"),
        ])
    func queryEncoding(value: String, encoded: String) {
        let request = HTTPRequest(host: "example.com", queryItems: [HTTPQueryItem(name: "q", value: value)])
        #expect(request.encodedQuery == "q=" + encoded)
    }

    @Test("the URL is built byte for byte: scheme, bracketed IPv6 host, port, path, query, encoded")
    func urlShapes() {
        let empty = HTTPRequest(host: "example.com", path: "/a", queryItems: [HTTPQueryItem(name: "", value: nil)])
        #expect(empty.target == "/a")
        #expect(empty.url == "https://example.com/a")
        let emptyValue = HTTPRequest(
            scheme: "http", host: "fe80::1", port: 80, path: "/p%2Fq",
            queryItems: [HTTPQueryItem(name: "k", value: ""), HTTPQueryItem(name: "ü ~", value: "a/b+c\u{0}")])
        #expect(emptyValue.encodedQuery == "k=&%C3%BC%20~=a%2Fb%2Bc%00")
        #expect(emptyValue.url == "http://[fe80::1]:80/p%2Fq?k=&%C3%BC%20~=a%2Fb%2Bc%00")
        #expect(HTTPRequest.percentEncode("\u{FF}\u{10}zZ09-._~") == "%C3%BF%10zZ09-._~")
    }

    @Test(
        "percent-encoding keeps exactly the unreserved characters, whether the text needs encoding or not",
        arguments: ["", "demo", "sub-c-0123_abc.~", "user 1", "a/b", "~.", "é", "tail%", "%41", "plain-then-ü"])
    func percentEncodingTable(_ text: String) {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        var expected = ""
        for byte in text.utf8 {
            expected += unreserved.contains(byte) ? String(UnicodeScalar(byte)) : "%" + hex(byte)
        }
        #expect(HTTPRequest.percentEncode(text) == expected)
        for byte in UInt8(0)...UInt8(127) {
            let single = String(UnicodeScalar(byte))
            let encoded = HTTPRequest.percentEncode(text + single)
            #expect(encoded == expected + (unreserved.contains(byte) ? single : "%" + hex(byte)))
        }
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    @Test("a bare query item has no equals sign and the order is kept")
    func bareQueryItem() {
        let request = HTTPRequest(
            host: "example.com", path: "/v2/subscribe",
            queryItems: [HTTPQueryItem(name: "ee", value: nil), HTTPQueryItem(name: "a", value: "1")])
        #expect(request.target == "/v2/subscribe?ee&a=1")
        #expect(request.url == "https://example.com/v2/subscribe?ee&a=1")
    }

    @Test("IPv6 hosts are bracketed and ports appear in the URL")
    func ipv6URL() {
        let request = HTTPRequest(scheme: "http", host: "::1", port: 8080, path: "/x")
        #expect(request.url == "http://[::1]:8080/x")
    }

    @Test("path segments keep slashes inside ids distinct from separators")
    func pathSegment() {
        #expect(HTTPRequest.encodePathSegment("a/b c") == "a%2Fb%20c")
    }

    @Test(
        "requests that cannot be sent are rejected with invalidRequest",
        arguments: [
            HTTPRequest(scheme: "ftp", host: "example.com"),
            HTTPRequest(host: ""),
            HTTPRequest(host: "example.com", path: "no-slash"),
            HTTPRequest(host: "example.com", path: "/a b"),
            HTTPRequest(host: "example.com", port: 70000),
            HTTPRequest(method: HTTPMethod(rawValue: "GE T"), host: "example.com"),
            HTTPRequest(host: "example.com", headers: ["X-Bad": "a\r\nInjected: 1"]),
            HTTPRequest(host: "example.com", headers: ["Bad Name": "v"]),
        ])
    func validation(request: HTTPRequest) {
        #expect(throws: TransportError.self) { try request.validateForSending() }
        do {
            try request.validateForSending()
        } catch let error as TransportError {
            #expect(error.code == .invalidRequest)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("a well-formed request passes validation")
    func validRequest() throws {
        let request = HTTPRequest(
            method: .post, host: "ps.pndsn.com", path: "/publish/a%2Fb", headers: ["Authorization": ""],
            body: [1])
        try request.validateForSending()
    }
}
