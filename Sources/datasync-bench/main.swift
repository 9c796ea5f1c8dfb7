// datasync-bench: speed and memory scenarios, each measured side by side with a baseline in the
// same run. Build in release: `swift run -c release datasync-bench [group ...]`. CI runs every
// group at tiny sizes with `--smoke` (Smoke.swift), which fails when a group stops working.

import ArgumentParsing
import Foundation

// The fanout group's server child is this binary again (FanoutBench.serve).
if ProcessInfo.processInfo.environment[FanoutBench.roleVariable] == FanoutBench.serverRole {
    await FanoutBench.serve()
}

let groups: [BenchGroup] = [
    BenchGroup(
        name: "json", run: JSONBenchmarks.run,
        summary: "JSONCore parse/write/decode vs Foundation's JSONSerialization and JSONDecoder"),
    BenchGroup(name: "patch", run: PatchBenchmarks.run, summary: "JSON Patch apply/diff vs a copying baseline"),
    BenchGroup(
        name: "auth", run: AuthBenchmarks.run,
        summary: "token parsing, permission checks and AuthMiddleware vs plain baselines"),
    BenchGroup(
        name: "filter", run: FilterBenchmarks.run,
        summary: "filter parse + validate and evaluation vs JSONSerialization/hand-written baselines"),
    BenchGroup(
        name: "server", run: ServerBenchmarks.run,
        summary: "the emulator's HTTP server: small GETs, held requests, memory per held request"),
    BenchGroup(
        name: "emulator", run: EmulatorBenchmarks.run,
        summary: "emulator create/get/list/sort/filter at 100k objects, and its memory"),
    BenchGroup(
        name: "emulator-index", run: EmulatorIndexBenchmarks.run,
        summary: "selective filters and first sorts over HTTP at 1k/10k/100k objects vs the full scan (indexes off)"),
    BenchGroup(
        name: "transport", run: TransportBenchmarks.run,
        summary: "curl backend vs URLSession: sequential and 16 concurrent small GETs"),
    BenchGroup(
        name: "roundtrip", run: CurlRoundTripBench.run,
        summary: "getUser over curl against the in-process emulator vs a bare libcurl loop (plain task, main actor)"),
    BenchGroup(
        name: "client", run: ClientBenchmarks.run,
        summary: "typed page decode and request building vs JSONDecoder/JSONEncoder"),
    BenchGroup(
        name: "crypto", run: CryptoBenchmarks.run, summary: "message encryption MB/s vs the raw libcrypto primitive"),
    BenchGroup(
        name: "pubsub", run: PubSubBenchmarks.run,
        summary: "emulator publish rate, publish-to-deliver latency, fan-out, memory per subscriber"),
    BenchGroup(
        name: "fanout", run: FanoutBench.run,
        summary: "publish→deliver p50/p99 and deliveries/s with 1,000 and 10,000 held long-polls vs keep-alive GETs"),
    BenchGroup(
        name: "realtime", run: RealtimeBenchmarks.run,
        summary: "subscribe-answer decode vs the Python SDK, publish-to-onMessage latency, 1,000 subscriptions"),
    BenchGroup(
        name: "subscriptions", run: SubscriptionsBench.run,
        summary: "heap per subscription with a listener (1,000 and 10,000), one message with 10,000 held vs 10"),
    BenchGroup(
        name: "idle", run: IdleBench.run,
        summary: "context switches and CPU per minute of one idle subscription vs the same process with no client"),
    BenchGroup(
        name: "realtime-decode", run: RealtimeBenchmarks.decodeRows,
        summary: "the realtime group's decode rows alone: subscribe answer vs the Python SDK, parse vs json.loads"),
    BenchGroup(
        name: "persistence", run: PersistenceBench.run,
        summary: "emulator write latency with 1k, 10k and 100k stored objects: journal vs whole-file rewrite"),
    BenchGroup(
        name: "publish", run: PublishBench.run,
        summary: "SDK publish round trips (sequential, 16 concurrent) vs the bare transport and the Python SDK"),
    BenchGroup(
        name: "recovery", run: RecoveryBench.run,
        summary: "end of a network fault (refuse/reset, blackhole, stall via FaultProxy) to delivery, vs the 2 s goal"),
    BenchGroup(
        name: "live", run: LiveViewBench.run,
        summary: "events applied to a 10,000-membership live view, its first read, end to end, memory per object"),
]

