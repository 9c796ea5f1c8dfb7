import JSONCore
import Testing

@Suite struct JSONValueBasicsTests {
    @Test func integersStayIntegers() throws {
        let value = try JSONValue(parsing: "{\"a\":24,\"b\":79.99}")
        #expect(value["a"] == .int(24))
        #expect(try value.jsonString() == "{\"a\":24,\"b\":79.99}")
    }
}
