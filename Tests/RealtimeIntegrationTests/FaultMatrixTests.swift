import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import Messaging
import Realtime
import Testing

/// One row of the fault matrix (`Documentation/RealtimeFaults.md`): a fault the emulator injects,
/// how the test drives the subscriber through it, and what must come out: the messages (by their
/// `n`, in order: nothing lost, nothing twice) and the exact categories of the subscribe loop's
/// statuses (and of heartbeat statuses).
struct FaultScenario: Sendable, CustomTestStringConvertible {
    let name: String
    var pubSub = PubSubConfiguration()
    var configure: @Sendable (inout PubNubConfiguration) -> Void = { _ in }
    let messages: [Int]
    let statuses: [PubNubStatus.Category]
    var heartbeatStatuses: [PubNubStatus.Category] = []
    /// Whether the loop ends receiving, so a fence message can be published after the drive.
    var endsReceiving = true
    /// Statuses that may follow ``statuses`` any number of times (the last repetition possibly
    /// cut short), for a scenario whose timeouts are real time and so depend on the machine's speed.
    var mayRepeat: [PubNubStatus.Category] = []
    let drive: @Sendable (RealtimeFixture) async throws -> Void

    var testDescription: String { name }
}

extension FaultScenario {
    /// Whether `categories` are ``statuses`` followed by repetitions of ``mayRepeat``.
    func accepts(_ categories: [PubNubStatus.Category]) -> Bool {
        guard categories.starts(with: statuses) else { return false }
        let tail = Array(categories.dropFirst(statuses.count))
        if mayRepeat.isEmpty { return tail.isEmpty }
        return tail.enumerated().allSatisfy { index, category in category == mayRepeat[index % mayRepeat.count] }
    }
}

extension FaultScenario {
    /// A long-poll after message 4 meets `fault`; messages 5…`last` are published while the loop is
    /// down and arrive after its one reconnection.
    static func longPollFault(
        _ name: String, _ fault: PubSubFault, through last: Int,
        pubSub: PubSubConfiguration = PubSubConfiguration(), messages: [Int]? = nil
    ) -> FaultScenario {
        FaultScenario(
            name: name, pubSub: pubSub, messages: messages ?? Array(1...last),
            statuses: [.connected, .unexpectedDisconnect, .reconnected]
        ) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(fault, 4)
            await fixture.waitFor(.unexpectedDisconnect)
            try await fixture.publish(RealtimeFixture.channel, 5...last)
            await fixture.fireReconnectTimer()
        }
    }

    /// The first handshake meets `fault` and reports `category` (then `check` looks at the
    /// fixture); the reconnection's handshake succeeds and messages 1…3 arrive.
    static func handshakeFault(
        _ name: String, _ fault: PubSubFault, _ category: PubNubStatus.Category,
        check: @escaping @Sendable (RealtimeFixture) async -> Void = { _ in }
    ) -> FaultScenario {
        FaultScenario(name: name, messages: Array(1...3), statuses: [category, .reconnected]) { fixture in
            fixture.emulator.injectFault(fault, on: .subscribe)
            fixture.subscriber.subscribe(to: [RealtimeFixture.channel])
            await fixture.waitFor(category)
            await check(fixture)
            await fixture.fireReconnectTimer()
            await fixture.waitForReceive(handshakes: 2)
            try await fixture.publish(RealtimeFixture.channel, 1...3)
        }
    }

    /// The first heartbeat (every 30 s) meets `fault` (`count` times queued, the rest cleared
    /// once the status came) and reports `category`; the next heartbeat is answered, and the
    /// subscribe loop never notices.
    static func heartbeatFault(
        _ name: String, _ fault: PubSubFault, count: Int = 1, _ category: PubNubStatus.Category
    ) -> FaultScenario {
        FaultScenario(
            name: name, configure: { $0.heartbeatInterval = .seconds(30) }, messages: Array(1...3),
            statuses: [.connected], heartbeatStatuses: [category],
            drive: { fixture in
                fixture.emulator.injectFault(fault, on: .presence, count: count)
                try await fixture.goLive()
                #expect(await fixture.timeline.waitForStatuses(1, .heartbeat))
                fixture.emulator.clearFaults()
                await fixture.clock.waitForSleepers(1)
                fixture.clock.advance(by: .seconds(30))
                await fixture.observer.waitAnswered(.heartbeat, 2)
            })
    }
}

extension RealtimeFixture {
    static let channel = "faults"

