import Foundation
import JSONCore
import Testing

@testable import DataSyncEmulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 35, item 9: in a directory other users can write to, the state file, its journal and
/// its temporary files cannot be turned into links to other files, and two emulators cannot share
/// one state file.
@Suite("State file safety")
struct StateFileSafetyTests {
    let directory: URL
    let path: String
    /// A file the emulator must never write: what a planted link points at.
    let victim: String
    let victimContent = Array("precious, not the emulator's\n".utf8)

    init() throws {
        (directory, path) = try temporaryStateFile()
        victim = directory.appendingPathComponent("victim.txt").path
        try Data(victimContent).write(to: URL(fileURLWithPath: victim))
    }

    private func victimBytes() -> [UInt8]? {
        FileManager.default.contents(atPath: victim).map { [UInt8]($0) }
    }

    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    private func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & 0o170000 == 0o120000
    }

    private func createUser(_ emulator: Emulator, _ id: String) async throws -> Int {
        let body = try JSONValue.object(["data": ["id": .string(id), "entityClassVersion": 1]]).jsonBytes()
        let response = await emulator.respond(
            to: ServerRequest(
                method: "POST", target: dataSyncPath("users"),
                headers: [(name: "Content-Type", value: userMediaType)], body: body))
        return response.status
    }

    @Test("a link planted at the temporary file's name is not followed: the file it points at is untouched")
    func plantedTemporaryLink() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // The name earlier versions used (`.state.json.<pid>.tmp`) and the journal's.
        let planted = [
            directory.appendingPathComponent(".state.json.\(getpid()).tmp").path,
            directory.appendingPathComponent(".state.json.journal.\(getpid()).tmp").path,
        ]
        var configuration = EmulatorConfiguration(stateFile: path)
        // Every save rewrites the whole state through a temporary file.
        configuration.stateFileWrites = .rewriteWholeFile
        do {
            let emulator = try Emulator(configuration: configuration)
            for link in planted {
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
            }
            #expect(try await createUser(emulator, "alice") == 201)
            #expect(try await createUser(emulator, "bob") == 201)
        }
        #expect(victimBytes() == victimContent)
        #expect(!isLink(path))
        let saved = try JSONValue(parsing: try #require(FileManager.default.contents(atPath: path)).map { $0 })
        #expect(saved["keysets"]?[0]?["objects"]?.arrayValue?.count == 2)
    }

    @Test("a temporary name taken by a link is skipped for the next one; the link's target is untouched")
    func temporaryNameTaken() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let taken = directory.appendingPathComponent(".state.json.\(getpid()).aaaa.tmp").path
        try FileManager.default.createSymbolicLink(atPath: taken, withDestinationPath: victim)
        try StatePersistence.replaceAtomically(path, with: Array("new".utf8), temporarySuffixes: ["aaaa", "bbbb"])
        #expect(victimBytes() == victimContent)
        #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == Array("new".utf8))
        #expect(isLink(taken))
        // With every name taken, nothing is written anywhere and the failure says why.
        let error = #expect(throws: EmulatorError.self) {
            try StatePersistence.replaceAtomically(path, with: Array("newer".utf8), temporarySuffixes: ["aaaa"])
        }
        #expect(error?.message.contains("every name tried exists") == true, "\(error?.message ?? "")")
        #expect(victimBytes() == victimContent)
    }

    @Test("the state file, its journal and the lock file are written with mode 0600")
    func fileModes() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let emulator = try Emulator(
            configuration: EmulatorConfiguration(
                seed: ["keysets": ["demo": ["users": [["id": "u1"]]]]], stateFile: path))
        #expect(try await createUser(emulator, "u2") == 201)
        for file in [path, path + ".journal", path + ".lock"] {
            #expect(mode(file) == 0o600, "\(file) has mode \(String(mode(file) ?? 0, radix: 8))")
        }
        // A compaction's new snapshot too.
        var rewriting = EmulatorConfiguration(stateFile: directory.appendingPathComponent("whole.json").path)
        rewriting.stateFileWrites = .rewriteWholeFile
        let whole = try Emulator(configuration: rewriting)
        #expect(try await createUser(whole, "u3") == 201)
        #expect(mode(directory.appendingPathComponent("whole.json").path) == 0o600)
    }

    @Test("a state file that is a link is refused at start, and the file it points at is untouched")
    func stateFileLink() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
        let error = #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        }
        #expect(error?.code == .fileAccess)
        #expect(error?.message.contains("symbolic link") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(path) == true)
        #expect(victimBytes() == victimContent)
        #expect(isLink(path))
    }

    @Test("a journal that is a link is refused at start, and the file it points at is untouched")
    func journalLink() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let emulator = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            #expect(try await createUser(emulator, "u1") == 201)
        }
        try FileManager.default.removeItem(atPath: path + ".journal")
        try FileManager.default.createSymbolicLink(atPath: path + ".journal", withDestinationPath: victim)
        let error = #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        }
        #expect(error?.message.contains("symbolic link") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(path + ".journal") == true)
        #expect(victimBytes() == victimContent)
    }

    @Test("a second emulator on the same state file is refused while the first runs, and accepted after it stops")
    func secondEmulatorRefused() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let first = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            _ = try await first.start()
            #expect(try await createUser(first, "u1") == 201)
            let error = #expect(throws: EmulatorError.self) {
                _ = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
            }
            #expect(error?.code == .stateFileInUse)
            let message = error?.message ?? ""
            #expect(message.contains("in use by another emulator"), "\(message)")
            #expect(message.contains("process \(getpid())"), "\(message)")
            #expect(message.contains(path + ".lock"), "\(message)")
            // The refused one changed nothing: the first still saves.
            #expect(try await createUser(first, "u2") == 201)
            await first.stop()
        }
        let second = try Emulator(configuration: EmulatorConfiguration(stateFile: path))
        let response = await second.respond(to: ServerRequest(method: "GET", target: dataSyncPath("users/u2")))
        #expect(response.status == 200)
    }
}
