import DataSyncTestSupport
import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends one request to an emulator in process.
private func send(
    _ emulator: Emulator, _ method: String, _ rest: String, body: JSONValue? = nil, contentType: String? = nil,
    headers: [(name: String, value: String)] = [], subscribeKey: String = "demo"
) async throws -> (status: Int, json: JSONValue?) {
    var all = headers
    if let contentType { all.append((name: "Content-Type", value: contentType)) }
    let bytes = try body.map { try JSONValue.object(["data": $0]).jsonBytes() } ?? []
    let response = await emulator.respond(
        to: ServerRequest(
            method: method, target: dataSyncPath(rest, subscribeKey: subscribeKey), headers: all, body: bytes))
    return (response.status, response.body.isEmpty ? nil : try? JSONValue(parsing: response.body))
}

private func createUser(_ emulator: Emulator, _ id: String, payload: JSONValue = [:]) async throws -> (Int, String?) {
    let reply = try await send(
        emulator, "POST", "users", body: ["id": .string(id), "entityClassVersion": 1, "payload": payload],
        contentType: userMediaType)
    return (reply.status, reply.json?["data"]?["eTag"]?.stringValue)
}

/// A seed document of `count` users (and `channels` channels, one membership per user).
private func seed(users count: Int, channels: Int = 0) -> JSONValue {
    var users: [JSONValue] = []
    for index in 0..<count { users.append(["id": .string("u\(index)"), "payload": ["n": .int(Int64(index))]]) }
    var channelItems: [JSONValue] = []
    var memberships: [JSONValue] = []
    for index in 0..<channels {
        channelItems.append(["id": .string("c\(index)")])
        memberships.append(["channelId": .string("c\(index)"), "userId": .string("u\(index)")])
    }
    return [
        "keysets": [
            "demo": ["users": .array(users), "channels": .array(channelItems), "memberships": .array(memberships)]
        ]
    ]
}

