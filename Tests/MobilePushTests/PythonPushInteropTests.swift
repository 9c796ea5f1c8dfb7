import DataSyncTestSupport
import Foundation
import JSONCore
import MobilePush
import Testing

/// `Tests/Interop/push_interop.py`, next to the other interop scripts.
let pushInteropScript = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Interop/push_interop.py")

let pushPython = ProcessInfo.processInfo.environment["PUBNUB_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }

/// What PubNub's Python SDK registers through the emulator is what this SDK lists, and the other
/// way round. Runs when `PUBNUB_PYTHON` is set (CI always sets it).
@Suite(
    "Mobile push interop with the Python SDK", .enabled(if: pushPython != nil, "PUBNUB_PYTHON is not set"),
    .timeLimit(.minutes(2)))
struct PythonPushInteropTests {
    private static let topic = "com.example.interop"

    /// Runs the script in `mode` and returns its one JSON line.
    private func python(_ mode: String, _ rig: KeysetRig, prefix: String) async throws -> JSONValue {
        let python = try #require(pushPython)
        let arguments = [pushInteropScript.path, mode, "http://127.0.0.1:\(rig.port)", "demo", "demo", prefix]
        let result = try await ChildProcess(executable: python, arguments: arguments).finish(timeout: .seconds(60))
        try #require(result.status == 0, "\(result)")
        let line = try #require(result.standardOutput.split(separator: "\n").last { $0.hasPrefix("{") })
        return try JSONValue(parsing: Array(line.utf8))
    }

    @Test func pythonListsWhatSwiftRegistered() async throws {
        let rig = try await PushRig.start()
        defer { Task { await rig.stop() } }
        let pubnub = try rig.client(.curl)
        try await pubnub.addPushChannels(["sw.b", "sw.a"], for: .fcm(token: "sw-fcm"))
        try await pubnub.addPushChannels(
            ["sw.c"], for: .apns2(token: "sw0a", topic: Self.topic, environment: .production))
        let read = try await python("read", rig, prefix: "sw")
        #expect(read["fcm"] == ["sw.a", "sw.b"])
        #expect(read["apns2"] == ["sw.c"])
    }

    @Test func swiftListsWhatPythonRegistered() async throws {
        let rig = try await PushRig.start()
        defer { Task { await rig.stop() } }
        _ = try await python("write", rig, prefix: "py")
        let pubnub = try rig.client(.urlSession)
        #expect(try await pubnub.listPushChannels(for: .fcm(token: "py-fcm")) == ["py.a", "py.b"])
        let apns = PubNubPushDevice.apns2(token: "py0a", topic: Self.topic, environment: .production)
        #expect(try await pubnub.listPushChannels(for: apns) == ["py.c"])
        // The development registration of the same token is another one, and empty.
        #expect(try await pubnub.listPushChannels(for: .apns2(token: "py0a", topic: Self.topic)) == [])
    }
}