    /// Subscribes, waits for the long-poll and delivers messages 1…3 live.
    func goLive() async throws {
        #expect(await subscribe([Self.channel]))
        await waitForReceive()
        try await publish(Self.channel, 1...3)
        #expect(await timeline.waitForMessages(3))
    }

    /// Queues `fault` for the next subscribe request, then publishes `n`: the long-poll held now
    /// delivers it, and the one after it meets the fault.
    func faultAfterDelivering(_ fault: PubSubFault, count: Int = 1, _ n: Int) async throws {
        await waitForHeldPoll()
        emulator.injectFault(fault, on: .subscribe, count: count)
        try await publish(Self.channel, n...n)
        #expect(await timeline.waitForMessages(n))
    }

    /// Returns once a long-poll is held by the emulator (past its fault check), so a fault queued
    /// now meets the request after it. Yields between checks, as `ManualClock.waitForSleepers` does.
    func waitForHeldPoll() async {
        let emulator = emulator
        #expect(await eventually { emulator.heldSubscribeCount >= 1 })
    }

    func waitFor(_ category: PubNubStatus.Category, _ occurrence: Int = 1) async {
        #expect(await timeline.waitForStatus(category, occurrence: occurrence), "\(category) #\(occurrence)")
    }
}

extension FaultScenario {
    static let all: [FaultScenario] = [
        FaultScenario(
            name: "reset before the answer of a long-poll on a reused connection (the transport resends it)",
            messages: Array(1...8), statuses: [.connected]
        ) { fixture in
            try await fixture.goLive()
            let arrived = fixture.observer.snapshot.arrived[.receive, default: 0]
            try await fixture.faultAfterDelivering(.resetBeforeBody, 4)
            // The reset long-poll and its resend on a fresh connection, which is held.
            await fixture.observer.waitArrived(.receive, arrived + 2)
            try await fixture.publish(RealtimeFixture.channel, 5...8)
        },
        FaultScenario(
            name: "reset before the answer of a long-poll and of its resend", messages: Array(1...8),
            statuses: [.connected, .unexpectedDisconnect, .reconnected]
        ) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(.resetBeforeBody, count: 2, 4)
            await fixture.waitFor(.unexpectedDisconnect)
            try await fixture.publish(RealtimeFixture.channel, 5...8)
            await fixture.fireReconnectTimer()
        },
        FaultScenario(
            name: "connection cut halfway through an answer carrying a message", messages: Array(1...8),
            statuses: [.connected, .unexpectedDisconnect, .reconnected]
        ) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(.resetDuringBody, 4)
            try await fixture.publish(RealtimeFixture.channel, 5...5)
            await fixture.waitFor(.unexpectedDisconnect)
            try await fixture.publish(RealtimeFixture.channel, 6...8)
            await fixture.fireReconnectTimer()
        },
        FaultScenario(
            name: "reset on the handshake", messages: Array(1...3), statuses: [.networkIssues, .reconnected]
        ) { fixture in
            fixture.emulator.injectFault(.resetBeforeBody, on: .subscribe)
            fixture.subscriber.subscribe(to: [RealtimeFixture.channel])
            await fixture.waitFor(.networkIssues)
            await fixture.fireReconnectTimer()
            await fixture.waitFor(.reconnected)
            await fixture.waitForReceive(handshakes: 2)
            try await fixture.publish(RealtimeFixture.channel, 1...3)
        },
        .longPollFault("HTTP 500 on a long-poll", .status(500), through: 6),
        .handshakeFault("HTTP 502 on the handshake", .status(502), .networkIssues) { fixture in
            #expect(fixture.timeline.statuses.first?.statusCode == 502)
        },
        FaultScenario(
            name: "HTTP 503 on a long-poll and the next two handshakes", messages: Array(1...7),
            statuses: [.connected, .unexpectedDisconnect, .networkIssues, .networkIssues, .reconnected]
        ) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(.status(503), count: 3, 4)
            await fixture.waitFor(.unexpectedDisconnect)
            try await fixture.publish(RealtimeFixture.channel, 5...7)
            await fixture.fireReconnectTimer()
            await fixture.waitFor(.networkIssues, 1)
            await fixture.fireReconnectTimer()
            await fixture.waitFor(.networkIssues, 2)
            await fixture.fireReconnectTimer()
        },
        FaultScenario(
            name: "HTTP 429 with Retry-After on a long-poll", messages: Array(1...6),
            statuses: [.connected, .unexpectedDisconnect, .reconnected]
        ) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(.tooManyRequests(retryAfterSeconds: 7), 4)
            await fixture.waitFor(.unexpectedDisconnect)
            #expect(fixture.timeline.statuses.last?.statusCode == 429)
            try await fixture.publish(RealtimeFixture.channel, 5...6)
            await fixture.clock.waitForSleepers(1)
            #expect(fixture.clock.requestedSleeps.last == .seconds(7))
            fixture.clock.advance(by: .seconds(6))
            #expect(fixture.clock.sleeperCount == 1)
            fixture.clock.advance(by: .seconds(1))
        },
        FaultScenario(
            name: "HTTP 429 with Retry-After on the handshake", messages: Array(1...3),
            statuses: [.networkIssues, .reconnected]
        ) { fixture in
            fixture.emulator.injectFault(.tooManyRequests(retryAfterSeconds: 30), on: .subscribe)
            fixture.subscriber.subscribe(to: [RealtimeFixture.channel])
            await fixture.waitFor(.networkIssues)
            await fixture.clock.waitForSleepers(1)
            #expect(fixture.clock.requestedSleeps.last == .seconds(30))
            fixture.clock.advance(by: .seconds(30))
            await fixture.waitForReceive(handshakes: 2)
            try await fixture.publish(RealtimeFixture.channel, 1...3)
        },
        FaultScenario(
            name: "403 on a long-poll, then a new token", messages: Array(1...7),
            statuses: [.connected, .accessDenied, .connected]
        ) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(.forbidden, 4)
            await fixture.waitFor(.accessDenied)
            #expect(fixture.timeline.statuses.last?.willAutomaticallyRetry == false)
            try await fixture.publish(RealtimeFixture.channel, 5...7)
            #expect(fixture.clock.sleeperCount == 0)
            fixture.subscriber.set(token: "fresh-token")
            await fixture.waitFor(.connected, 2)
            #expect(fixture.observer.snapshot.subscribeTargets.last?.contains("auth=fresh-token") == true)
        },
        FaultScenario(
            name: "403 on the handshake, then a new token", messages: Array(1...3),
            statuses: [.accessDenied, .connected]
        ) { fixture in
            fixture.emulator.injectFault(.forbidden, on: .subscribe)
            fixture.subscriber.subscribe(to: [RealtimeFixture.channel])
            await fixture.waitFor(.accessDenied)
            fixture.subscriber.set(token: "fresh-token")
            await fixture.waitFor(.connected)
            await fixture.waitForReceive(handshakes: 2)
            try await fixture.publish(RealtimeFixture.channel, 1...3)
        },
        .longPollFault("a long-poll answered with a body that is not JSON", .malformedJSON, through: 6),
        .handshakeFault("a handshake answered with a body that is not JSON", .malformedJSON, .malformedResponse),
        FaultScenario(
            name: "a long-poll answer carrying a message cut in half (JSON truncated)", messages: Array(1...6),
            statuses: [.connected, .malformedResponse]
        ) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(.truncatedJSON, 4)
            try await fixture.publish(RealtimeFixture.channel, 5...5)
            await fixture.waitFor(.malformedResponse)
            try await fixture.publish(RealtimeFixture.channel, 6...6)
        },
        .handshakeFault("a handshake answer cut in half (JSON truncated)", .truncatedJSON, .malformedResponse) {
            fixture in
            #expect(fixture.timeline.statuses.first?.willAutomaticallyRetry == true)
        },
        FaultScenario(
            name: "a handshake slower than the subscribe timeout",
            configure: { $0.subscribeTimeout = .seconds(3) }, messages: Array(1...3),
            statuses: [.timeout, .reconnected], mayRepeat: [.unexpectedDisconnect, .reconnected],
            drive: { fixture in
                fixture.emulator.injectFault(.delay(.seconds(3600)), on: .subscribe)
                fixture.subscriber.subscribe(to: [RealtimeFixture.channel])
                await fixture.waitFor(.timeout)
                #expect(fixture.timeline.statuses.first?.willAutomaticallyRetry == true)
                await fixture.fireReconnectTimer()
                await fixture.waitForReceive(handshakes: 2)
                // The long-polls after the reconnect time out after 3 s of real time too: on a
                // stalled machine one can before a message arrives. Each is a disconnect the loop
                // recovers from with its cursor, so the messages still arrive once each, in order.
                fixture.retryDisconnects()
                try await fixture.publish(RealtimeFixture.channel, 1...3)
            }),
        FaultScenario(
            name: "a long-poll delayed by the server, within the subscribe timeout", messages: Array(1...5),
            statuses: [.connected]
        ) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(.delay(.seconds(30)), 4)
            let before = fixture.observer.snapshot.arrived[.receive, default: 0]
            await fixture.observer.waitArrived(.receive, before + 1)
            await fixture.emulatorClock.waitForSleepers(2)
            fixture.emulatorClock.advance(by: .seconds(30))
            try await fixture.publish(RealtimeFixture.channel, 5...5)
        },
        FaultScenario(
            name: "the emulator stopped and restarted on the same port", messages: Array(1...6),
            statuses: [.connected, .unexpectedDisconnect, .reconnected]
        ) { fixture in
            try await fixture.goLive()
            await fixture.stopServer()
            await fixture.waitFor(.unexpectedDisconnect)
            await fixture.publishInProcess(RealtimeFixture.channel, 4...6)
            try await fixture.restartServer()
            await fixture.fireReconnectTimer()
        },
        FaultScenario(
            name: "connection refused for two reconnection attempts", messages: Array(1...6),
            statuses: [.connected, .unexpectedDisconnect, .networkIssues, .networkIssues, .reconnected]
        ) { fixture in
            try await fixture.goLive()
            await fixture.stopServer()
            await fixture.waitFor(.unexpectedDisconnect)
            await fixture.fireReconnectTimer()
            await fixture.waitFor(.networkIssues, 1)
            await fixture.publishInProcess(RealtimeFixture.channel, 4...6)
            await fixture.fireReconnectTimer()
            await fixture.waitFor(.networkIssues, 2)
            try await fixture.restartServer()
            await fixture.fireReconnectTimer()
        },
        FaultScenario(
            name: "the emulator's clock jumps back an hour", messages: Array(1...6), statuses: [.connected]
        ) { fixture in
            try await fixture.goLive()
            let now = fixture.emulatorClock.now
            fixture.emulatorClock.set(to: now.advanced(by: .seconds(-3600)))
            let timetokens = try await fixture.publish(RealtimeFixture.channel, 4...6)
            #expect(timetokens == timetokens.sorted())
        },
        FaultScenario(
            name: "the emulator's clock jumps past the long-poll hold", messages: Array(1...5),
            statuses: [.connected]
        ) { fixture in
            try await fixture.goLive()
            await fixture.waitForHeldPoll()
            let answered = fixture.observer.snapshot.answered[.receive, default: 0]
            fixture.emulatorClock.advance(by: .seconds(290))
            await fixture.observer.waitAnswered(.receive, answered + 1)
            await fixture.observer.waitArrived(.receive, answered + 2)
            try await fixture.publish(RealtimeFixture.channel, 4...5)
        },
        FaultScenario(
            name: "the client's clock jumps a day ahead while receiving", messages: Array(1...5),
            statuses: [.connected]
        ) { fixture in
            try await fixture.goLive()
            #expect(fixture.clock.sleeperCount == 0)
            fixture.clock.advance(by: .seconds(86_400))
            try await fixture.publish(RealtimeFixture.channel, 4...5)
        },
        .longPollFault(
            "more messages missed than the catch-up buffer holds", .status(500), through: 29,
            pubSub: PubSubConfiguration(catchUpBufferSize: 10), messages: Array(1...4) + Array(20...29)),
        // No requestMessageCountExceeded: the threshold is off unless the app sets it.
        .longPollFault("150 messages missed: caught up over two answers", .status(500), through: 154),
        .heartbeatFault("a heartbeat answered with HTTP 500", .status(500), .networkIssues),
        .heartbeatFault("a heartbeat refused with 403", .forbidden, .accessDenied),
        // Two resets: an HTTP client may resend a request, once and unseen, when a kept-alive
        // connection it reused closes before any answer (libcurl does); the resend must meet the
        // fault too. The one left over when the client did not resend is cleared.
        .heartbeatFault("a heartbeat whose connection is reset", .resetBeforeBody, count: 2, .networkIssues),
        FaultScenario(
            name: "a reset, then HTTP 500, on consecutive handshakes", messages: Array(1...3),
            statuses: [.networkIssues, .networkIssues, .reconnected]
        ) { fixture in
            fixture.emulator.injectFault(.resetBeforeBody, on: .subscribe)
            fixture.emulator.injectFault(.status(500), on: .subscribe)
            fixture.subscriber.subscribe(to: [RealtimeFixture.channel])
            await fixture.waitFor(.networkIssues, 1)
            await fixture.fireReconnectTimer()
            await fixture.waitFor(.networkIssues, 2)
            await fixture.fireReconnectTimer()
            await fixture.waitForReceive(handshakes: 3)
            try await fixture.publish(RealtimeFixture.channel, 1...3)
        },
        FaultScenario(
            name: "the automatic retry cancelled, then reconnect()", messages: Array(1...7),
            statuses: [.connected, .unexpectedDisconnect, .disconnected, .connected]
        ) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(.status(500), 4)
            await fixture.waitFor(.unexpectedDisconnect)
            let status = try #require(fixture.timeline.statuses.last)
            #expect(status.willAutomaticallyRetry)
            status.cancelAutomaticRetry()
            await fixture.waitFor(.disconnected)
            try await fixture.publish(RealtimeFixture.channel, 5...7)
            fixture.subscriber.reconnect()
        },
        FaultScenario(
            name: "the reconnection policy gives up after two attempts, then reconnect()",
            configure: {
                $0.subscribeReconnectionPolicy = .linear(delay: .seconds(2), maximumAttempts: 2, maximumJitter: .zero)
            },
            messages: Array(1...6),
            statuses: [.connected, .unexpectedDisconnect, .networkIssues, .networkIssues, .connected],
            drive: { fixture in
                try await fixture.goLive()
                try await fixture.faultAfterDelivering(.status(503), count: 3, 4)
                await fixture.waitFor(.unexpectedDisconnect)
                await fixture.fireReconnectTimer()
                await fixture.waitFor(.networkIssues, 1)
                await fixture.fireReconnectTimer()
                await fixture.waitFor(.networkIssues, 2)
                #expect(fixture.timeline.statuses.last?.willAutomaticallyRetry == false)
                #expect(fixture.clock.sleeperCount == 0)
                try await fixture.publish(RealtimeFixture.channel, 5...6)
                fixture.subscriber.reconnect()
            }),
        FaultScenario(
            name: "a filter expression the service rejects (481)", configure: { $0.filterExpression = "((" },
            messages: [], statuses: [.malformedFilterExpression], endsReceiving: false,
            drive: { fixture in
                fixture.subscriber.subscribe(to: [RealtimeFixture.channel])
                await fixture.waitFor(.malformedFilterExpression)
                #expect(fixture.timeline.statuses.first?.statusCode == 481)
                #expect(fixture.timeline.statuses.first?.willAutomaticallyRetry == false)
                #expect(fixture.clock.sleeperCount == 0)
            }),
        FaultScenario(
            name: "an unknown subscribe key (400)", configure: { $0.subscribeKey = "sub-c-unknown" },
            messages: [], statuses: [.badRequest], endsReceiving: false,
            drive: { fixture in
                fixture.subscriber.subscribe(to: [RealtimeFixture.channel])
                await fixture.waitFor(.badRequest)
                #expect(fixture.timeline.statuses.first?.errorData?.information == "Invalid Subscribe Key")
                #expect(fixture.clock.sleeperCount == 0)
            }),
    ]
}

