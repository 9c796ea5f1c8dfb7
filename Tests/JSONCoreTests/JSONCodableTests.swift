import Foundation
import JSONCore
import Testing

private struct Address: Codable, Equatable, JSONCodable {
    var street: String
    var zip: String?
}

private enum Tier: String, Codable, Equatable {
    case free
    case pro
}

private enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case square(side: Int)
}

private struct Profile: JSONCodable, Equatable {
    var name: String
    var age: Int
    var score: Double
    var tags: [String]
    var address: Address?
    var previous: [Address]
    var tier: Tier
    var shape: Shape
    var joined: Date
    var avatar: Data
    var ratings: [String: Int]
    var nickname: String?
    var small: UInt8
    var big: Int64
    var ratio: Float
    var site: URL
}

private func sampleProfile() throws -> Profile {
    Profile(
        name: "Ada", age: 36, score: 79.99, tags: ["a", "b"], address: Address(street: "Main", zip: nil),
        previous: [Address(street: "Old", zip: "123")], tier: .pro, shape: .circle(radius: 1.5),
        joined: Date(timeIntervalSince1970: 1_700_000_000.123), avatar: Data([0, 1, 2, 255]),
        ratings: ["x": 1], nickname: nil, small: 200, big: Int64.min, ratio: 0.1,
        site: try #require(URL(string: "https://example.com/a?b=c")))
}

@Suite struct JSONCodableTests {
    @Test func nestedStructRoundTripsWithoutBytes() throws {
        let profile = try sampleProfile()
        let value = try JSONValue(from: profile)
        #expect(value["name"] == "Ada")
        #expect(value["age"] == .int(36))
        #expect(value["score"] == .double(79.99))
        #expect(value["address"] == ["street": "Main"])
        #expect(value["nickname"] == nil, "nil optionals are left out")
        #expect(value["tier"] == "pro")
        #expect(value["joined"] == "2023-11-14T22:13:20.123Z")
        #expect(value["avatar"] == "AAEC/w==")
        #expect(value["small"] == 200)
        #expect(value["big"] == .int(Int64.min))
        #expect(value["ratio"] == .double(0.1))
        #expect(value["site"] == "https://example.com/a?b=c")
        let decoded = try value.decode(Profile.self)
        #expect(decoded == profile)
    }

    @Test func agreesWithFoundationsEncoderOnStructure() throws {
        let profile = try sampleProfile()
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601Timestamp.string(from: date))
        }
        let viaFoundation = try JSONValue(parsing: encoder.encode(profile))
        var direct = try JSONValue(from: profile)
        // Foundation writes Float 0.1 as 0.1 too; everything must match exactly.
        #expect(direct == viaFoundation)
        direct["ratio"] = nil
        #expect(direct != viaFoundation)
    }

    @Test func jsonCodableDefaultAndConformances() throws {
        #expect(try "text".jsonValue() == "text")
        #expect(try 5.jsonValue() == 5)
        #expect(try true.jsonValue() == true)
        #expect(try 1.25.jsonValue() == 1.25)
        #expect(try [1, 2].jsonValue() == [1, 2])
        #expect(try ["k": ["v"]].jsonValue() == ["k": ["v"]])
        let optional: Int? = nil
        #expect(try optional.jsonValue() == .null)
        let value: JSONValue = ["a": 1]
        #expect(try value.jsonValue() == value)
        let payload: any JSONCodable = Address(street: "S", zip: "1")
        #expect(try payload.jsonValue() == ["street": "S", "zip": "1"])
    }

    @Test func decodeReportsThePathOfAMismatch() throws {
        let value: JSONValue = ["street": "Main", "zip": 5]
        do {
            _ = try value.decode(Address.self)
            Issue.record("decoded a number as a string")
        } catch let error as JSONError {
            #expect(error.code == .typeMismatch)
            #expect(error.path == "zip")
            #expect(error.message.contains("expected a string, found number"))
        }
        let list: JSONValue = [["street": "A"], ["zip": "1"]]
        do {
            _ = try list.decode([Address].self)
            Issue.record("decoded without a street")
        } catch let error as JSONError {
            #expect(error.code == .valueNotFound)
            #expect(error.path == "[1].street")
        }
    }

    @Test func integersConvertOnlyWhenExact() throws {
        #expect(try JSONValue.double(2.0).decode(Int.self) == 2)
        #expect(try JSONValue.int(7).decode(Double.self) == 7.0)
        #expect(throws: JSONError.self) { try JSONValue.double(2.5).decode(Int.self) }
        #expect(throws: JSONError.self) { try JSONValue.int(300).decode(UInt8.self) }
        #expect(throws: JSONError.self) { try JSONValue.int(-1).decode(UInt.self) }
        #expect(throws: JSONError.self) { try JSONValue.string("1").decode(Int.self) }
    }

    @Test func nonFiniteNumbersFailToEncode() {
        #expect(throws: JSONError.self) { try JSONValue(from: ["x": Double.nan]) }
        #expect(throws: JSONError.self) { try JSONValue(from: [Float.infinity]) }
    }

    @Test(arguments: [
        (JSONDateStrategy.iso8601, JSONValue.string("2023-11-14T22:13:20.500Z")),
        (.secondsSince1970, .double(1_700_000_000.5)),
        (.millisecondsSince1970, .double(1_700_000_000_500)),
    ])
    func dateStrategies(strategy: JSONDateStrategy, expected: JSONValue) throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        let value = try JSONValueEncoder(dateStrategy: strategy).encode(date)
        #expect(value == expected)
        #expect(try JSONValueDecoder(dateStrategy: strategy).decode(Date.self, from: value) == date)
    }

    @Test func jsonValueInsideCodableStaysItself() throws {
        struct Wrapper: Codable, Equatable {
            var payload: JSONValue
        }
        let wrapper = Wrapper(payload: ["n": 24, "d": 2.5, "list": [nil, true]])
        let value = try JSONValue(from: wrapper)
        #expect(value == ["payload": ["n": 24, "d": 2.5, "list": [nil, true]]])
        #expect(try value.decode(Wrapper.self) == wrapper)
        let viaFoundation = try JSONDecoder().decode(Wrapper.self, from: JSONEncoder().encode(wrapper))
        #expect(viaFoundation == wrapper)
        guard case .int = viaFoundation.payload["n"] else {
            Issue.record("integer became \(String(describing: viaFoundation.payload["n"]))")
            return
        }
    }

    @Test func classHierarchiesWithSuperEncoder() throws {
        final class Base: Codable {
            var id = "b"
        }
        let value = try JSONValue(from: [Base()])
        #expect(value == [["id": "b"]])
    }

    @Test func decimalEncodesAsNumber() throws {
        #expect(try JSONValue(from: Decimal(string: "12.5")) == .double(12.5))
        #expect(try JSONValue(from: Decimal(42)) == .int(42))
        #expect(try JSONValue.double(12.5).decode(Decimal.self) == Decimal(string: "12.5"))
    }
}