private func readJSON(_ path: String) throws -> JSONValue {
    try JSONValue(parsing: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
}

private func write(_ value: JSONValue, to path: String) throws {
    try Data(try value.jsonBytes()).write(to: URL(fileURLWithPath: path))
}

private func bytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

private func inode(_ path: String) -> UInt64? {
    var info = stat()
    return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
}

/// Replaces the value at `keyset[index][field]` in a state document (nil removes it).
private func editingKeyset(_ document: JSONValue, _ field: String, _ value: JSONValue?) -> JSONValue {
    var top = document.objectValue ?? [:]
    var keysets = top["keysets"]?.arrayValue ?? []
    var first = keysets[0].objectValue ?? [:]
    first[field] = value
    keysets[0] = .object(first)
    top["keysets"] = .array(keysets)
    return .object(top)
}

/// Issue 18, point 4: hand-edited state files that would lose or duplicate data are refused with
/// the file, the place and the reason, and left as they are; leftovers of interrupted saves go.
@Suite("Hand-edited state files")
struct HandEditedStateTests {
    let directory: URL
    let path: String

    init() throws {
        (directory, path) = try temporaryStateFile()
    }

    /// Writes a state of 1,501 users, 3 channels and memberships; returns its document.
    private func makeState() async throws -> JSONValue {
        let emulator = try Emulator(
            configuration: EmulatorConfiguration(seed: seed(users: 1_501, channels: 3), stateFile: path))
        #expect(try await send(emulator, "GET", "users/u1500").status == 200)
        return try readJSON(path)
    }

    /// Expects `document` (written over the state file) to be refused with a message naming the
    /// file and holding `fragments`, and both files to stay byte for byte as they were.
    private func expectRefused(_ document: JSONValue, _ fragments: [String]) throws {
        try write(document, to: path)
        let before = bytes(path)
        let journalBefore = bytes(path + ".journal")
        let error = #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        }
        #expect(error?.code == .corruptStateFile)
        let message = error?.message ?? ""
        #expect(message.contains(path), "\(message)")
        #expect(message.contains("left as it is"), "\(message)")
        for fragment in fragments { #expect(message.contains(fragment), "\(message) lacks \(fragment)") }
        #expect(bytes(path) == before)
        #expect(bytes(path + ".journal") == journalBefore)
    }

    @Test("a keyset without `objects` is refused, not loaded as empty")
    func keysetWithoutObjects() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = try await makeState()
        try expectRefused(editingKeyset(document, "objects", nil), ["/keysets/0/objects", "missing"])
    }

    @Test("a keyset without its classes, or with a misspelt field, is refused")
    func keysetFields() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = try await makeState()
        var edited = editingKeyset(document, "entityClasses", nil)
        try expectRefused(edited, ["/keysets/0/entityClasses"])
        let objects = document["keysets"]?[0]?["objects"]
        edited = editingKeyset(editingKeyset(document, "objects", nil), "object", objects)
        try expectRefused(edited, ["/keysets/0/object", "unknown field"])
    }

    @Test("`revision: 0` below the objects' revisions is refused (it would hand out existing eTags)")
    func revisionBelowObjects() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var top = try await makeState().objectValue ?? [:]
        top["revision"] = 0
        try expectRefused(.object(top), ["/revision", "revision 0", "at least"])
    }

    @Test("an object's eTag ahead of the revision is refused, even when its revision field was lowered")
    func eTagAhead() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = try await makeState()
        var top = document.objectValue ?? [:]
        let revision = top["revision"]?.int64Value ?? 0
        top["revision"] = .int(revision - 1)
        // Lower every object's revision field too: the eTags still give the truth away.
        var keyset = top["keysets"]?[0]?.objectValue ?? [:]
        keyset["objects"] = .array(
            (keyset["objects"]?.arrayValue ?? []).map { object in
                var fields = object.objectValue ?? [:]
                fields["revision"] = 1
                return .object(fields)
            })
        top["keysets"] = [.object(keyset)]
        try expectRefused(.object(top), ["eTag", "belongs to revision \(revision)"])
    }

    @Test("a membership whose user was deleted by hand is refused")
    func danglingMembership() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let document = try await makeState()
        let objects = (document["keysets"]?[0]?["objects"]?.arrayValue ?? []).filter { $0["id"]?.stringValue != "u1" }
        try expectRefused(editingKeyset(document, "objects", .array(objects)), ["\"u1\"", "does not hold"])
    }

    @Test("temporary files an interrupted save left are removed at start; a live process's are kept")
    func leftoverTemporaryFiles() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await makeState()
        var gone: Int32 = 999_999
        while !(kill(gone, 0) != 0 && errno == ESRCH) { gone -= 1 }
        let leftovers = [
            directory.appendingPathComponent(".state.json.\(gone).tmp").path,
            directory.appendingPathComponent(".state.json.journal.\(gone).tmp").path,
        ]
        let alive = directory.appendingPathComponent(".state.json.1.tmp").path
        for file in leftovers + [alive] { try Data("{half a save".utf8).write(to: URL(fileURLWithPath: file)) }
        let emulator = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        #expect(try await send(emulator, "GET", "users/u7").status == 200)
        for file in leftovers { #expect(!FileManager.default.fileExists(atPath: file), "\(file) was left") }
        #expect(FileManager.default.fileExists(atPath: alive))
    }
}

/// Issue 18, point 5: a save appends what changed to a journal instead of rewriting the file.
@Suite("State journal")
struct StateJournalTests {
    let directory: URL
    let path: String

    init() throws {
        (directory, path) = try temporaryStateFile()
    }

