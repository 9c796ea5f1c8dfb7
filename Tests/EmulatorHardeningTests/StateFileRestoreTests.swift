import DataSyncEmulator
import Foundation
import JSONCore
import Testing

/// `StateFileRestore`, the entry the `fuzz-state` harness drives: the emulator's own restore of a
/// snapshot and its journal, and the save-then-restore round trip the harness checks.
@Suite("State-file restore entry (fuzz-state)")
struct StateFileRestoreTests {
    static let cursorKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

    static func user(_ id: String, revision: Int64) -> JSONValue {
        [
            "id": .string(id), "kind": "user", "className": "User", "classLevel": "Global", "classVersion": 1,
            "createdAt": 1, "updatedAt": 2, "expiresAt": 0, "eTag": .string("t-\(revision)"),
            "revision": .int(revision), "payload": ["name": .string(id)],
        ]
    }

    static func snapshot(generation: Int64 = 1) -> JSONValue {
        [
            "format": "datasync-emulator-state", "formatVersion": 1, "revision": 5, "cursorKey": .string(cursorKey),
            "generation": .int(generation),
            "keysets": [
                [
                    "subscribeKey": "sub", "entityClasses": [], "relationshipClasses": [],
                    "objects": [user("u1", revision: 1)],
                ]
            ],
        ]
    }

    static func record(_ value: JSONValue) throws -> [UInt8] {
        StateFileRestore.journalRecord(try value.jsonBytes())
    }

    static func header(generation: Int64 = 1) throws -> [UInt8] {
        try record([
            "format": .string(StateFileRestore.journalFormat), "formatVersion": 1, "generation": .int(generation),
        ])
    }

    static let added: JSONValue = [
        "revision": 6, "keysets": [["subscribeKey": "sub", "objects": [user("u2", revision: 6)]]],
    ]
    static let removed: JSONValue = [
        "revision": 7, "keysets": [["subscribeKey": "sub", "removed": [["space": "entity", "id": "u1"]]]],
    ]

    /// A fresh directory holding `state.json` (and its journal when given); returns the state path.
    static func files(snapshot: JSONValue, journal: [UInt8]?) throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("state-restore-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/state.json"
        try Data(try snapshot.jsonBytes()).write(to: URL(fileURLWithPath: path))
        if let journal { try Data(journal).write(to: URL(fileURLWithPath: path + ".journal")) }
        return path
    }

    static func ids(_ state: JSONValue) -> [String] {
        state["keysets"]?.arrayValue?.first?["objects"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    @Test("a snapshot and its journal restore, and the saved state restores to the same state")
    func roundTrip() throws {
        let path = try Self.files(
            snapshot: Self.snapshot(), journal: try Self.header() + Self.record(Self.added) + Self.record(Self.removed))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let restored = try StateFileRestore.restore(path: path, saveAfterwards: true)
        #expect(restored.replayedRecords == 2)
        #expect(Self.ids(restored.state) == ["u2"])
        #expect(restored.state["revision"] == 7)
        let again = try StateFileRestore.restore(path: path)
        #expect(again.replayedRecords == 0)
        #expect(again.state == restored.state)
        #expect(try StateFileRestore.restore(document: restored.state) == restored.state)
    }

    @Test("a torn last record is cut off and the records before it are kept")
    func tornTail() throws {
        let torn = Array(try Self.record(Self.removed).dropLast(3))
        let path = try Self.files(
            snapshot: Self.snapshot(), journal: try Self.header() + Self.record(Self.added) + torn)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let restored = try StateFileRestore.restore(path: path)
        #expect(restored.replayedRecords == 1)
        #expect(restored.truncatedBytes == torn.count)
        #expect(Self.ids(restored.state) == ["u1", "u2"])
    }

    @Test("a damaged record with more after it is refused, naming the journal")
    func damagedMiddle() throws {
        var damaged = try Self.record(Self.added)
        damaged[damaged.count - 2] ^= 1
        let path = try Self.files(
            snapshot: Self.snapshot(), journal: try Self.header() + damaged + Self.record(Self.removed))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let error = #expect(throws: EmulatorError.self) { try StateFileRestore.restore(path: path) }
        #expect(error?.code == .corruptStateFile)
        #expect(error?.message.contains(path + ".journal") == true)
    }
}