@Suite struct ISO8601TimestampTests {
    @Test(arguments: [
        ("2026-05-22T10:15:30Z", 1_779_444_930.0),
        ("2026-05-22T10:15:30.123Z", 1_779_444_930.123),
        ("2026-05-22T10:15:30.123456Z", 1_779_444_930.123456),
        ("2026-05-22T12:15:30.5+02:00", 1_779_444_930.5),
        ("2026-05-22T05:15:30-0500", 1_779_444_930.0),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59Z", -1),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
    ])
    func parses(text: String, seconds: Double) throws {
        let date = try #require(ISO8601Timestamp.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: [
        "", "2026-05-22", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-05-22T24:00:00Z",
        "2026-05-22T10:15:30", "2026-05-22T10:15:30.Z", "2026-05-22T10:15:30Zjunk", "2023-02-29T00:00:00Z",
    ])
    func rejects(text: String) {
        #expect(ISO8601Timestamp.date(from: text) == nil)
    }

    @Test func formatsInUTCWithTruncatedFraction() {
        let date = Date(timeIntervalSince1970: 1_779_444_930.123_9)
        #expect(ISO8601Timestamp.string(from: date) == "2026-05-22T10:15:30.123Z")
        #expect(ISO8601Timestamp.string(from: date, fractionDigits: 0) == "2026-05-22T10:15:30Z")
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
    }
}
