import DataSyncEmulator
import EmulatorHTTP
import Foundation
import Messaging
import Realtime
import Testing

/// The driver script next to the other interop scripts.
let realtimeInteropScript = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Interop/realtime_interop.py")

/// `Tests/Interop/realtime_interop.py` run by the interpreter `PUBNUB_PYTHON` names: its stdout
/// lines are collected, and a test can wait (without sleeping) for a line to appear or the
/// process to end.
final class PythonPeer: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var lines: [String] = []
        var ended = false
        var waiters: [(condition: @Sendable ([String], Bool) -> Bool, continuation: CheckedContinuation<Void, Never>)] =
            []
    }

    private let state = Locked(State())
    private let process = Process()

    init(python: String, arguments: [String]) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [realtimeInteropScript.path] + arguments
        process.standardOutput = output
        output.fileHandleForReading.readabilityHandler = { [state] handle in
            let data = handle.availableData
            let due = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                if data.isEmpty {
                    state.ended = true
                } else {
                    state.buffer += data
                    while let newline = state.buffer.firstIndex(of: 0x0A) {
                        state.lines.append(String(decoding: state.buffer[..<newline], as: UTF8.self))
                        state.buffer.removeSubrange(...newline)
                    }
                }
                return Self.takeDue(&state)
            }
            if data.isEmpty { handle.readabilityHandler = nil }
            for continuation in due { continuation.resume() }
        }
        try process.run()
    }

    private static func takeDue(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let lines = state.lines
        let ended = state.ended
        let due = state.waiters.filter { $0.condition(lines, ended) }.map(\.continuation)
        state.waiters.removeAll { $0.condition(lines, ended) }
        return due
    }

    var lines: [String] { state.withLock { $0.lines } }

    /// Waits until `condition` holds for the lines so far and whether the output ended.
    func wait(until condition: @escaping @Sendable ([String], Bool) -> Bool) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if condition(state.lines, state.ended) { return true }
                state.waiters.append((condition, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Waits for the output to end and the process to exit; returns its status.
    func finish() async -> Int32 {
        await wait { _, ended in ended }
        process.waitUntilExit()
        return process.terminationStatus
    }

    func kill() {
        if process.isRunning { process.terminate() }
    }

    /// The JSON objects among the lines.
    var objects: [JSONValue] {
        lines.compactMap { line in line.hasPrefix("{") ? try? JSONValue(parsing: Array(line.utf8)) : nil }
    }
}

let pubnubPython = ProcessInfo.processInfo.environment["PUBNUB_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }

/// Realtime and Messaging against PubNub's official Python SDK (10.8.0) through the emulator.
/// Runs when `PUBNUB_PYTHON` is set (CI always sets it) and then fails on any disagreement.
@Suite(
    "Interop with PubNub's Python SDK over the emulator", .enabled(if: pubnubPython != nil),
    .timeLimit(.minutes(1)))
struct PythonPeerTests {
    static let cipherKey = "interop-key"

    @Test("Python publishes; our subscriber receives payload, meta, type, publisher, decrypts both cryptors")
    func pythonPublishes() async throws {
        let python = try #require(pubnubPython)
        let module = try CryptoModule.aesCbcCryptoModule(cipherKey: Self.cipherKey)
        try await withRealtime(.curl) { fixture in
            #expect(await fixture.subscribe(["rt.plain"]))
            let secretReader = try fixture.makeClient(userId: "secret-reader") { $0.cryptoModule = module }
            let secret = Timeline()
            secret.attach(to: secretReader)
            secretReader.subscribe(to: ["rt.secret"])
            #expect(await secret.waitForStatus(.connected))
            await fixture.observer.waitAnswered(.handshake, 2)

            let peer = try PythonPeer(python: python, arguments: ["publish", "http://\(fixture.origin)"])
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
        let python = try #require(pubnubPython)
        try await withRealtime(.curl) { fixture in
            let peer = try PythonPeer(python: python, arguments: ["subscribe", "http://\(fixture.origin)", "4"])
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
