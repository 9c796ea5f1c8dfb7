import Foundation
import JSONCore
import Testing

@Suite struct JSONValueCaseTests {
    @Test func everyCaseHasItsAccessor() {
        let null: JSONValue = nil
        #expect(null.isNull)
        #expect(JSONValue.bool(true).boolValue == true)
        #expect(JSONValue.int(24).intValue == 24)
        #expect(JSONValue.int(24).int64Value == 24)
        #expect(JSONValue.int(24).doubleValue == 24.0)
        #expect(JSONValue.double(79.99).doubleValue == 79.99)
        #expect(JSONValue.double(79.99).intValue == nil)
        #expect(JSONValue.double(3.0).intValue == 3)
        #expect(JSONValue.string("x").stringValue == "x")
        #expect(JSONValue.array([1, 2]).arrayValue == [1, 2])
        #expect(JSONValue.object(["a": 1]).objectValue == ["a": 1])
        #expect(JSONValue.string("x").intValue == nil)
        #expect(JSONValue.int(1).stringValue == nil)
        #expect(JSONValue.null.boolValue == nil)
        #expect(JSONValue.int(1).arrayValue == nil)
        #expect(JSONValue.int(1).objectValue == nil)
        #expect(JSONValue.int(1).isNumber && JSONValue.double(1.5).isNumber && !JSONValue.string("1").isNumber)
    }

    @Test(arguments: [
        (JSONValue.null, "null"), (.bool(false), "boolean"), (.int(1), "number"), (.double(1.5), "number"),
        (.string(""), "string"), (.array([]), "array"), (.object([:]), "object"),
    ])
    func typeNames(value: JSONValue, name: String) {
        #expect(value.typeName == name)
    }

    @Test func literalsBuildTheRightCases() {
        let value: JSONValue = ["s": "text", "i": 7, "d": 2.5, "b": true, "n": nil, "a": [1, "two"], "o": ["k": "v"]]
        #expect(value["s"] == .string("text"))
        #expect(value["i"] == .int(7))
        #expect(value["d"] == .double(2.5))
        #expect(value["b"] == .bool(true))
        #expect(value["n"] == .null)
        #expect(value["a"] == .array([.int(1), .string("two")]))
        #expect(value["o"] == .object(["k": .string("v")]))
        #expect(value["missing"] == nil)
    }

    @Test func repeatedKeyInDictionaryLiteralKeepsTheLast() {
        let value: JSONValue = ["a": 1, "a": 2]
        #expect(value == ["a": 2])
    }

    @Test func convenienceInitialisers() {
        #expect(JSONValue(UInt8(200)) == .int(200))
        #expect(JSONValue(UInt64.max) == .double(Double(UInt64.max)))
        #expect(JSONValue(1.5) == .double(1.5))
        #expect(JSONValue("s") == .string("s"))
        #expect(JSONValue(false) == .bool(false))
    }

    @Test func keySubscriptSetsAndRemoves() {
        var value: JSONValue = ["a": 1]
        value["b"] = "two"
        #expect(value == ["a": 1, "b": "two"])
        value["a"] = nil
        #expect(value == ["b": "two"])
        var notObject: JSONValue = [1]
        notObject["x"] = 1
        #expect(notObject == [1])
    }

    @Test func indexSubscriptReadsAndReplacesInRange() {
        var value: JSONValue = [1, 2, 3]
        #expect(value[1] == 2)
        #expect(value[3] == nil)
        #expect(value[-1] == nil)
        value[1] = "b"
        #expect(value == [1, "b", 3])
        value[5] = 0
        value[0] = nil
        #expect(value == [1, "b", 3])
        #expect(JSONValue.string("x")[0] == nil)
    }

    @Test func numbersCompareByValueAndHashAlike() {
        #expect(JSONValue.int(1) == .double(1.0))
        #expect(JSONValue.double(1.0) == .int(1))
        #expect(JSONValue.int(1) != .double(1.5))
        #expect(JSONValue.int(1) != .string("1"))
        #expect(JSONValue.bool(true) != .int(1))
        #expect(Set<JSONValue>([.int(1), .double(1.0)]).count == 1)
        #expect(JSONValue.int(Int64.max) != .double(9_223_372_036_854_775_807.0))
        let nested: JSONValue = ["a": [1, 2.0]]
        #expect(nested == ["a": [1.0, 2]])
        let other: JSONValue = ["a": [1.0, 2]]
        #expect(nested.hashValue == other.hashValue)
    }

    @Test func descriptionIsCompactSortedJSON() {
        let value: JSONValue = ["b": [true, nil], "a": 1.5]
        #expect(value.description == #"{"a":1.5,"b":[true,null]}"#)
        #expect(JSONValue.double(.nan).description == "null")
    }
}

@Suite struct JSONNumberFidelityTests {
    @Test(arguments: [
        ("24", JSONValue.int(24), "24"),
        ("-0", .int(0), "0"),
        ("79.99", .double(79.99), "79.99"),
        ("24.0", .double(24), "24.0"),
        ("9223372036854775807", .int(Int64.max), "9223372036854775807"),
        ("-9223372036854775808", .int(Int64.min), "-9223372036854775808"),
        ("1e300", .double(1e300), "1e+300"),
        ("0.30000000000000004", .double(0.1 + 0.2), "0.30000000000000004"),
        ("-0.0", .double(-0.0), "-0.0"),
        ("1E-7", .double(1e-7), "1e-07"),
        ("2.5e3", .double(2500), "2500.0"),
    ])
    func numbersRoundTrip(text: String, expected: JSONValue, written: String) throws {
        let value = try JSONValue(parsing: text)
        #expect(value == expected)
        if case .int = expected {
            #expect(value.int64Value != nil)
            guard case .int = value else {
                Issue.record("\(text) should stay an integer")
                return
            }
        }
        #expect(try value.jsonString() == written)
        #expect(try JSONValue(parsing: written) == expected)
    }

    @Test func integerStaysIntegerThroughATrip() throws {
        let value = try JSONValue(parsing: #"{"count":24}"#)
        guard case .int(24) = try #require(value["count"]) else {
            Issue.record("24 became \(String(describing: value["count"]))")
            return
        }
        #expect(try value.jsonString() == #"{"count":24}"#)
    }

    @Test func integerBeyondInt64BecomesDouble() throws {
        let value = try JSONValue(parsing: "18446744073709551615")
        #expect(value == .double(18_446_744_073_709_551_615.0))
        let negative = try JSONValue(parsing: "-9223372036854775809")
        guard case .double = negative else {
            Issue.record("expected a double")
            return
        }
    }

    @Test func negativeZeroKeepsItsSign() throws {
        let value = try JSONValue(parsing: "-0.0")
        #expect(value.doubleValue?.sign == .minus)
    }

    @Test func nonFiniteNumbersCannotBeWritten() {
        for bad in [Double.nan, .infinity, -.infinity] {
            #expect(throws: JSONError.self) { try JSONValue.double(bad).jsonBytes() }
            #expect(throws: JSONError.self) { try JSONValue.array([.double(bad)]).jsonString() }
        }
    }
}
