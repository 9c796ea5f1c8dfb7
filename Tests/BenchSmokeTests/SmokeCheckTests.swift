import Testing

@testable import datasync_bench

/// What `datasync-bench --smoke` counts as a broken row: the check that makes CI fail when a
/// group still runs but measures nothing (a refused request timed as fast, a loop that never ran).
@Suite("datasync-bench --smoke: the row check")
struct SmokeCheckTests {
    private static func rate(_ ours: Double, baseline: Double? = 1000) -> BenchRow {
        BenchRow(
            scenario: "a rate", unit: "req/s", ours: ours, baselineName: baseline == nil ? nil : "the baseline",
            baseline: baseline)
    }

    @Test("a sound rate beside a sound baseline passes")
    func soundRow() {
        #expect(Smoke.problems(in: [Self.rate(1200)]).isEmpty)
    }

    @Test(
        "a rate of 0, NaN or infinity fails, naming the row",
        arguments: [0.0, -1.0, Double.nan, Double.infinity])
    func brokenOurs(value: Double) throws {
        let problems = Smoke.problems(in: [Self.rate(value)])
        try #require(problems.count == 1)
        #expect(problems[0].contains("'a rate'"))
        #expect(problems[0].contains("ours"))
    }

    @Test("a baseline of 0 (a ratio of infinity) fails and names the baseline")
    func brokenBaseline() throws {
        let problems = Smoke.problems(in: [Self.rate(1200, baseline: 0)])
        try #require(problems.count == 1)
        #expect(problems[0].contains("the baseline"))
    }

    @Test("a row without a baseline is checked on its own figure only")
    func noBaseline() {
        #expect(Smoke.problems(in: [Self.rate(5, baseline: nil)]).isEmpty)
        #expect(Smoke.problems(in: [Self.rate(0, baseline: nil)]).count == 1)
    }

    @Test("a time of 0 ms fails: a latency no scenario can have")
    func zeroTime() {
        let row = BenchRow(scenario: "p50", unit: "ms", ours: 0, higherIsBetter: false)
        #expect(Smoke.problems(in: [row]).count == 1)
    }

    @Test("memory deltas may be 0 or below at smoke sizes, but not NaN")
    func memoryRows() {
        let zero = BenchRow(scenario: "held", unit: "bytes", ours: 0, higherIsBetter: false)
        let negative = BenchRow(scenario: "heap", unit: "bytes", ours: -12, higherIsBetter: false)
        let nan = BenchRow(scenario: "rss", unit: "MB", ours: .nan, higherIsBetter: false)
        #expect(Smoke.problems(in: [zero, negative]).isEmpty)
        #expect(Smoke.problems(in: [nan]).count == 1)
    }

    @Test("context switches may be 0, never negative")
    func switchCounts() {
        let zero = BenchRow(scenario: "switches", unit: "switches/call", ours: 0, higherIsBetter: false)
        let negative = BenchRow(scenario: "switches", unit: "switches/call", ours: -1, higherIsBetter: false)
        #expect(Smoke.problems(in: [zero]).isEmpty)
        #expect(Smoke.problems(in: [negative]).count == 1)
    }

    @Test("a row's own expectation wins over its unit")
    func explicitExpectation() {
        let idle = BenchRow(scenario: "idle CPU", unit: "ms/min", ours: 0, higherIsBetter: false)
        var allowed = idle
        allowed.expectation = .nonNegative
        #expect(Smoke.problems(in: [idle]).count == 1)
        #expect(Smoke.problems(in: [allowed]).isEmpty)
    }

    @Test("every broken row of a group is reported, not only the first")
    func everyRow() {
        #expect(Smoke.problems(in: [Self.rate(0), Self.rate(1), Self.rate(.nan, baseline: 0)]).count == 3)
    }
}
