import DataSyncTestSupport
import FileSharing
import Foundation
import JSONCore
import MessagePersistence
import PubNubCrypto
import Testing

/// What PubNub's Python SDK sends through the emulator this SDK downloads, and the other way round,
/// plain and encrypted with either cryptor. Runs when `PUBNUB_PYTHON` is set (CI always sets it).
@Suite(
    "Files interop with the Python SDK", .enabled(if: PythonInterop.python != nil, "PUBNUB_PYTHON is not set"),
    .timeLimit(.minutes(2)))
struct PythonFileInteropTests {
    /// The bytes the script sends and expects: 0...255, then text that looks like a boundary.
    static let content: [UInt8] = Array(0...255) + Array("interop file\r\n--boundary-lookalike--\r\n".utf8)

    static let cryptos = ["none", "aescbc:enigma", "legacy:enigma"]

    private func module(_ crypto: String) throws -> CryptoModule? {
        let parts = crypto.split(separator: ":", maxSplits: 1).map(String.init)
        switch parts.first {
        case "aescbc": return try CryptoModule.aesCbcCryptoModule(cipherKey: parts[1])
        case "legacy": return try CryptoModule.legacyCryptoModule(cipherKey: parts[1])
        default: return nil
        }
    }

    /// Runs `Tests/Interop/files_interop.py` and returns its JSON report.
    private func python(_ arguments: [String], _ rig: KeysetRig) async throws -> JSONValue {
        try await PythonInterop.report(
            of: "files_interop.py",
            [arguments[0], "http://127.0.0.1:\(rig.port)", "demo", "demo"] + arguments.dropFirst())
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test(arguments: cryptos)
    func pythonDownloadsWhatSwiftSent(crypto: String) async throws {
        try await FileRig.start().run { rig in
            let pubnub = try rig.client(.curl, userId: "swift-files", crypto: try module(crypto))
            let sent = try await pubnub.sendFile(channel: "interop", name: "from-swift.bin", data: Self.content)
            let read = try await python(["download", "interop", crypto, sent.file.id, sent.file.name], rig)
            #expect(read["hex"]?.stringValue == Self.hex(Self.content))
            #expect(read["files"] == [["id": .string(sent.file.id), "name": "from-swift.bin"]])
        }
    }

    @Test(arguments: cryptos)
    func swiftDownloadsWhatPythonSent(crypto: String) async throws {
        try await FileRig.start().run { rig in
            let written = try await python(["send", "interop", crypto], rig)
            let file = PubNubFileReference(
                id: try #require(written["id"]?.stringValue), name: try #require(written["name"]?.stringValue))
            let pubnub = try rig.client(.urlSession, userId: "swift-files", crypto: try module(crypto))
            #expect(try await pubnub.downloadFile(channel: "interop", file: file).data == Self.content)
            #expect(try await pubnub.listFiles(channel: "interop").files.map(\.reference) == [file])
            let stored = try #require(
                try await pubnub.fetchMessages(from: ["interop"], includeMessageType: true).channels["interop"]?.first)
            #expect(stored.decryptionError == nil)
            #expect(stored.messageType == 4)
            #expect(stored.timetoken == written["timetoken"]?.stringValue.flatMap(Timetoken.init))
            #expect(stored.message["file"] == ["id": .string(file.id), "name": .string(file.name)])
            #expect(stored.message["message"] == ["from": "python"])
        }
    }
}
