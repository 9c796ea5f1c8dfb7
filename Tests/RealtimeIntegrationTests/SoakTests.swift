import DataSync
import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import JSONCore
import Messaging
import PubNubCore
import Realtime
import Testing
import Transport

/// How long the soak runs: 60 s by default (CI), longer with `DATASYNC_SOAK_SECONDS`.
let soakSeconds =
    ProcessInfo.processInfo.environment["DATASYNC_SOAK_SECONDS"].flatMap { Int($0) }.map {
        max(10, $0)
    } ?? 60

/// What the subscriber under test heard, in arrival order.
private final class SoakRecord: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written with `lock` held.
    private let lock = NSLock()
    private var numbers: [Int] = []
    private var eTags: [String] = []
    private var gapCount = 0
    private var statusList: [PubNubStatus] = []
    private var fences: Set<String> = []

    func message(_ message: PubNubMessage) {
        lock.withLock {
            if case .string(let fence) = message.payload {
                fences.insert(fence)
            } else if let number = message.payload["n"]?.int64Value {
                numbers.append(Int(number))
            }
        }
    }

    func event(_ event: PubNubDataSyncEvent) {
        lock.withLock {
            if let eTag = event.entity?.eTag { eTags.append(eTag) }
        }
    }

    func gap() { lock.withLock { gapCount += 1 } }
    func status(_ status: PubNubStatus) { lock.withLock { statusList.append(status) } }

    var snapshot: (numbers: [Int], eTags: [String], gaps: Int, statuses: [PubNubStatus], fences: Set<String>) {
        lock.withLock { (numbers, eTags, gapCount, statusList, fences) }
    }
}

/// Issue 30 §3: a client subscribed through a fault proxy to a channel and to a DataSync entity,
/// for a minute of resets, blackholes, latency, cut answers, stalls and refused connects, while
/// PubNub's Python SDK publishes and REST writes change the entity, both straight to the emulator.
/// Every message must arrive once and in order, every DataSync change once (or a gap signal must
/// say some may be missing), and the status stream must end connected with every failure it
/// reported followed by a recovery.
///
/// Real time on purpose: the proxy, the Python peer and the client's reconnection all run on the
/// system clock, as they would in the field. Nothing asserts on a duration.
@Suite(
    "Soak: a subscriber through a hostile network", .enabled(if: PythonInterop.python != nil),
    .timeLimit(.minutes(max(4, soakSeconds / 60 + 3))))
struct SoakTests {
    static let channel = "soak.messages"
    static let entityId = "soak-doc"
    static let classes: JSONValue = [
        "entityClasses": [
            [
                "name": "SoakDoc", "eventsEnabled": true,
                "versions": [
                    ["version": 1, "properties": [["name": "n", "pointer": "/payload/n", "type": "integer"]]]
                ],
            ]
        ]
    ]

    /// One cycle of faults, each followed by a fault-free window a little longer than a reconnection
    /// of the client below takes at its worst.
    static let schedule: [FaultProxy.Step] = [
        .init(.none, for: .seconds(4)), .init(.reset, for: .seconds(1)),
        .init(.none, for: .seconds(4)), .init(.blackhole, for: .seconds(5)),
        .init(.none, for: .seconds(4)), .init(.latency(.milliseconds(150)), for: .seconds(3)),
        .init(.none, for: .seconds(4)), .init(.truncate, for: .seconds(1)),
        .init(.none, for: .seconds(4)), .init(.stall, for: .seconds(4)),
        .init(.none, for: .seconds(4)), .init(.refuse, for: .seconds(2)),
    ]

