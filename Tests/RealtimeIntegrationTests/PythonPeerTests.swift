import DataSyncEmulator
import DataSyncTestSupport
import EmulatorHTTP
import Foundation
import Messaging
import Realtime
import Testing

/// `Tests/Interop/realtime_interop.py` run by the interpreter `PUBNUB_PYTHON` names: its stdout
/// lines are collected, and a test can wait for a line to appear or the process to end (polled:
/// the peer runs in real time). Spawned through `ChildProcess`, not Foundation's `Process`.
///
/// The peer and the test share one budget, counted from the spawn: the script gets it as its
/// last argument and bounds all its own waits by it, and the waits here end at the same deadline
/// (or when the test's time limit cancels the task), killing the peer. A fixed window inside the
/// script would instead start running out while the test, slowed by the same load, is still
/// preparing what the peer waits for.
final class PythonPeer: Sendable {
    private let child: ChildProcess
    private let deadline: ContinuousClock.Instant

    init(python: String, arguments: [String], budget: Duration) throws {
        deadline = ContinuousClock.now + budget
        let seconds = Double(budget.components.seconds) + Double(budget.components.attoseconds) * 1e-18
        child = try ChildProcess(
            executable: python,
            arguments: [PythonInterop.script("realtime_interop.py").path] + arguments + ["\(seconds)"])
    }

    /// The complete lines the peer printed so far.
    var lines: [String] {
        let text = child.standardOutput
        var complete = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        complete.removeLast()  // the text after the last newline is not a line yet
        return complete
    }

    /// Waits until `condition` holds for the lines so far and whether the peer exited, polling
    /// (the peer runs in real time). Past the shared deadline, or once the test's time limit
    /// cancels the task, the peer is killed and the wait ends: the caller's expectations then
    /// fail with what the peer printed, instead of the test outliving its limit.
    func wait(until condition: @escaping @Sendable ([String], Bool) -> Bool) async {
        _ = await eventually(limit: max(.zero, deadline - ContinuousClock.now)) {
            !self.child.isRunning || condition(self.lines, false)
        }
        if !child.isRunning {
            _ = try? await child.finish(timeout: .seconds(5))  // every line read
        } else if !condition(lines, false) {
            _ = await finish()  // past the deadline or cancelled: stop the peer, keep its output
        }
    }

    /// Waits for the peer to exit and its output to end, killing it past the shared deadline (a
    /// few seconds' grace: the script's own deadline is the same instant, and it reports
    /// `TIMEOUT` itself when it can); returns its status.
    func finish() async -> Int32 {
        let remaining = max(deadline - ContinuousClock.now, .zero) + .seconds(5)
        return (try? await child.finish(timeout: remaining))?.status ?? -1
    }

    func kill() {
        child.send(SIGTERM)
    }

    /// The JSON objects among the lines.
    var objects: [JSONValue] {
        lines.compactMap { line in line.hasPrefix("{") ? try? JSONValue(parsing: Array(line.utf8)) : nil }
    }
}

/// Realtime and Messaging against PubNub's official Python SDK (10.8.0) through the emulator.
/// Runs when `PUBNUB_PYTHON` is set (CI always sets it) and then fails on any disagreement.
@Suite(
    "Interop with PubNub's Python SDK over the emulator", .enabled(if: PythonInterop.python != nil),
    .timeLimit(.minutes(3)))
struct PythonPeerTests {
    static let cipherKey = "interop-key"
    /// What one test may take, for the Python peer and the test's waits on it alike: generous,
    /// because a loaded two-core machine (load average 20) slows the interpreter's start, its
    /// imports and every request many times over. Below the suite's time limit, so the peer is
    /// stopped and its output reported before the limit cancels the test.
    static let budget = Duration.seconds(150)

