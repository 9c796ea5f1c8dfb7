import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore

/// Selective lists over HTTP (keep-alive loopback socket, raw requests) at 1k, 10k and 100k
/// objects, each against the same emulator loaded the same way with its property indexes off
/// (the full scan they replace), in the same run (issue 22, point 4).
enum EmulatorIndexBenchmarks {
    static let sizes = Bench.scale([1_000, 10_000, 100_000], smoke: [300])

    static let classes: JSONValue = [
        "entityClasses": [
            [
                "name": "Product",
                "versions": [
                    [
                        "version": 1,
                        "properties": [
                            ["name": "sku", "pointer": "/payload/sku", "type": "string", "filtering": "simple"],
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

    static let listPrefix = "/v1/datasync/subkeys/bench/entities?entity_class=Product&"

    /// The rows: (scenario, query, whether a write precedes every list).
    static let scenarios: [(name: String, query: String, writeFirst: Bool)] = [
        // sku == "sku-77": one match
        ("filter_fast sku == one value (1 match)", "filter_fast=sku%20%3D%3D%20%22sku-77%22", false),
        // price >= 500 && price < 501: about 0.1% of the class
        (
            "filter_fast price range (0.1% match), sort=price:desc",
            "filter_fast=price%20%3E%3D%20500%20%26%26%20price%20%3C%20501&sort=price:desc", false
        ),
        ("write, then sort=price:desc limit=20 (first sort after a write)", "sort=price:desc&limit=20", true),
        (
            "write, then filter_fast category == (20% match) sort=price:desc limit=20",
            "filter_fast=category%20%3D%3D%20%22hats%22&sort=price:desc&limit=20", true
        ),
    ]

    static func run() async throws -> [BenchRow] {
        var rows: [BenchRow] = []
        for size in sizes {
            let indexed = try await loaded(size: size, indexes: true)
            let scanning = try await loaded(size: size, indexes: false)
            let indexedPort = try await port(of: indexed)
            let scanningPort = try await port(of: scanning)
            for scenario in scenarios {
                let target = listPrefix + scenario.query
                let (ours, oursBody) = try await LoopbackSocket.onThread {
                    try measure(port: indexedPort, target: target, size: size, writeFirst: scenario.writeFirst)
                }
                let (baseline, baselineBody) = try await LoopbackSocket.onThread {
                    try measure(port: scanningPort, target: target, size: size, writeFirst: scenario.writeFirst)
                }
                // Both emulators hold the same objects: the read-only answers must agree.
                let agree = scenario.writeFirst || oursBody == baselineBody ? "" : " (ANSWERS DIFFER)"
                if !agree.isEmpty, Smoke.isOn {
                    throw BenchFailure(message: "emulator-index: \(scenario.name), \(size) objects: the answers differ")
                }
                let count = size >= 1000 ? "\(size / 1000)k" : "\(size)"
                rows.append(
                    BenchRow(
                        scenario: "emulator over HTTP: \(scenario.name), \(count) objects\(agree)",
                        unit: scenario.writeFirst ? "ms/(write+list)" : "ms/req", ours: ours,
                        baselineName: "same, property indexes off (full scan)", baseline: baseline,
                        higherIsBetter: false))
            }
            await indexed.stop()
            await scanning.stop()
        }
        return rows
    }

    private static func loaded(size: Int, indexes: Bool) async throws -> Emulator {
        var configuration = EmulatorConfiguration(
            classes: classes, startTime: Date(timeIntervalSince1970: 1_788_766_495))
        configuration.propertyIndexes = indexes
        let emulator = try Emulator(configuration: configuration)
        try await EmulatorBenchmarks.createProducts(in: emulator, count: size, seed: 11) { index in
            ["sku": .string("sku-\(index)")]
        }
        return emulator
    }

    private static func port(of emulator: Emulator) async throws -> UInt16 {
        let url = try await emulator.start()
        guard let port = url.port.flatMap({ UInt16(exactly: $0) }) else {
            throw BenchFailure(message: "no port in \(url)")
        }
        return port
    }

    /// Milliseconds per list (or per write + list), the best of repeated rounds, and the last answer.
    private static func measure(port: UInt16, target: String, size: Int, writeFirst: Bool) throws -> (
        Double, String
    ) {
        let fd = try LoopbackSocket.connect(port: port)
        defer { close(fd) }
        var round = 0
        var last = ""
        let batch = Bench.scale(size >= 100_000 ? 4 : (size >= 10_000 ? 20 : 100), smoke: 3)
        let rate = try Bench.throughput(operations: batch, minimumTime: .milliseconds(600)) {
            for _ in 0..<batch {
                if writeFirst {
                    round += 1
                    let body =
                        #"{"data":{"entityClassVersion":1,"status":"touched","payload":{"sku":"w\#(round)","#
                        + #""price":\#(round % 1000).5,"category":"hats"}}}"#
                    let put = try exchange(
                        fd,
                        "PUT /v1/datasync/subkeys/bench/entities/p\(round % size) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            + "Content-Type: application/vnd.pubnub.objects.entity+json;version=1\r\n"
                            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
                    guard put.status == 200 else { throw BenchFailure(message: "PUT answered \(put.status)") }
                }
                let list = try exchange(fd, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                guard list.status == 200 else { throw BenchFailure(message: "GET answered \(list.status)") }
                last =
                    (try? JSONValue(parsing: list.body))?["data"]?.arrayValue?
                    .compactMap { $0["id"]?.stringValue }.joined(separator: ",") ?? list.body
            }
        }
        return (1000 / rate, last)
    }

    /// Sends one request and reads one `Content-Length` framed response.
    private static func exchange(_ fd: Int32, _ request: String) throws -> (status: Int, body: String) {
        try LoopbackSocket.writeAll(fd, Array(request.utf8))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let end = data.firstRange(of: [13, 10, 13, 10]) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
                let lines = head.split(separator: "\r\n")
                let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
                let length =
                    lines.first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if data.count - end.upperBound >= length {
                    return (status, String(decoding: data[end.upperBound..<end.upperBound + length], as: UTF8.self))
                }
            }
            data += try LoopbackSocket.readSome(fd, into: &buffer)
        }
    }
}