@Suite("Fault matrix: the subscribe loop against injected faults", .timeLimit(.minutes(1)))
struct FaultMatrixTests {
    @Test("Scenario", arguments: FaultScenario.all, HTTPBackend.allCases)
    func scenario(_ scenario: FaultScenario, _ backend: HTTPBackend) async throws {
        try await run(scenario, backend)
    }

    private func run(_ scenario: FaultScenario, _ backend: HTTPBackend) async throws {
        try await withRealtime(backend, pubSub: scenario.pubSub, configure: scenario.configure) { fixture in
            try await scenario.drive(fixture)
            let timeline = fixture.timeline
            #expect(await timeline.waitForMessages(scenario.messages.count))
            #expect(await timeline.waitForStatuses(scenario.statuses.count))
            if scenario.endsReceiving {
                // A fence: once it arrives, everything delivered before it has been seen, so a
                // late duplicate cannot hide behind the wait.
                _ = try await fixture.publisher.publish(channel: RealtimeFixture.channel, message: ["fence": true])
                #expect(
                    await timeline.wait { items in Timeline.messages(items).contains { $0.payload["fence"] != nil } })
            }
            var items = timeline.items
            if let fence = items.firstIndex(where: { item in
                if case .event(.message(let message)) = item { return message.payload["fence"] != nil }
                return false
            }) {
                items = Array(items[..<fence])
            }
            let numbers = Timeline.messages(items).map { $0.number ?? -1 }
            #expect(numbers == scenario.messages, "messages")
            let statuses = Timeline.statuses(items)
            let categories = statuses.filter { $0.operation == .subscribe }.map(\.category)
            #expect(scenario.accepts(categories), "statuses: \(categories)")
            #expect(
                statuses.filter { $0.operation == .heartbeat }.map(\.category) == scenario.heartbeatStatuses,
                "heartbeat statuses")
            #expect(statuses.allSatisfy { !$0.description.contains("fresh-token") })
        }
    }
}
