import DataSyncTestSupport
import Foundation
import JSONCore
import MobilePush
import Testing

/// What PubNub's Python SDK registers through the emulator is what this SDK lists, and the other
/// way round. Runs when `PUBNUB_PYTHON` is set (CI always sets it).
@Suite(
    "Mobile push interop with the Python SDK", .enabled(if: PythonInterop.python != nil, "PUBNUB_PYTHON is not set"),
    .timeLimit(.minutes(2)))
struct PythonPushInteropTests {
    private static let topic = "com.example.interop"

    /// Runs `Tests/Interop/push_interop.py` in `mode` and returns its JSON report.
    private func python(_ mode: String, _ rig: KeysetRig, prefix: String) async throws -> JSONValue {
        try await PythonInterop.report(
            of: "push_interop.py", [mode, "http://127.0.0.1:\(rig.port)", "demo", "demo", prefix])
    }

    @Test func pythonListsWhatSwiftRegistered() async throws {
        try await PushRig.start().run { rig in
            let pubnub = try rig.client(.curl)
            try await pubnub.addPushChannels(["sw.b", "sw.a"], for: .fcm(token: "sw-fcm"))
            try await pubnub.addPushChannels(
                ["sw.c"], for: .apns2(token: "sw0a", topic: Self.topic, environment: .production))
            let read = try await python("read", rig, prefix: "sw")
            #expect(read["fcm"] == ["sw.a", "sw.b"])
            #expect(read["apns2"] == ["sw.c"])
        }
    }

    @Test func swiftListsWhatPythonRegistered() async throws {
        try await PushRig.start().run { rig in
            _ = try await python("write", rig, prefix: "py")
            let pubnub = try rig.client(.urlSession)
            #expect(try await pubnub.listPushChannels(for: .fcm(token: "py-fcm")) == ["py.a", "py.b"])
            let apns = PubNubPushDevice.apns2(token: "py0a", topic: Self.topic, environment: .production)
            #expect(try await pubnub.listPushChannels(for: apns) == ["py.c"])
            // The development registration of the same token is another one, and empty.
            #expect(try await pubnub.listPushChannels(for: .apns2(token: "py0a", topic: Self.topic)) == [])
        }
    }
}
