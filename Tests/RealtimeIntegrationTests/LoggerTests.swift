import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import PubNubCore
import Realtime
import Testing
import Transport

/// What a logger received.
private final class LogBook: @unchecked Sendable {
    // @unchecked Sendable: `records` is only touched with `lock` held.
    private let lock = NSLock()
    private var records: [PubNubLogRecord] = []

    func add(_ record: PubNubLogRecord) { lock.withLock { records.append(record) } }
    var all: [PubNubLogRecord] { lock.withLock { records } }
}

/// `PubNubConfiguration.logger` over real HTTP: network lines for every request with the token
/// redacted, the loop's statuses at the level they deserve, nothing below the logger's minimum.
@Suite("Logging", .timeLimit(.minutes(1)))
struct LoggerTests {
    static let token = "tok-secret-4242"

    @Test("network and subscribe records, a failure the loop retries at warning, the token never written")
    func recordsTellWhatHappened() async throws {
        let book = LogBook()
        let configure: (inout PubNubConfiguration) -> Void = { configuration in
            configuration.authToken = Self.token
            configuration.logger = ClosureLogger(minimumLevel: .debug) { book.add($0) }
        }
        try await withRealtime(.curl, configure: configure) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(.status(500), 4)
            await fixture.waitFor(.unexpectedDisconnect)
            await fixture.fireReconnectTimer()
            await fixture.waitFor(.reconnected)

            let records = book.all
            #expect(records.allSatisfy { !$0.description.contains(Self.token) }, "the token was logged")
            let network = records.filter { $0.category == .network }
            #expect(network.contains { $0.level == .debug && $0.message.contains("/v2/subscribe/demo/faults/0") })
            #expect(network.contains { $0.message.contains("auth=REDACTED") })
            #expect(network.contains { $0.level == .info && $0.message.hasPrefix("← 500") })
            let subscribe = records.filter { $0.category == .subscribe }
            #expect(subscribe.contains { $0.level == .info && $0.message.contains("connected") })
            #expect(subscribe.contains { $0.level == .warning && $0.message.contains("unexpectedDisconnect") })
            #expect(subscribe.contains { $0.level == .info && $0.message.contains("reconnected") })
        }
    }

    @Test("a logger from warning up gets no request lines and no routine statuses")
    func minimumLevelFilters() async throws {
        let book = LogBook()
        let configure: (inout PubNubConfiguration) -> Void = { configuration in
            configuration.logger = ClosureLogger(minimumLevel: .warning) { book.add($0) }
        }
        try await withRealtime(.curl, configure: configure) { fixture in
            try await fixture.goLive()
            try await fixture.faultAfterDelivering(.status(500), 4)
            await fixture.waitFor(.unexpectedDisconnect)
            let records = book.all
            #expect(records.allSatisfy { $0.level >= .warning }, "\(records)")
            #expect(records.contains { $0.category == .subscribe && $0.message.contains("unexpectedDisconnect") })
        }
    }

    @Test("without a logger no logging middleware is installed")
    func offByDefault() throws {
        let configuration = PubNubConfiguration(
            publishKey: "demo", subscribeKey: "demo", userId: "quiet", origin: "127.0.0.1:1",
            useSecureConnections: false)
        #expect(configuration.logger == nil)
        #expect(!PubNub(configuration: configuration).pipeline.middlewares.contains { $0 is LoggingMiddleware })
        var logged = configuration
        logged.logger = StandardErrorLogger(categories: [.subscribe])
        // A logger that does not want network records installs no middleware either.
        #expect(!PubNub(configuration: logged).pipeline.middlewares.contains { $0 is LoggingMiddleware })
        logged.logger = StandardErrorLogger()
        #expect(PubNub(configuration: logged).pipeline.middlewares.contains { $0 is LoggingMiddleware })
    }
}
