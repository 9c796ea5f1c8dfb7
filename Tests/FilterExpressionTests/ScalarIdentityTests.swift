import FilterExpression
import JSONCore
import Testing

/// Property names and string values compare by Unicode scalars: "é" (U+00E9) and "e\u{301}"
/// (U+0065 U+0301), equal as Swift strings, are different names and different values.
@Suite struct FilterScalarIdentityTests {
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    @Test func stringEqualityDoesNotMatchTheOtherSpelling() throws {
        let evaluator = try FilterEvaluator(parsing: "name == \"\(Self.composed)\"")
        #expect(evaluator.matches(["name": .string(Self.composed)]))
        #expect(!evaluator.matches(["name": .string(Self.decomposed)]))
        #expect(!evaluator.matches(try JSONValue(parsing: #"{"name":"e\u0301"}"#)))
        let different = try FilterEvaluator(parsing: "name != \"\(Self.composed)\"")
        #expect(different.matches(try JSONValue(parsing: #"{"name":"e\u0301"}"#)))
    }

    @Test func propertyNamesAreLookedUpByScalars() throws {
        let evaluator = try FilterEvaluator(parsing: "\(Self.composed) == 1")
        let onlyDecomposed = try JSONValue(parsing: #"{"e\u0301":1}"#)
        #expect(!evaluator.matches(onlyDecomposed))
        #expect(evaluator.matches(try JSONValue(parsing: #"{"\u00e9":1}"#)))
        let both = try JSONValue(parsing: #"{"\u00e9":1,"e\u0301":2}"#)
        #expect(evaluator.matches(both))
        #expect(try FilterEvaluator(parsing: "\(Self.decomposed) == 2").matches(both))
        #expect(try !FilterEvaluator(parsing: "\(Self.decomposed) == 1").matches(both))
    }

    @Test func objectMembersMatchLikeTheValueHoldingThem() throws {
        let evaluator = try FilterEvaluator(parsing: "\(Self.decomposed) == 2 && \(Self.composed) == 1")
        let members = try #require(try JSONValue(parsing: #"{"\u00e9":1,"e\u0301":2}"#).objectValue)
        #expect(evaluator.matches(members))
    }
}
