import DataSyncTestSupport
import Testing

@testable import FilterExpression

/// A plain recursive matcher over Unicode scalars, written from the documented rules alone: `*`
/// matches any run, `\*` and `\\` are literal, any other `\` is itself; case-insensitive compares
/// lower-cased scalars. Memoised so the generated cases stay fast.
private func referenceMatches(_ text: String, _ pattern: String, caseSensitive: Bool) -> Bool {
    enum Token: Equatable {
        case star
        case literal(Unicode.Scalar)
    }
    var tokens: [Token] = []
    let scalars = Array(pattern.unicodeScalars)
    var index = 0
    while index < scalars.count {
        let scalar = scalars[index]
        if scalar == "*" {
            tokens.append(.star)
        } else if scalar == "\\", index + 1 < scalars.count, scalars[index + 1] == "*" || scalars[index + 1] == "\\" {
            tokens.append(.literal(scalars[index + 1]))
            index += 1
        } else {
            tokens.append(.literal(scalar))
        }
        index += 1
    }
    func fold(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        caseSensitive ? scalars : Array(String(String.UnicodeScalarView(scalars)).lowercased().unicodeScalars)
    }
    // Literal runs are folded as a whole, as the pattern's pieces are.
    var folded: [Token] = []
    var run: [Unicode.Scalar] = []
    for token in tokens {
        if case .literal(let scalar) = token {
            run.append(scalar)
        } else {
            folded += fold(run).map(Token.literal)
            run = []
            folded.append(.star)
        }
    }
    folded += fold(run).map(Token.literal)
    let subject = fold(Array(text.unicodeScalars))
    var memo: [Int: Bool] = [:]
    func match(_ t: Int, _ p: Int) -> Bool {
        let key = t * (folded.count + 1) + p
        if let known = memo[key] { return known }
        let result: Bool
        if p == folded.count {
            result = t == subject.count
        } else if folded[p] == .star {
            result = match(t, p + 1) || (t < subject.count && match(t + 1, p))
        } else {
            result = t < subject.count && folded[p] == .literal(subject[t]) && match(t + 1, p + 1)
        }
        memo[key] = result
        return result
    }
    return match(0, 0)
}

extension SeededRandomNumberGenerator {
    fileprivate mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

@Suite("LIKE matching: the same answers as a reference matcher, in linear time")
struct LikePatternMatchingTests {
    @Test("generated patterns and texts agree with a recursive reference matcher")
    func differential() {
        // Seeded, so every run checks the same cases.
        var random = SeededRandomNumberGenerator(seed: 35)
        // Few distinct characters so pieces repeat and overlap, plus escapes and non-ASCII.
        let textAlphabet: [String] = ["a", "b", "A", "B", "*", "\\", "é", "É", "ß", "日"]
        let patternAlphabet: [String] = ["a", "b", "A", "*", "*", "\\*", "\\\\", "\\", "é", "É", "日", "ab", "aab"]
        var checked = 0
        for _ in 0..<6_000 {
            let text = (0..<random.below(14)).map { _ in textAlphabet[random.below(textAlphabet.count)] }.joined()
            var pattern = (0..<random.below(8)).map { _ in patternAlphabet[random.below(patternAlphabet.count)] }
                .joined()
            // Some patterns are built from the text, so that matches are common.
            if random.below(3) == 0, !text.isEmpty {
                let characters = Array(text)
                let cut = random.below(characters.count)
                pattern = "*" + LikePattern.escape(String(characters[cut...])) + (random.below(2) == 0 ? "*" : "")
            }
            for caseSensitive in [true, false] {
                let expected = referenceMatches(text, pattern, caseSensitive: caseSensitive)
                let actual = LikePattern(pattern, caseSensitive: caseSensitive).matches(text)
                #expect(
                    actual == expected,
                    "\(text.debugDescription) LIKE \(pattern.debugDescription) caseSensitive: \(caseSensitive)")
                checked += 1
            }
        }
        #expect(checked == 12_000)
    }

    @Test(
        "edge cases",
        arguments: [
            ("", "", true), ("", "*", true), ("", "**", true), ("a", "", false), ("abc", "a*c", true),
            ("ac", "a*c", true), ("a", "a*a", false), ("aa", "a*a", true), ("a*b", "a\\*b", true),
            ("axb", "a\\*b", false), ("a\\b", "a\\\\b", true), ("a\\b", "a\\b", true), ("xabcabd", "*abd", true),
            ("aaab", "*aab*", true), ("abab", "*ab*ab", true), ("abab", "*ab*ab*ab", false),
        ])
    func edges(_ text: String, _ pattern: String, _ expected: Bool) {
        #expect(LikePattern(pattern, caseSensitive: true).matches(text) == expected)
        #expect(referenceMatches(text, pattern, caseSensitive: true) == expected)
    }

    @Test("a hostile pattern over a 1 MB text costs comparisons linear in text plus pattern")
    func adversarialIsLinear() {
        // The case: a megabyte of `a` and `*a…a b*` with 16,000 `a`. A naive substring
        // search compares about 16,000 bytes at each of a million positions.
        let text = String(repeating: "a", count: 1_000_000)
        let pattern = "*" + String(repeating: "a", count: 16_000) + "b*"
        for caseSensitive in [true, false] {
            var steps = 0
            let matched = LikePattern(pattern, caseSensitive: caseSensitive).matches(text, steps: &steps)
            #expect(!matched)
            #expect(steps > 0)
            #expect(steps <= 3 * (text.utf8.count + pattern.utf8.count), "\(steps) comparisons")
        }
        // Many middle pieces, each found late: still one pass over the text.
        let pieces = String(repeating: "*aaaab", count: 2_000) + "*"
        let text2 = String(repeating: String(repeating: "a", count: 50) + "b", count: 2_000)
        var steps = 0
        #expect(LikePattern(pieces, caseSensitive: true).matches(text2, steps: &steps))
        #expect(steps <= 3 * (text2.utf8.count + pieces.utf8.count), "\(steps) comparisons")
    }
}