    @Test("every message once and in order, every change once or a gap, statuses that end connected")
    func soak() async throws {
        let python = try #require(PythonInterop.python)
        let emulator = try Emulator(configuration: EmulatorConfiguration(classes: Self.classes))
        let url = try await emulator.start()
        let port = try #require(url.port)
        let proxy = try FaultProxy(upstreamPort: port)
        defer { proxy.stop() }

        var writerConfiguration = PubNubConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: "soak-writer", origin: "127.0.0.1:\(port)",
            useSecureConnections: false, transport: try CurlHTTPClient())
        writerConfiguration.heartbeatInterval = .zero
        let writer = PubNub(configuration: writerConfiguration)
        // The client under test: through the proxy, with a reconnection policy an app that wants
        // to be back quickly would pick (the default climbs to 150 s between attempts).
        var watcherConfiguration = PubNubConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: "soak-watcher", origin: "127.0.0.1:\(proxy.port)",
            useSecureConnections: false, transport: try CurlHTTPClient())
        watcherConfiguration.heartbeatInterval = .zero
        watcherConfiguration.subscribeReconnectionPolicy = .exponential(
            minimumDelay: .seconds(1), maximumDelay: .seconds(4))
        let watcher = PubNub(configuration: watcherConfiguration)

        // Created before the watcher subscribes: only the updates below are expected as events.
        _ = try await writer.dataSync.createEntity(
            className: "SoakDoc", classVersion: 1, id: Self.entityId, payload: ["n": 0])
        var eTagsWritten: [String] = []
        let record = SoakRecord()
        watcher.onMessage = { record.message($0) }
        watcher.onDataSync = { record.event($0) }
        watcher.onDataSyncGap = { _ in record.gap() }
        let statuses = Task {
            for await status in watcher.statuses(bufferingPolicy: .unbounded) where status.operation == .subscribe {
                record.status(status)
            }
        }
        defer { statuses.cancel() }
        watcher.subscribe(to: [Self.channel, Self.entityId])
        try await waitUntil("the watcher connects") { record.snapshot.statuses.contains { $0.category == .connected } }

        let faults = Task { try await proxy.run(Self.schedule, repeating: true) }
        let publisher = try ChildProcess(
            executable: python,
            arguments: [
                PythonInterop.script("soak_publish.py").path, "127.0.0.1:\(port)", Self.channel, "\(soakSeconds)",
                "100",
            ])
        // REST writes straight to the emulator, about two a second, while the publisher runs.
        while publisher.isRunning {
            let updated = try await writer.dataSync.updateEntity(
                id: Self.entityId,
                operations: [.replace(path: "/payload/n", value: JSONValue.int(Int64(eTagsWritten.count)))])
            eTagsWritten.append(updated.eTag)
            // Pacing, not waiting for a state: the soak runs against a real minute of faults and a
            // real Python publisher, so the writes are spread over it.
            try await Task.sleep(for: .milliseconds(500))
        }
        let result = try await publisher.finish(timeout: .seconds(30))
        #expect(result.status == 0, "the Python publisher failed: \(result.standardOutput)\(result.standardError)")
        faults.cancel()
        _ = await faults.result
        proxy.set(.none)
        let sent = result.standardOutput.split(separator: "\n").compactMap { line -> Int? in
            line.hasPrefix("DONE ") ? Int(line.dropFirst(5)) : nil
        }.first
        let published = try #require(sent, "no DONE line: \(result.standardOutput)")

        // Fences, published once the network is healed: everything before them has arrived once
        // they have (the bus keeps one order per keyset).
        _ = try await writer.publish(channel: Self.channel, message: "fence-messages")
        _ = try await writer.publish(channel: Self.entityId, message: "fence-events")
        try await waitUntil("both fences arrive") {
            record.snapshot.fences.isSuperset(of: ["fence-messages", "fence-events"])
        }

        let heard = record.snapshot
        #expect(published > 0)
        #expect(heard.numbers == Array(0..<published), "messages lost, duplicated or reordered")
        let written = eTagsWritten
        #expect(Set(heard.eTags).count == heard.eTags.count, "a DataSync change arrived twice")
        #expect(heard.eTags == written.filter(Set(heard.eTags).contains), "DataSync changes out of order")
        if heard.eTags.count < written.count {
            #expect(heard.gaps > 0, "\(written.count - heard.eTags.count) changes missing and no gap signal")
        }
        Self.checkStatuses(heard.statuses)
        let stats = proxy.statistics
        #expect(stats.resets > 0 || stats.truncated > 0, "the schedule never hit a connection: \(stats)")
        print(
            "soak: \(soakSeconds) s, \(published) messages, \(written.count) DataSync writes, "
                + "\(heard.eTags.count) change events, \(heard.gaps) gap signals, \(heard.statuses.count) statuses, "
                + "proxy \(stats)")
        watcher.unsubscribeAll()
        await emulator.stop()
    }

    /// The status stream told the truth: it ends connected, every failure it reported is followed
    /// by a recovery, and it says `reconnected` only after reporting a failure.
    static func checkStatuses(_ statuses: [PubNubStatus]) {
        let failures: Set<PubNubStatus.Category> = [.unexpectedDisconnect, .networkIssues, .timeout]
        let recoveries: Set<PubNubStatus.Category> = [.connected, .reconnected]
        let categories = statuses.map(\.category)
        let lastFailure = categories.lastIndex { failures.contains($0) }
        let lastRecovery = categories.lastIndex { recoveries.contains($0) }
        #expect(lastRecovery != nil, "never connected: \(categories)")
        if let lastFailure, let lastRecovery {
            #expect(lastRecovery > lastFailure, "the stream ends in a failure: \(categories)")
        }
        var failedSinceRecovery = false
        for status in statuses {
            if failures.contains(status.category) { failedSinceRecovery = true }
            if status.category == .reconnected {
                #expect(failedSinceRecovery, "reconnected without a failure before it: \(categories)")
            }
            if recoveries.contains(status.category) { failedSinceRecovery = false }
            #expect(
                !(status.isError && !status.willAutomaticallyRetry && status.category != .malformedResponse),
                "the loop gave up: \(status)")
        }
    }

    /// Waits until `condition` holds; fails naming `what` after two minutes (the network is healed
    /// by then, so a wait that long means something is stuck).
    func waitUntil(_ what: String, _ condition: @Sendable () -> Bool) async throws {
        guard await eventually(limit: .seconds(120), condition) else {
            throw SoakFailure("timed out waiting until \(what)")
        }
    }
}

private struct SoakFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
