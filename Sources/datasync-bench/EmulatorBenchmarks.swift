import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore

/// The DataSync emulator at handler level (requests built in memory and answered by the
/// emulator's `respond(to:)`, no sockets): creates, gets and a filtered, sorted list over
/// 100,000 objects, and resident memory per 100,000 objects.
enum EmulatorBenchmarks {
    static let objectCount = Bench.scale(100_000, smoke: 300)
    /// "100k" in the rows' names (the smoke size is printed as it is).
    static let countLabel = objectCount >= 1000 ? "\(objectCount / 1000)k" : "\(objectCount)"

    static func run() async throws -> [BenchRow] {
        let classes: JSONValue = [
            "entityClasses": [
                [
                    "name": "Product",
                    "versions": [
                        [
                            "version": 1,
                            "properties": [
                                ["name": "price", "pointer": "/payload/price", "type": "number", "filtering": "full"],
                                [
                                    "name": "category", "pointer": "/payload/category", "type": "string",
                                    "filtering": "full",
                                ],
                            ],
                        ]
                    ],
                ]
            ]
        ]
        let residentBefore = Bench.residentBytes()
        let emulator = try Emulator(configuration: EmulatorConfiguration(classes: classes))
        let clock = ContinuousClock()
        let start = clock.now
        try await createProducts(in: emulator, count: objectCount, seed: 7) { index in
            ["title": .string("Product number \(index)"), "stock": .int(Int64(index % 37))]
        }
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var rows = [
            BenchRow(
                scenario: "emulator create (\(countLabel) objects)", unit: "req/s", ours: Double(objectCount) / seconds)
        ]
        if let before = residentBefore, let after = Bench.residentBytes() {
            rows.append(
                BenchRow(
                    scenario: "emulator resident memory per \(countLabel) objects", unit: "MB",
                    ours: Double(after - before) / 1e6,
                    higherIsBetter: false))
        }

        var index = 0
        let getsPerRound = Bench.scale(5_000, smoke: 20)
        let getRate = try await Bench.throughputAsync(operations: getsPerRound) {
            for _ in 0..<getsPerRound {
                index = (index &+ 7_919) % objectCount
                let response = await emulator.respond(
                    to: ServerRequest(method: "GET", target: "/v1/datasync/subkeys/bench/entities/p\(index)"))
                guard response.status == 200 else {
                    throw EmulatorError(code: .invalidSeed, message: "get answered \(response.status)")
                }
            }
        }
        rows.append(BenchRow(scenario: "emulator get, \(countLabel) objects", unit: "req/s", ours: getRate))

        let lists: [(String, String)] = [
            ("emulator list default order (id) limit=100, \(countLabel) objects", "limit=100"),
            ("emulator list sort=price:desc limit=20, \(countLabel) objects", "sort=price:desc&limit=20"),
            (
                "emulator list filter_fast category+price, sort=price:desc limit=20, \(countLabel) objects",
                // category == "hats" && price < 500
                "filter_fast=category%20%3D%3D%20%22hats%22%20%26%26%20price%20%3C%20500&sort=price:desc&limit=20"
            ),
        ]
        for (name, query) in lists {
            let target = "/v1/datasync/subkeys/bench/entities?entity_class=Product&" + query
            let probe = await emulator.respond(to: ServerRequest(method: "GET", target: target))
            guard probe.status == 200 else {
                try Smoke.notice(
                    "skipped \(name): answered \(probe.status) \(String(decoding: probe.body, as: UTF8.self))")
                continue
            }
            let rate = try await Bench.throughputAsync(operations: 5, minimumTime: .seconds(2)) {
                for _ in 0..<5 {
                    let response = await emulator.respond(to: ServerRequest(method: "GET", target: target))
                    guard response.status == 200 else {
                        throw EmulatorError(code: .invalidSeed, message: "list answered \(response.status)")
                    }
                }
            }
            rows.append(BenchRow(scenario: name, unit: "req/s", ours: rate))
            // The machine is shared: CPU time per request is steadier than wall-clock rates.
            let cpuStart = processCPUSeconds()
            for _ in 0..<10 { _ = await emulator.respond(to: ServerRequest(method: "GET", target: target)) }
            let cpu = (processCPUSeconds() - cpuStart) / 10
            rows.append(
                BenchRow(scenario: name + " (CPU time)", unit: "ms/req", ours: cpu * 1000, higherIsBetter: false))
        }
        // A write between pages invalidates the sorted snapshot of the class: every list is a full pass.
        let sortedTarget = "/v1/datasync/subkeys/bench/entities?entity_class=Product&sort=price:desc&limit=20"
        let putHeaders = [(name: "Content-Type", value: "application/vnd.pubnub.objects.entity+json;version=1")]
        let putBody = try
            (["data": ["entityClassVersion": 1, "status": "touched", "payload": ["price": 1.5]]] as JSONValue)
            .jsonBytes()
        let cpuStart = processCPUSeconds()
        for round in 0..<10 {
            _ = await emulator.respond(
                to: ServerRequest(
                    method: "PUT", target: "/v1/datasync/subkeys/bench/entities/p\(round)", headers: putHeaders,
                    body: putBody))
            _ = await emulator.respond(to: ServerRequest(method: "GET", target: sortedTarget))
        }
        rows.append(
            BenchRow(
                scenario:
                    "emulator write + list sort=price:desc (no snapshot: one heap pass), \(countLabel) objects (CPU time)",
                unit: "ms/pair", ours: (processCPUSeconds() - cpuStart) / 10 * 1000, higherIsBetter: false))
        return rows
    }

    /// Creates `count` Product entities (ids `p0`, `p1`, …) through the emulator's
    /// `respond(to:)`, no sockets: each with a price drawn from a generator seeded with `seed`,
    /// one of five categories in turn, and the payload fields `extra` gives for its index.
    static func createProducts(
        in emulator: Emulator, count: Int, seed: UInt64, extra: (Int) -> [String: JSONValue]
    ) async throws {
        let headers = [(name: "Content-Type", value: "application/vnd.pubnub.objects.entity+json;version=1")]
        var generator = SeededRandomNumberGenerator(seed: seed)
        let categories = ["shoes", "hats", "bags", "coats", "socks"]
        for index in 0..<count {
            var payload = extra(index)
            payload["price"] = .double(Double(Int.random(in: 100...99_999, using: &generator)) / 100)
            payload["category"] = .string(categories[index % categories.count])
            let body: JSONValue = [
                "data": [
                    "id": .string("p\(index)"), "entityClass": "Product", "entityClassVersion": 1, "status": "active",
                    "payload": .object(JSONObject(payload)),
                ]
            ]
            let response = await emulator.respond(
                to: ServerRequest(
                    method: "POST", target: "/v1/datasync/subkeys/bench/entities", headers: headers,
                    body: try body.jsonBytes()))
            guard response.status == 201 else { throw BenchFailure(message: "create answered \(response.status)") }
        }
    }

    /// CPU time used by the whole process so far, in seconds.
    static func processCPUSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