    @Test("a write with 5,000 objects stored appends one small record and leaves the snapshot alone")
    func writeCostIsIndependentOfTheStore() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // Scoped: the emulator holds the state file's lock until it is gone.
        do {
            let emulator = try Emulator(configuration: EmulatorConfiguration(seed: seed(users: 5_000), stateFile: path))
            let snapshot = try #require(bytes(path))
            let snapshotInode = inode(path)
            var journalSize = bytes(path + ".journal")?.count ?? 0
            for index in 0..<20 {
                let (status, _) = try await createUser(emulator, "new\(index)", payload: ["n": .int(Int64(index))])
                #expect(status == 201)
                let size = bytes(path + ".journal")?.count ?? 0
                #expect(size > journalSize && size - journalSize < 1_024, "record of \(size - journalSize) bytes")
                journalSize = size
            }
            #expect(bytes(path) == snapshot)
            #expect(inode(path) == snapshotInode)
        }
        // And everything is there after a restart.
        let restarted = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        #expect(try await send(restarted, "GET", "users/new19").status == 200)
        #expect(try await send(restarted, "GET", "users/u4999").status == 200)
    }

    @Test("updates, deletes with cascades, classes and a new keyset all come back from the journal")
    func replay() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = EmulatorConfiguration(seed: seed(users: 10, channels: 5), stateFile: path)
        var emulator: Emulator? = try Emulator(configuration: configuration)
        try await writeChanges(try #require(emulator))
        let sequence = await emulator?.lastSequence
        emulator = nil  // it holds the state file's lock until it is gone
        let restarted = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        #expect(try await send(restarted, "GET", "users/u3").json?["data"]?["payload"]?["n"] == 333)
        #expect(try await send(restarted, "GET", "users/u1").status == 404)
        #expect(try await send(restarted, "GET", "memberships?user_id=u1").json?["data"]?.arrayValue?.isEmpty == true)
        #expect(try await send(restarted, "GET", "entities/p1", subscribeKey: "shop").status == 200)
        #expect(await restarted.lastSequence == sequence)
    }

    /// A patch, a delete with a cascade, classes and an object in a new keyset.
    private func writeChanges(_ emulator: Emulator) async throws {
        let patched = try await send(
            emulator, "PATCH", "users/u3", body: nil, contentType: "application/json-patch+json")
        #expect(patched.status == 400)  // no body: refused, nothing saved
        let response = await emulator.respond(
            to: ServerRequest(
                method: "PATCH", target: dataSyncPath("users/u3"),
                headers: [(name: "Content-Type", value: "application/json-patch+json")],
                body: Array(#"[{"op":"replace","path":"/payload/n","value":333}]"#.utf8)))
        #expect(response.status == 200)
        #expect(try await send(emulator, "DELETE", "users/u1").status == 200)  // and its membership
        try await emulator.defineClasses(
            ["entityClasses": [["name": "Product", "versions": [["version": 1, "properties": []]]]]],
            subscribeKey: "shop")
        let product = try await send(
            emulator, "POST", "entities", body: ["id": "p1", "entityClass": "Product", "entityClassVersion": 1],
            contentType: "application/vnd.pubnub.objects.entity+json;version=1", subscribeKey: "shop")
        #expect(product.status == 201)
    }

    @Test("a torn last record (a write never acknowledged) is cut off at start; the rest loads")
    func tornTail() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let emulator = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            for index in 0..<5 { #expect(try await createUser(emulator, "t\(index)").0 == 201) }
        }
        let good = try #require(bytes(path + ".journal"))
        for tail: [UInt8] in [
            [0x40, 0x00], [0xFF, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78, 0x7B], good.suffix(50).map { $0 },
        ] {
            try Data(good + tail).write(to: URL(fileURLWithPath: path + ".journal"))
            let restarted = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            for index in 0..<5 { #expect(try await send(restarted, "GET", "users/t\(index)").status == 200) }
            #expect(bytes(path + ".journal") == good)
        }
        // A record whose checksum fails with more records after it is damage, not a torn write.
        var damaged = good
        let headerLength = Int(good[0]) | Int(good[1]) << 8 | Int(good[2]) << 16 | Int(good[3]) << 24
        damaged[8 + headerLength + 8 + 2] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: path + ".journal"))
        let error = #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        }
        #expect(error?.message.contains("fails its checksum and more records follow") == true)
    }

    @Test("the journal is compacted into a new snapshot once it outgrows it; nothing is lost")
    func compaction() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var generation: Int64?
        do {
            let emulator = try Emulator(configuration: EmulatorConfiguration(seed: seed(users: 10), stateFile: path))
            generation = try readJSON(path)["generation"]?.int64Value
            let blob = String(repeating: "b", count: 4_000)
            for index in 0..<300 {
                #expect(try await createUser(emulator, "c\(index)", payload: ["blob": .string(blob)]).0 == 201)
            }
        }
        let compacted = try readJSON(path)
        #expect((compacted["generation"]?.int64Value ?? 0) > (generation ?? 0))
        #expect((bytes(path + ".journal")?.count ?? 0) < 1 << 20)
        let restarted = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        for index in [0, 150, 299] { #expect(try await send(restarted, "GET", "users/c\(index)").status == 200) }
    }

    @Test("a journal older than its snapshot (a compaction cut short) is replaced; a newer one is refused")
    func generations() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var journal: [UInt8] = []
        do {
            let emulator = try Emulator(configuration: EmulatorConfiguration(seed: seed(users: 3), stateFile: path))
            journal = try #require(bytes(path + ".journal"))
            #expect(try await createUser(emulator, "x").0 == 201)
        }
        // Pretend a compaction wrote generation 5 and was killed before replacing the journal.
        var document = StateFile.snapshot(try loadEngine(), generation: 5).objectValue ?? [:]
        document["generation"] = 5
        try write(.object(document), to: path)
        do {
            let restarted = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            #expect(try await send(restarted, "GET", "users/x").status == 200)
            #expect(bytes(path + ".journal") != journal)
        }
        // Now put an older snapshot back (generation 1) next to the generation-5 journal.
        document["generation"] = 1
        try write(.object(document), to: path)
        let error = #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        }
        #expect(error?.message.contains("an older copy put back?") == true)
        // A journal without its snapshot is refused too.
        try FileManager.default.removeItem(atPath: path)
        let orphan = #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        }
        #expect(orphan?.message.contains("which does not exist") == true)
    }

    /// The engine of an emulator loaded from the state file, for building snapshots by hand.
    private func loadEngine() throws -> Engine {
        let engine = Engine(filterFastConditionLimit: 10, clock: .system())
        _ = try StatePersistence.open(path: path, into: engine)
        return engine
    }
}