let width = groups.map(\.name.count).max() ?? 0
let smokeTimeLimit = Int(Smoke.groupTimeLimit.components.seconds)
let smokeExample =
    "datasync-bench " + "--smoke".padding(toLength: width, withPad: " ", startingAt: 0)
    + "  # every group at tiny sizes, each checked (CI)"
let root = Command<Never>(
    name: "datasync-bench", summary: "speed and memory scenarios, each beside a baseline measured in the same run",
    discussion: """
        Runs every group, or only the named ones, and prints one table of rows: each row is our \
        figure, its baseline measured in the same run, and the ratio. Build in release \
        (swift run -c release datasync-bench); figures from a debug build mean nothing. \
        Documentation/Benchmarks.md describes every row.

        --smoke (or DATASYNC_BENCH_SMOKE=1) runs each group at the smallest sizes that still \
        exercise its code paths (a debug build is fine; its figures mean nothing) and exits with \
        status 1, naming the group and the row on standard error, when a group throws, a child \
        process fails, a group runs longer than \(smokeTimeLimit) s, \
        or a figure is not a finite number above 0 where one is expected (memory deltas and \
        context-switch counts may be 0). A group's own environment knobs win over the smoke sizes.

        groups: \(groups.map(\.name).joined(separator: ", "))
        """,
    options: [
        .flag("--smoke", help: "every group at tiny sizes; exit 1 if one fails or reads as broken (CI)")
    ],
    positionals: [
        PositionalSpec(name: "GROUP", help: "a group to run (default: all)", required: false, variadic: true)
    ],
    examples: groups.map {
        "datasync-bench " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  # " + $0.summary
    } + [smokeExample])
let parsed: ParsedArguments
switch ArgumentParser.tool(root).resolve(Array(CommandLine.arguments.dropFirst()), program: root.name) {
case .run(_, let arguments): parsed = arguments
case .exit(let status): exit(status)
}
for name in parsed.positionals where !groups.contains(where: { $0.name == name }) {
    var message = "datasync-bench: unknown group '\(name)'"
    if let suggestion = EditDistance.suggestion(for: name, among: groups.map(\.name)) {
        message += "\ndid you mean '\(suggestion)'?"
    }
    StandardStreams.err(
        message + "\ngroups: " + groups.map(\.name).joined(separator: ", ") + "\nsee 'datasync-bench --help'")
    exit(ExitStatus.usage)
}
if parsed.flag("--smoke") { Smoke.enable() }
let smoke = Smoke.isOn
if smoke { print("smoke mode: tiny sizes, figures mean nothing; checking that every group works") }
let selected = Set(parsed.positionals)
var rows: [BenchRow] = []
var failures: [String] = []
for group in groups where selected.isEmpty || selected.contains(group.name) {
    print("running \(group.name)…")
    let watchdog = smoke ? Smoke.Watchdog(group: group.name) : nil
    do {
        let groupRows = try await group.run()
        rows += groupRows
        if smoke {
            if groupRows.isEmpty { failures.append("group \(group.name): no rows") }
            failures += Smoke.problems(in: groupRows).map { "group \(group.name): \($0)" }
        }
    } catch {
        print("group \(group.name) failed: \(error)")
        failures.append("group \(group.name) threw: \(error)")
    }
    watchdog?.finished()
}
Bench.printTable(rows)
if smoke {
    // Only smoke mode turns a failure into an exit status; a normal run prints and goes on.
    guard failures.isEmpty else {
        for failure in failures { StandardStreams.err("datasync-bench --smoke: FAILED: " + failure) }
        exit(1)
    }
    print("smoke: every group ran; \(rows.count) rows checked")
}
