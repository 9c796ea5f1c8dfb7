// datasync-bench: speed and memory scenarios, each measured side by side with a baseline in the
// same run. Build in release: `swift run -c release datasync-bench [group ...]`.

let groups: [BenchGroup] = [
    BenchGroup(name: "json", run: JSONBenchmarks.run),
    BenchGroup(name: "patch", run: PatchBenchmarks.run),
    BenchGroup(name: "auth", run: AuthBenchmarks.run),
    BenchGroup(name: "filter", run: FilterBenchmarks.run),
    BenchGroup(name: "server", run: ServerBenchmarks.run),
    BenchGroup(name: "emulator", run: EmulatorBenchmarks.run),
    BenchGroup(name: "transport", run: TransportBenchmarks.run),
    BenchGroup(name: "client", run: ClientBenchmarks.run),
    BenchGroup(name: "crypto", run: CryptoBenchmarks.run),
    BenchGroup(name: "pubsub", run: PubSubBenchmarks.run),
    BenchGroup(name: "realtime", run: RealtimeBenchmarks.run),
    BenchGroup(name: "live", run: LiveViewBench.run),
]

let selected = Set(CommandLine.arguments.dropFirst())
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
