// datasync-bench: speed and memory scenarios, each measured side by side with a baseline in the
// same run. Build in release: `swift run -c release datasync-bench [group ...]`.

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
let root = Command<Never>(
    name: "datasync-bench", summary: "speed and memory scenarios, each beside a baseline measured in the same run",
    discussion: """
        Runs every group, or only the named ones, and prints one table of rows: each row is our \
        figure, its baseline measured in the same run, and the ratio. Build in release \
        (swift run -c release datasync-bench); figures from a debug build mean nothing. \
        Documentation/Benchmarks.md describes every row.

        groups: \(groups.map(\.name).joined(separator: ", "))
        """,
    positionals: [
        PositionalSpec(name: "GROUP", help: "a group to run (default: all)", required: false, variadic: true)
    ],
    examples: groups.map {
        "datasync-bench " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  # " + $0.summary
    })
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
let selected = Set(parsed.positionals)
var rows: [BenchRow] = []
for group in groups where selected.isEmpty || selected.contains(group.name) {
    print("running \(group.name)…")
    do {
        rows += try await group.run()
    } catch {
        print("group \(group.name) failed: \(error)")
    }
}
Bench.printTable(rows)