    @Test("Python publishes; our subscriber receives payload, meta, type, publisher, decrypts both cryptors")
    func pythonPublishes() async throws {
        let python = try #require(PythonInterop.python)
        let module = try CryptoModule.aesCbcCryptoModule(cipherKey: Self.cipherKey)
        try await withRealtime(.curl) { fixture in
            #expect(await fixture.subscribe(["rt.plain"]))
            let secretReader = try fixture.makeClient(userId: "secret-reader") { $0.cryptoModule = module }
            let secret = Timeline()
            secret.attach(to: secretReader)
            secretReader.subscribe(to: ["rt.secret"])
            #expect(await secret.waitForStatus(.connected))
            await fixture.observer.waitAnswered(.handshake, 2)

            let peer = try PythonPeer(
                python: python, arguments: ["publish", "http://\(fixture.origin)"], budget: Self.budget)
            #expect(await peer.finish() == 0, "\(peer.lines)")
            let sent = try #require(peer.objects.first)
            #expect(await fixture.timeline.wait { Timeline.events($0).count >= 2 })
            #expect(await secret.waitForMessages(2))

            let plain = try #require(fixture.timeline.messages.first)
            #expect(plain.payload == ["text": "from python", "n": [1, 2]])
            #expect(plain.metadata == ["lang": "py"])
            #expect(plain.customMessageType == "py-text")
            #expect(plain.publisher == "py-publisher")
            #expect(sent["plain"].flatMap(\.intValue).map(UInt64.init) == plain.timetoken)
            #expect(fixture.timeline.signals.map(\.payload) == ["py-typing"])
            #expect(secret.messages.map(\.payload) == [["secret": "aes"], ["secret": "legacy"]])
            #expect(secret.messages.map(\.publisher) == ["py-aes", "py-legacy"])
            #expect(secret.categories() == [.connected])
            #expect(fixture.timeline.categories() == [.connected])
            secretReader.unsubscribeAll()
        }
    }

    @Test("We publish (plain, signal, AES-CBC, legacy); Python's subscriber receives and decrypts")
    func swiftPublishes() async throws {
        let python = try #require(PythonInterop.python)
        try await withRealtime(.curl) { fixture in
            let peer = try PythonPeer(
                python: python, arguments: ["subscribe", "http://\(fixture.origin)", "4"], budget: Self.budget)
            await peer.wait { lines, ended in ended || lines.contains("READY") }
            #expect(peer.lines.contains("READY"), "\(peer.lines)")
            let aes = try fixture.makeClient(userId: "swift-aes") {
                $0.cryptoModule = try? CryptoModule.aesCbcCryptoModule(cipherKey: Self.cipherKey)
            }
            let legacy = try fixture.makeClient(userId: "swift-legacy") {
                $0.cryptoModule = try? CryptoModule.legacyCryptoModule(cipherKey: Self.cipherKey)
            }
            let plainTT = try await fixture.publisher.publish(
                channel: "rt.plain", message: ["text": "from swift"], customMessageType: "swift-text",
                meta: ["lang": "swift"])
            let signalTT = try await fixture.publisher.signal(channel: "rt.plain", message: "swift-typing")
            _ = try await aes.publish(channel: "rt.secret", message: ["secret": "aes"])
            _ = try await legacy.publish(channel: "rt.secret", message: ["secret": "legacy"], shouldCompress: true)
            let status = await peer.finish()
            #expect(status == 0, "\(peer.lines)")
            let received = peer.objects
            #expect(received.count == 4, "\(peer.lines)")
            let plain = received.first { $0["kind"] == "message" && $0["client"] == "plain" }
            #expect(plain?["payload"] == ["text": "from swift"])
            #expect(plain?["meta"] == ["lang": "swift"])
            #expect(plain?["customMessageType"] == "swift-text")
            #expect(plain?["publisher"] == "publisher")
            #expect(plain?["timetoken"]?.intValue.map(UInt64.init) == plainTT)
            let signal = received.first { $0["kind"] == "signal" }
            #expect(signal?["payload"] == "swift-typing")
            #expect(signal?["timetoken"]?.intValue.map(UInt64.init) == signalTT)
            let secrets = received.filter { $0["client"] == "secret" }
            #expect(secrets.map { $0["payload"] } == [["secret": "aes"], ["secret": "legacy"]])
            #expect(secrets.allSatisfy { $0["error"] == .null })
            peer.kill()
        }
    }
}
