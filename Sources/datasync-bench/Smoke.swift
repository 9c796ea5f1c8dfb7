import DataSyncTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Smoke mode (`--smoke`, or `DATASYNC_BENCH_SMOKE=1`): every group runs its real code paths at
/// the smallest sizes that still exercise them, and the run fails when a group throws or a row
/// reads as a scenario that did not work (a rate of 0, NaN, an infinite ratio). CI runs it so a
/// group that stops working is seen the day it breaks, not weeks later: the figures of a smoke
/// run mean nothing, only whether each group still produces them.
///
/// The mode lives in the environment rather than in a flag alone so the children some groups
/// start from this binary (the fan-out server, the live view's memory probes) pick their sizes
/// the same way as their parent.
enum Smoke {
    static let variable = "DATASYNC_BENCH_SMOKE"

    /// Read on each use, not cached: `--smoke` sets the variable after the process started.
    static var isOn: Bool {
        guard let value = getenv(variable) else { return false }
        let text = String(cString: value)
        return !text.isEmpty && text != "0"
    }

    /// Turns smoke mode on for this process and every child it starts.
    static func enable() { setenv(variable, "1", 1) }

    /// How long one group may run in smoke mode before the run fails as hung.
    static let groupTimeLimit: Duration = .seconds(240)

    /// Why the figures of `rows` say their group did not really run; empty when they look sound.
    static func problems(in rows: [BenchRow]) -> [String] {
        rows.flatMap { row in
            var found: [String] = []
            let expectation = row.smokeExpectation
            if let complaint = expectation.complaint(about: row.ours) {
                found.append("row '\(row.scenario)': ours is \(row.ours) \(row.unit) (\(complaint))")
            }
            if let baseline = row.baseline, let complaint = expectation.complaint(about: baseline) {
                found.append(
                    "row '\(row.scenario)': the baseline (\(row.baselineName ?? "-")) is \(baseline) \(row.unit) "
                        + "(\(complaint))")
            }
            return found
        }
    }

    /// A state a group reports instead of rows (a missing child binary, answers that differ): in a
    /// normal run it is printed and the group goes on; in smoke mode it fails the group.
    static func notice(_ message: String) throws {
        if isOn { throw BenchFailure(message: message) }
        print(message)
    }

    /// `figure` as it is, except in smoke mode with `PUBNUB_PYTHON` set (as CI sets it), where a
    /// Python baseline that did not come back (the script failed, the package is missing) fails
    /// the group instead of leaving the row without its baseline.
    static func expectPython(_ figure: Double?, _ what: String) throws -> Double? {
        if figure == nil, isOn, let python = getenv("PUBNUB_PYTHON"), strlen(python) > 0 {
            throw BenchFailure(message: "the Python SDK's \(what) baseline failed (PUBNUB_PYTHON is set)")
        }
        return figure
    }

    /// Ends the process with a failure naming `group` if it is still running after
    /// ``groupTimeLimit``: a hung group must fail the CI step, not hold it until CI's own budget
    /// runs out. Call ``Watchdog/finished()`` when the group returns.
    final class Watchdog: @unchecked Sendable {
        // @unchecked Sendable: `done` is only touched while holding `condition`.
        private let condition = NSCondition()
        private var done = false

        init(group: String, limit: Duration = Smoke.groupTimeLimit) {
            let seconds = Double(limit.components.seconds)
            Thread { [self] in
                let deadline = Date(timeIntervalSinceNow: seconds)
                condition.lock()
                while !done, condition.wait(until: deadline) {}
                let finished = done
                condition.unlock()
                guard !finished else { return }
                FileHandle.standardError.write(
                    Data("datasync-bench --smoke: FAILED: group \(group) still running after \(Int(seconds)) s\n".utf8))
                // `exit` runs no `defer`: the emulators the group started would outlive the run.
                Smoke.children.killAll()
                exit(1)
            }.start()
        }

        func finished() {
            condition.lock()
            done = true
            condition.signal()
            condition.unlock()
        }
    }
}

extension Smoke {
    /// Children that would outlive this process if it ended without their owner's cleanup (an
    /// emulator behind `/bin/sh -c exec`): the watchdog kills them before it ends a hung run.
    /// The fan-out server ends by itself when its parent does, and the other children finish
    /// on their own.
    static let children = Children()

    final class Children: @unchecked Sendable {
        // @unchecked Sendable: `started` is only touched while holding `lock`.
        private let lock = NSLock()
        private var started: [ChildProcess] = []

        func add(_ child: ChildProcess) {
            lock.withLock { started.append(child) }
        }

        /// `SIGKILL` to each child still running (``ChildProcess/send(_:)`` skips those that ended).
        func killAll() {
            for child in lock.withLock({ started }) { child.send(SIGKILL) }
        }
    }
}

extension Bench {
    /// `full` in a normal run, `smoke` in smoke mode: how every group picks its sizes, rounds,
    /// trials and windows, so a knob of its own in the environment (read before this is called)
    /// still wins over both.
    static func scale<Value>(_ full: Value, smoke: Value) -> Value {
        Smoke.isOn ? smoke : full
    }
}

/// What a smoke run accepts as a row's figure.
enum SmokeExpectation: Sendable {
    /// A rate, a time or a size that any working scenario makes above zero.
    case positive
    /// A count that may honestly be zero at smoke sizes (context switches, CPU over an idle window).
    case nonNegative
    /// A memory delta: at smoke sizes it is below the noise and may be zero or even negative.
    case finite

    /// Why `value` cannot be a figure of a scenario that worked, or nil when it can.
    func complaint(about value: Double) -> String? {
        if value.isNaN { return "not a number" }
        if !value.isFinite { return "infinite" }
        switch self {
        case .positive where value <= 0: return "expected above 0"
        case .nonNegative where value < 0: return "expected 0 or more"
        default: return nil
        }
    }
}

extension BenchRow {
    /// The row's own ``expectation`` if it set one, else one from its unit: memory rows are
    /// ``SmokeExpectation/finite``, context-switch counts ``SmokeExpectation/nonNegative``, every
    /// other figure (rates, times, sizes) ``SmokeExpectation/positive``.
    var smokeExpectation: SmokeExpectation {
        if let expectation { return expectation }
        if unit == "bytes" || unit == "MB" { return .finite }
        if unit.hasPrefix("switches") { return .nonNegative }
        return .positive
    }
}
