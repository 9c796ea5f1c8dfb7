import Foundation

/// One line of the benchmark table: a measurement of ours and, when there is one, of a baseline
/// measured in the same run on the same input.
struct BenchRow {
    var scenario: String
    /// What was measured, for example "ops/s" or "MB/s" or "bytes/object".
    var unit: String
    var ours: Double
    var baselineName: String?
    var baseline: Double?
    /// Whether bigger numbers are better (throughput) or smaller (time, memory).
    var higherIsBetter: Bool = true
    /// What a smoke run accepts as this row's figures; nil to go by the unit
    /// (``smokeExpectation``).
    var expectation: SmokeExpectation? = nil

    /// ours ÷ baseline for throughput, baseline ÷ ours for costs: above 1 means we are ahead.
    var advantage: Double? {
        guard let baseline, baseline > 0, ours > 0 else { return nil }
        return higherIsBetter ? ours / baseline : baseline / ours
    }
}

/// A group of scenarios, selected on the command line by `name`.
struct BenchGroup {
    var name: String
    var run: () async throws -> [BenchRow]
    /// One line for `--help`: what the group measures and against which baseline.
    var summary: String = ""
}

enum Bench {
    /// Runs `body` repeatedly for at least `minimumTime` (after one warm-up call) and returns the
    /// best observed operations per second, where one call performs `operations` operations.
    static func throughput(
        operations: Int = 1, minimumTime: Duration = .milliseconds(400), _ body: () throws -> Void
    ) rethrows -> Double {
        try body()
        var rate = BestRate(operations: operations, minimumTime: minimumTime)
        while rate.wantsMore {
            let start = rate.clock.now
            try body()
            rate.record(since: start)
        }
        return rate.best
    }

    /// The async form of ``throughput(operations:minimumTime:_:)``.
    static func throughputAsync(
        operations: Int = 1, minimumTime: Duration = .milliseconds(400), _ body: () async throws -> Void
    ) async rethrows -> Double {
        try await body()
        var rate = BestRate(operations: operations, minimumTime: minimumTime)
        while rate.wantsMore {
            let start = rate.clock.now
            try await body()
            rate.record(since: start)
        }
        return rate.best
    }

    /// One row comparing two throughputs measured here, ours first: each side is run by
    /// ``throughput(operations:minimumTime:_:)`` and its rate multiplied by `scale` (the megabytes
    /// one call handles, say, for a row in MB/s).
    static func compare(
        _ scenario: String, unit: String, scale: Double = 1, ours: () throws -> Void, baselineName: String,
        baseline: () throws -> Void
    ) rethrows -> BenchRow {
        let oursRate = try throughput(ours)
        let baselineRate = try throughput(baseline)
        return BenchRow(
            scenario: scenario, unit: unit, ours: oursRate * scale, baselineName: baselineName,
            baseline: baselineRate * scale)
    }

    /// Resident set size of this process in bytes (Linux `/proc/self/statm`), or nil elsewhere.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func format(_ value: Double) -> String {
        if value >= 100 { return String(Int(value.rounded())) }
        return String(format: "%.2f", value)
    }

    static func printTable(_ rows: [BenchRow]) {
        let header = ["scenario", "unit", "ours", "baseline", "baseline value", "ratio"]
        var lines: [[String]] = [header]
        for row in rows {
            lines.append([
                row.scenario, row.unit, format(row.ours), row.baselineName ?? "-",
                row.baseline.map(format) ?? "-", row.advantage.map { String(format: "%.2fx", $0) } ?? "-",
            ])
        }
        var widths = Array(repeating: 0, count: header.count)
        for line in lines { for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) } }
        for (number, line) in lines.enumerated() {
            let cells = line.enumerated().map { index, cell in
                cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            print("| " + cells.joined(separator: " | ") + " |")
            if number == 0 {
                print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
            }
        }
        print("ratio: above 1.00x means ours is ahead of the baseline (faster or smaller).")
    }
}

/// The timing loop of ``Bench/throughput(operations:minimumTime:_:)`` and its async form: at
/// least three rounds and at least the minimum time (three rounds alone in smoke mode), keeping
/// the best rate.
private struct BestRate {
    let clock = ContinuousClock()
    let operations: Int
    let deadline: ContinuousClock.Instant
    private(set) var best = 0.0
    private var rounds = 0

    init(operations: Int, minimumTime: Duration) {
        self.operations = operations
        // Smoke mode checks that the loop runs, not how fast: the three rounds are enough.
        deadline = clock.now.advanced(by: Smoke.isOn ? .zero : minimumTime)
    }

    var wantsMore: Bool { clock.now < deadline || rounds < 3 }

    mutating func record(since start: ContinuousClock.Instant) {
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if seconds > 0 { best = max(best, Double(operations) / seconds) }
        rounds += 1
    }
}

/// Why a benchmark could not produce its figures (a broken setup, a connection that failed).
struct BenchFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
