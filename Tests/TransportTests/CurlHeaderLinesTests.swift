import Testing

@testable import Transport

/// The curl backend's header-line reader, fed lines as libcurl hands them over.
@Suite("Curl header lines")
struct CurlHeaderLinesTests {
    static func read(_ lines: [String]) -> [String] {
        var reader = CurlHeaderLines()
        for line in lines {
            Array(line.utf8).withUnsafeBufferPointer { reader.receive($0) }
        }
        return reader.fields.map { "\($0.name)=\($0.value)|" }
    }

    @Test("fields keep their order and names; values lose surrounding spaces and tabs, not inner ones")
    func plainFields() {
        let fields = Self.read([
            "HTTP/1.1 200 OK\r\n", "Content-Type: application/json\r\n", "X-Odd:\t  two  words \t\r\n",
            "Empty:\r\n", "NoSpace:v\r\n", "\r\n",
        ])
        #expect(fields == ["Content-Type=application/json|", "X-Odd=two  words|", "Empty=|", "NoSpace=v|"])
    }

    @Test("a second status line (after 100 Continue) starts the fields afresh")
    func interimResponse() {
        let fields = Self.read([
            "HTTP/1.1 100 Continue\r\n", "X-Interim: 1\r\n", "\r\n", "HTTP/1.1 201 Created\r\n", "Location: /a\r\n",
            "\r\n",
        ])
        #expect(fields == ["Location=/a|"])
    }

    @Test("a folded line continues the previous value with one space; a line without a colon is ignored")
    func foldingAndJunk() {
        let fields = Self.read([
            "HTTP/1.1 200 OK\r\n", "X-Long: first\r\n", "   second part \r\n", "\tthird\n", "garbage line\r\n",
            "Last: ünïcode ✓\r\n",
        ])
        #expect(fields == ["X-Long=first second part third|", "Last=ünïcode ✓|"])
    }

    @Test("a continuation with nothing before it, bare line endings and an unterminated last line")
    func edges() {
        #expect(Self.read([" stray\r\n", "\r\n", "\n", "A: 1"]) == ["A=1|"])
        #expect(Self.read(["HTTP/2 200\r\n", "a:b:c\r\n"]) == ["a=b:c|"])
    }
}