/// Issue 18, point 6: a change that cannot be saved is rolled back, so a retry sees no contradiction.
@Suite("Failed saves")
struct FailedSaveTests {
    let directory: URL
    let path: String

    init() throws {
        (directory, path) = try temporaryStateFile()
    }

    private func makeEmulator(_ faults: StorageFaults) throws -> Emulator {
        var configuration = EmulatorConfiguration(seed: seed(users: 2), stateFile: path)
        configuration.storageFaults = faults
        return try Emulator(configuration: configuration)
    }

    @Test("a create whose save fails is not made: 500 saying so, 404 after, and the retry is a 201, not a 409")
    func failedCreate() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let faults = StorageFaults()
        var eTag: String?
        // Scoped: the emulator holds the state file's lock until it is gone.
        do {
            let emulator = try makeEmulator(faults)
            let port = try #require(try await emulator.start().port.map(UInt16.init))
            let sequence = await emulator.lastSequence
            faults.inject(.appendFails)
            let replies = try await onThread { () throws -> [RawHTTPResponse] in
                let connection = try RawSocket(port: port)
                let body = try dataBody(["id": "carol", "entityClassVersion": 1, "payload": ["team": "web"]])
                return [
                    try connection.request(
                        "POST", dataSyncPath("users"), headers: [("Content-Type", userMediaType)], body: body),
                    try connection.request("GET", dataSyncPath("users/carol")),
                    try connection.request(
                        "POST", dataSyncPath("users"), headers: [("Content-Type", userMediaType)], body: body),
                    try connection.request("GET", dataSyncPath("users/carol")),
                ]
            }
            await emulator.stop()
            #expect(replies.map(\.status) == [500, 404, 201, 200])
            #expect(replies[0].text.contains("nothing changed and retrying is safe"))
            // The failed write is not on the change feed; the retry is the only change.
            #expect(await emulator.lastSequence == sequence + 1)
            let changes = await emulator.changes(after: sequence)
            #expect(changes.map(\.id) == ["carol"])
            eTag = try JSONValue(parsing: replies[2].body)["data"]?["eTag"]?.stringValue
        }
        let restarted = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        let stored = try await send(restarted, "GET", "users/carol")
        #expect(stored.json?["data"]?["eTag"]?.stringValue == eTag)
    }

    @Test("an update whose fsync fails is undone and cut from the journal; the retry with the same If-Match works")
    func failedUpdate() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let faults = StorageFaults()
        do {
            let emulator = try makeEmulator(faults)
            let before = try await send(emulator, "GET", "users/u1")
            let eTag = try #require(before.json?["data"]?["eTag"]?.stringValue)
            let journal = bytes(path + ".journal")
            faults.inject(.syncFails)
            func patch() async -> ServerResponse {
                await emulator.respond(
                    to: ServerRequest(
                        method: "PATCH", target: dataSyncPath("users/u1"),
                        headers: [
                            (name: "Content-Type", value: "application/json-patch+json"),
                            (name: "If-Match", value: eTag),
                        ],
                        body: Array(#"[{"op":"replace","path":"/payload/n","value":99}]"#.utf8)))
            }
            #expect(await patch().status == 500)
            #expect(bytes(path + ".journal") == journal)
            let after = try await send(emulator, "GET", "users/u1")
            #expect(after.json?["data"]?["eTag"]?.stringValue == eTag)
            #expect(after.json?["data"]?["payload"]?["n"] == 1)
            #expect(await patch().status == 200)
        }
        let restarted = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        #expect(try await send(restarted, "GET", "users/u1").json?["data"]?["payload"]?["n"] == 99)
    }

    @Test("a delete with cascades whose save fails puts everything back")
    func failedDelete() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let faults = StorageFaults()
        var configuration = EmulatorConfiguration(seed: seed(users: 3, channels: 3), stateFile: path)
        configuration.storageFaults = faults
        let emulator = try Emulator(configuration: configuration)
        faults.inject(.appendFails)
        #expect(try await send(emulator, "DELETE", "users/u2").status == 500)
        #expect(try await send(emulator, "GET", "users/u2").status == 200)
        #expect(try await send(emulator, "GET", "memberships?user_id=u2").json?["data"]?.arrayValue?.count == 1)
        // The pair index came back too: a second membership of u2 in c2 is still a conflict.
        let duplicate = try await send(
            emulator, "POST", "memberships", body: ["channelId": "c2", "userId": "u2", "relationshipClassVersion": 1],
            contentType: membershipMediaType)
        #expect(duplicate.status == 409)
        #expect(try await send(emulator, "DELETE", "users/u2").status == 200)
        #expect(try await send(emulator, "GET", "memberships?user_id=u2").json?["data"]?.arrayValue?.isEmpty == true)
    }

    @Test("a seed that cannot be saved keeps nothing, and says so")
    func failedSeed() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let faults = StorageFaults()
        let emulator = try makeEmulator(faults)
        faults.inject(.appendFails)
        let error = await #expect(throws: EmulatorError.self) {
            try await emulator.seed(["keysets": ["demo": ["users": [["id": "s1"], ["id": "s2"]]]]])
        }
        #expect(error?.code == .fileAccess)
        #expect(error?.message.contains("nothing was kept") == true)
        #expect(try await send(emulator, "GET", "users/s1").status == 404)
        try await emulator.seed(["keysets": ["demo": ["users": [["id": "s1"]]]]])
        #expect(try await send(emulator, "GET", "users/s1").status == 200)
    }

    @Test("a read whose expiry sweep cannot be saved is still answered")
    func failedSweepOnRead() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let faults = StorageFaults()
        var configuration = EmulatorConfiguration(seed: seed(users: 2), stateFile: path, startTime: Date())
        configuration.storageFaults = faults
        let emulator = try Emulator(configuration: configuration)
        await emulator.advanceTime(days: 40)
        try await emulator.seed(["keysets": ["demo": ["users": [["id": "fresh"]]]]])
        faults.inject(.appendFails, count: 2)
        await emulator.advanceTime(days: 40)  // the sweep's save fails: it is undone
        // The read's own sweep cannot be saved either: the read is answered all the same.
        #expect(try await send(emulator, "GET", "users/fresh").status == 404)
        let listed = try await send(emulator, "GET", "users")
        #expect(listed.status == 200)
        #expect(listed.json?["data"]?.arrayValue?.isEmpty == true)
    }
}
