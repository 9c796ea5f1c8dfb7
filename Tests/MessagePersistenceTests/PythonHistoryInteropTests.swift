import DataSyncTestSupport
import Foundation
import JSONCore
import MessagePersistence
import Messaging
import PubNubCrypto
import Testing

/// What PubNub's Python SDK stores and reads through the emulator matches what this SDK stores and
/// reads, both ways, plain and encrypted. Runs when `PUBNUB_PYTHON` is set (CI always sets it).
@Suite(
    "History interop with the Python SDK", .enabled(if: PythonInterop.python != nil, "PUBNUB_PYTHON is not set"),
    .timeLimit(.minutes(2)))
struct PythonHistoryInteropTests {
    /// Runs `Tests/Interop/history_interop.py` in `mode` and returns its JSON report.
    private func python(_ mode: String, _ rig: KeysetRig, channel: String, cipherKey: String?) async throws
        -> JSONValue
    {
        let arguments = [mode, "http://127.0.0.1:\(rig.port)", "demo", "demo", channel]
        return try await PythonInterop.report(of: "history_interop.py", arguments + (cipherKey.map { [$0] } ?? []))
    }

    @Test(arguments: [nil, "enigma"] as [String?])
    func pythonReadsWhatSwiftStored(cipherKey: String?) async throws {
        try await HistoryRig.start().run { rig in
            let crypto = try cipherKey.map { try CryptoModule.aesCbcCryptoModule(cipherKey: $0) }
            let pubnub = try rig.client(.curl, userId: "swift-writer", crypto: crypto)
            let first = try await pubnub.publish(channel: "interop", message: ["swift": 0], meta: ["from": "swift"])
            let second = try await pubnub.publish(channel: "interop", message: ["swift": 1])
            let action = try await pubnub.addMessageAction(
                channel: "interop", type: "reaction", value: "swift-smile", messageTimetoken: second)
            let read = try await python("read", rig, channel: "interop", cipherKey: cipherKey)
            let messages = try #require(read["messages"]?.arrayValue)
            #expect(messages.map { $0["message"] } == [["swift": 0], ["swift": 1]])
            #expect(messages.map { $0["timetoken"]?.stringValue } == [String(first), String(second)])
            #expect(messages[0]["meta"] == ["from": "swift"] && messages[0]["uuid"] == "swift-writer")
            let grouped = messages[1]["actions"]?["reaction"]?["swift-smile"]?.arrayValue
            #expect(grouped?.first?["actionTimetoken"]?.stringValue == String(action.actionTimetoken))
            #expect(
                read["actions"] == [
                    [
                        "type": "reaction", "value": "swift-smile", "uuid": "swift-writer",
                        "messageTimetoken": .string(String(second)),
                        "actionTimetoken": .string(String(action.actionTimetoken)),
                    ]
                ])
        }
    }

    @Test(arguments: [nil, "enigma"] as [String?])
    func swiftReadsWhatPythonStored(cipherKey: String?) async throws {
        try await HistoryRig.start().run { rig in
            let written = try await python("write", rig, channel: "interop", cipherKey: cipherKey)
            let timetokens = try #require(
                written["timetokens"]?.arrayValue?.compactMap { $0.stringValue.flatMap(Timetoken.init) })
            let actionTimetoken = try #require(written["actionTimetoken"]?.stringValue.flatMap(Timetoken.init))
            let crypto = try cipherKey.map { try CryptoModule.aesCbcCryptoModule(cipherKey: $0) }
            let pubnub = try rig.client(.urlSession, userId: "swift-reader", crypto: crypto)
            let fetched = try #require(
                try await pubnub.fetchMessages(from: ["interop"], includeActions: true, includeMeta: true)
                    .channels["interop"])
            #expect(fetched.map(\.message) == [["py": 0], ["py": 1], ["py": 2]])
            #expect(fetched.allSatisfy { $0.decryptionError == nil })
            #expect(fetched.map(\.timetoken) == timetokens)
            #expect(fetched[0].meta == ["from": "python"] && fetched[0].publisher == "py-writer")
            #expect(
                fetched[1].actions == [
                    PubNubMessageAction(
                        type: "reaction", value: "py-smile", uuid: "py-writer", messageTimetoken: timetokens[1],
                        actionTimetoken: actionTimetoken)
                ])
        }
    }
}
