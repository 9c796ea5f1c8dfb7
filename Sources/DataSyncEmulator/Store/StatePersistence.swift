import EmulatorHTTP
import Foundation
import JSONCore
import PubNubBase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How saves reach the state file: appended to a journal (the default), or the whole state
/// rewritten every time (the behaviour before the journal, kept to measure it side by side).
package enum StateFileWrites: Sendable, Hashable {
    /// Each save appends one record of what changed to `<state file>.journal`; the snapshot is
    /// rewritten only when the journal outgrows it.
    case journal
    /// Each save rewrites the whole snapshot (temporary file, fsync, rename).
    case rewriteWholeFile
}

/// Failures to inject into the state file's storage, for tests of what a failed save does.
/// Safe from any thread.
final class StorageFaults: Sendable {
    enum Kind: Sendable {
        /// The journal append fails before writing anything.
        case appendFails
        /// The journal record is written, then its fsync fails (the record must be cut off again).
        case syncFails
        /// A snapshot (compaction) fails before replacing the state file.
        case snapshotFails
    }

    private let queued = Locked<[Kind]>([])

    init() {}

    /// Makes the next `count` storage operations of `kind`'s sort fail, in order.
    func inject(_ kind: Kind, count: Int = 1) {
        queued.withLock { $0 += Array(repeating: kind, count: count) }
    }

    /// Takes the first queued fault among `kinds`, if any.
    func take(_ kinds: Set<Kind>) -> Kind? {
        queued.withLock { faults in
            guard let index = faults.firstIndex(where: kinds.contains) else { return nil }
            return faults.remove(at: index)
        }
    }
}

/// The state file and its journal: the snapshot `<path>` (the whole state as one JSON document,
/// ``StateFile``) and `<path>.journal`, an append-only list of the changes saved since.
///
/// **Saving** a change appends one record to the journal (the objects written, with their whole
/// new state; the ids removed; a keyset's classes when they changed), then `fdatasync`s it, before
/// the answer leaves: a save costs what the change holds, not what the store holds, and an
/// acknowledged write survives `kill -9` and power loss. When the journal grows past the
/// snapshot (and past 1 MiB), the state is **compacted**: a new snapshot is written to a temporary
/// file, fsynced, renamed over `<path>` (the directory fsynced too), and a new, empty journal
/// replaces the old one the same way.
///
/// **Records** are framed `[length: UInt32 LE][CRC-32 of the payload: UInt32 LE][payload: JSON]`;
/// the first is a header naming the snapshot **generation** the journal continues. At start the
/// snapshot is loaded, then the records of a journal of the same generation are replayed. A
/// record cut short or failing its checksum at the very end of the journal is a write that never
/// completed (it was never acknowledged): the journal is truncated before it. A bad record
/// followed by more data is corruption: refused, nothing is changed. A journal of an older
/// generation is what a compaction interrupted after its new snapshot left: it is already in the
/// snapshot and is replaced. A journal without its snapshot, or newer than it, is refused.
///
/// Confined to the DataSync service's actor, like the engine.
final class StatePersistence {
    let path: String
    let journalPath: String
    let writes: StateFileWrites
    let faults: StorageFaults?
    /// The journal is compacted once it is larger than this many times the snapshot…
    static let compactionRatio = 1.0
    /// …and larger than this.
    static let minimumCompactionBytes = 1 << 20

    private var generation: Int64 = 0
    /// The lock file `<path>.lock`, held (`flock`) while this persistence lives: a second
    /// emulator on the same state file is refused at start.
    private let lock: Int32
    /// The open journal (-1 before the first save of a new state file, or after a failure that
    /// left the journal unusable).
    private var journal: Int32 = -1
    /// The journal's length up to its last complete record: appends go there.
    private var journalBytes = 0
    private var snapshotBytes = 0
    /// When the journal may hold bytes past `journalBytes` that could not be cut off, or cannot be
    /// appended to: the next save writes a snapshot instead.
    private var needsSnapshot = false
    /// The journal length at which to try compacting again after a compaction failed.
    private var retryCompactionAt: Int?

    /// What loading found, for the start-up log and tests.
    struct LoadReport: Sendable, Hashable {
        var loadedSnapshot = false
        var replayedRecords = 0
        var truncatedBytes = 0
        var removedTemporaryFiles: [String] = []
    }

    private(set) var loadReport = LoadReport()

    private init(path: String, lock: Int32, writes: StateFileWrites, faults: StorageFaults?) {
        self.path = path
        self.lock = lock
        self.journalPath = path + ".journal"
        self.writes = writes
        self.faults = faults
    }

    deinit {
        if journal >= 0 { close(journal) }
        // Closing the last descriptor of the lock file releases its lock.
        close(lock)
    }

    // MARK: Opening

    /// Locks the state file (``StateFileAccess/lock(_:)``), removes temporary files an
    /// interrupted save left, then loads the snapshot and replays its journal into `engine` when
    /// there is one. Throws, changing nothing on disk but the lock file, when the state is refused,
    /// when the state file or its journal is a symbolic link or another user's file, or when
    /// another emulator holds the lock.
    static func open(
        path: String, into engine: Engine, writes: StateFileWrites = .journal, faults: StorageFaults? = nil
    ) throws(EmulatorError) -> StatePersistence {
        let lock = try StateFileAccess.lock(path)
        let persistence = StatePersistence(path: path, lock: lock, writes: writes, faults: faults)
        persistence.loadReport.removedTemporaryFiles = persistence.removeLeftoverTemporaryFiles()
        try persistence.load(into: engine)
        return persistence
    }

    private func refused(_ file: String, _ message: String) -> EmulatorError {
        EmulatorError(code: .corruptStateFile, message: "\(file) is refused and was left as it is: \(message)")
    }

    private func load(into engine: Engine) throws(EmulatorError) {
        let journalExists = StateFileAccess.exists(journalPath)
        guard let snapshot = try StateFile.readBytes(path: path) else {
            if journalExists {
                throw refused(
                    journalPath,
                    "it continues the state file \(path), which does not exist; remove the journal too to start "
                        + "afresh, or put the state file back")
            }
            return
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: snapshot)
        } catch {
            throw refused(path, "it is not valid JSON (\(error))")
        }
        do throws(StateFile.Refusal) {
            generation = try StateFile.load(document, into: engine)
        } catch {
            throw refused(path, error.message)
        }
        snapshotBytes = snapshot.count
        loadReport.loadedSnapshot = true
        var journalValid = false
        var tornTail: (at: Int, length: Int)?
        if journalExists {
            (journalValid, tornTail) = try replayJournal(into: engine)
        }
        do throws(StateFile.Refusal) {
            try StateFile.validate(engine)
        } catch {
            let source =
                loadReport.replayedRecords > 0
                ? "\(path) (with \(loadReport.replayedRecords) records of \(journalPath) replayed)" : path
            throw refused(source, error.message)
        }
        if let tornTail {
            // A write that never completed, and so was never acknowledged: cut it off.
            try truncateJournal(to: tornTail.at, from: tornTail.length)
            loadReport.truncatedBytes = tornTail.length - tornTail.at
        }
        if journalValid && writes == .journal {
            try openJournalForAppending()
        } else if writes == .journal {
            // No journal, or a stale one: start one for the snapshot as it is.
            try writeNewJournal(generation: generation)
        }
    }

    /// Replays the journal's records; returns whether it continues the loaded snapshot (false
    /// for a stale journal, which is left for replacement) and where a torn last record starts.
    private func replayJournal(into engine: Engine) throws(EmulatorError) -> (Bool, (at: Int, length: Int)?) {
        guard let bytes = try StateFile.readBytes(path: journalPath) else { return (false, nil) }
        var offset = 0
        guard let header = Self.record(in: bytes, at: &offset), case .complete(let headerPayload) = header,
            let headerDocument = try? JSONValue(parsing: headerPayload),
            headerDocument["format"]?.stringValue == Self.journalFormat,
            let journalGeneration = headerDocument["generation"]?.int64Value
        else {
            throw refused(journalPath, "it does not start with a journal header (format \(Self.journalFormat))")
        }
        if journalGeneration < generation { return (false, nil) }
        if journalGeneration > generation {
            throw refused(
                journalPath,
                "it continues generation \(journalGeneration) of the state, but \(path) is generation \(generation) "
                    + "(an older copy put back?); remove the journal to use the state file as it is")
        }
        var number = 0
        while offset < bytes.count {
            let start = offset
            number += 1
            switch Self.record(in: bytes, at: &offset) {
            case .complete(let payload)?:
                do throws(StateFile.Refusal) {
                    try apply(payload, to: engine)
                } catch {
                    throw refused(journalPath, "record \(number) (at byte \(start)): \(error.message)")
                }
                loadReport.replayedRecords += 1
            case .torn?, nil:
                guard offset >= bytes.count else {
                    throw refused(
                        journalPath,
                        "record \(number) (at byte \(start)) fails its checksum and more records follow it: the "
                            + "journal is damaged, not merely cut short")
                }
                journalBytes = start
                return (true, (start, bytes.count))
            }
        }
        journalBytes = bytes.count
        return (true, nil)
    }

    private func truncateJournal(to length: Int, from previous: Int) throws(EmulatorError) {
        guard let fd = try StateFileAccess.openExisting(journalPath, flags: O_WRONLY) else {
            throw EmulatorError(code: .fileAccess, message: "\(journalPath) went away before its torn tail was cut off")
        }
        defer { close(fd) }
        guard ftruncate(fd, off_t(length)) == 0, fsync(fd) == 0 else {
            throw Self.systemError("cannot cut the torn tail (\(previous - length) bytes) off \(journalPath)")
        }
    }

    /// Applies one journal record's payload (``StateFile`` shapes) to the engine.
    private func apply(_ payload: ArraySlice<UInt8>, to engine: Engine) throws(StateFile.Refusal) {
        guard let record = try? JSONValue(parsing: Array(payload)), let fields = record.objectValue else {
            throw StateFile.Refusal(path: "", reason: "not a JSON object")
        }
        try StateFile.refuseUnknownFields(fields, allowed: ["revision", "keysets"], at: "")
        guard let revision = fields["revision"]?.int64Value, revision >= 0,
            UInt64(revision) >= engine.transactions.revision
        else {
            throw StateFile.Refusal(path: "/revision", reason: "missing, negative, or below the revision before it")
        }
        guard let keysets = fields["keysets"]?.arrayValue else {
            throw StateFile.Refusal(path: "/keysets", reason: "missing, or not an array")
        }
        engine.transactions.revision = UInt64(revision)
        for (index, item) in keysets.enumerated() {
            let path = "/keysets/\(index)"
            guard let entry = item.objectValue else { throw StateFile.Refusal(path: path, reason: "not an object") }
            try StateFile.refuseUnknownFields(
                entry, allowed: ["subscribeKey", "entityClasses", "relationshipClasses", "objects", "removed"], at: path
            )
            guard let subscribeKey = entry["subscribeKey"]?.stringValue, !subscribeKey.isEmpty else {
                throw StateFile.Refusal(path: path + "/subscribeKey", reason: "missing, or not a non-empty string")
            }
            let hasClasses = entry["entityClasses"] != nil || entry["relationshipClasses"] != nil
            let keyset: Keyset
            if let existing = engine.store.keysets[subscribeKey] {
                keyset = existing
            } else {
                guard hasClasses, let added = engine.store.addLoadedKeyset(subscribeKey) else {
                    throw StateFile.Refusal(path: path, reason: "a keyset new to the state comes with its classes")
                }
                keyset = added
            }
            for (removedIndex, json) in (entry["removed"]?.arrayValue ?? []).enumerated() {
                guard let space = json["space"]?.stringValue.flatMap(ClassKind.init(rawValue:)),
                    let id = json["id"]?.stringValue
                else {
                    throw StateFile.Refusal(path: "\(path)/removed/\(removedIndex)", reason: "not {\"space\",\"id\"}")
                }
                keyset.remove(space, id)
            }
            if hasClasses {
                for field in ["entityClasses", "relationshipClasses"] where entry[field]?.arrayValue == nil {
                    throw StateFile.Refusal(path: path + "/" + field, reason: "missing, or not an array")
                }
                keyset.registry = try StateFile.registry(entry, at: path)
            }
            for (objectIndex, json) in (entry["objects"]?.arrayValue ?? []).enumerated() {
                let object = try StateFile.storedObject(
                    json, registry: keyset.registry, at: "\(path)/objects/\(objectIndex)")
                keyset.remove(object.kind.space, object.id)
                keyset.insert(object)
            }
        }
    }

    /// Removes `.<name>.<pid>.<random>.tmp` and `.<name>.journal.<pid>.<random>.tmp` files (and
    /// the `.<name>.<pid>.tmp` of earlier versions) next to the state file whose process is gone
    /// (or is this one, which holds the lock): what a save interrupted before its rename leaves.
    /// Removing a link removes the link, never what it points at.
    private func removeLeftoverTemporaryFiles() -> [String] {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        let name = url.lastPathComponent
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        var removed: [String] = []
        for entry in entries.sorted() {
            for prefix in [".\(name).", ".\(name).journal."] where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
                let middle = entry.dropFirst(prefix.count).dropLast(".tmp".count)
                let parts = middle.split(separator: ".", omittingEmptySubsequences: false)
                guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty }), let pid = parts.first.flatMap({ Int32($0) }),
                    pid > 0
                else { continue }
                guard pid == getpid() || (kill(pid, 0) != 0 && errno == ESRCH) else { continue }
                let full = directory.appendingPathComponent(entry).path
                if (try? FileManager.default.removeItem(atPath: full)) != nil { removed.append(full) }
            }
        }
        return removed
    }

    // MARK: Saving

    /// Saves what changed since the last save: one journal record, or a new snapshot when the
    /// journal cannot be appended to (or the mode says so). Throws when nothing was saved; the
    /// caller then rolls the change back.
    func save(_ engine: Engine) throws(EmulatorError) {
        if writes == .rewriteWholeFile || needsSnapshot || journal < 0 {
            try compact(engine)
            return
        }
        let keysets = engine.store.changes.unsavedKeysets
        let payload: [UInt8]
        do {
            payload = try Self.recordPayload(engine, keysets).jsonBytes()
        } catch {
            throw EmulatorError(code: .fileAccess, message: "cannot encode the change for \(journalPath): \(error)")
        }
        guard payload.count < Int(UInt32.max / 2) else {
            try compact(engine)
            return
        }
        try append(Self.frame(payload))
        engine.store.changes.markSaved(keysets)
        let threshold = max(Self.minimumCompactionBytes, Int(Double(snapshotBytes) * Self.compactionRatio))
        if journalBytes > max(threshold, retryCompactionAt ?? 0) {
            // The change is saved already: a failed compaction only means the journal keeps
            // growing until the next try, at twice the length.
            do throws(EmulatorError) {
                try compact(engine)
                retryCompactionAt = nil
            } catch {
                retryCompactionAt = journalBytes * 2
            }
        }
    }

    private func append(_ record: [UInt8]) throws(EmulatorError) {
        let fault = faults?.take([.appendFails, .syncFails])
        if fault == .appendFails {
            throw EmulatorError(code: .fileAccess, message: "cannot write to \(journalPath): injected failure")
        }
        var failure: String?
        if !Self.writeAll(journal, record, at: journalBytes) {
            failure = "cannot write to \(journalPath): \(Self.describe(errno))"
        } else if fault == .syncFails {
            failure = "cannot fsync \(journalPath): injected failure"
        } else if syncData(journal) != 0 {
            failure = "cannot fsync \(journalPath): \(Self.describe(errno))"
        }
        guard let failure else {
            journalBytes += record.count
            return
        }
        // The record must not survive: it was not acknowledged, and the change is being undone.
        if ftruncate(journal, off_t(journalBytes)) != 0 || syncData(journal) != 0 {
            needsSnapshot = true
        }
        throw EmulatorError(code: .fileAccess, message: failure)
    }

    /// Writes the whole state as a new snapshot generation and starts an empty journal for it.
    func compact(_ engine: Engine) throws(EmulatorError) {
        if faults?.take([.snapshotFails]) != nil {
            throw EmulatorError(code: .fileAccess, message: "cannot write the state file \(path): injected failure")
        }
        let next = generation + 1
        let bytes: [UInt8]
        do {
            bytes = try StateFile.snapshot(engine, generation: next).jsonBytes()
        } catch {
            throw EmulatorError(code: .fileAccess, message: "cannot encode the state: \(error)")
        }
        try Self.replaceAtomically(path, with: bytes)
        // From here the snapshot holds everything; the old journal (an older generation) is stale.
        generation = next
        snapshotBytes = bytes.count
        engine.store.changes.markSaved(engine.store.keysets.values)
        if journal >= 0 {
            close(journal)
            journal = -1
        }
        guard writes == .journal else { return }
        do throws(EmulatorError) {
            try writeNewJournal(generation: next)
            needsSnapshot = false
        } catch {
            // Saved all the same; the next save writes a snapshot again instead of appending.
            needsSnapshot = true
        }
    }

    static let journalFormat = "datasync-emulator-journal"

    private func writeNewJournal(generation: Int64) throws(EmulatorError) {
        let header: JSONValue = [
            "format": .string(Self.journalFormat), "formatVersion": 1, "generation": .int(generation),
        ]
        let bytes = Self.frame((try? header.jsonBytes()) ?? [])
        try Self.replaceAtomically(journalPath, with: bytes)
        try openJournalForAppending()
        journalBytes = bytes.count
    }

    private func openJournalForAppending() throws(EmulatorError) {
        guard let fd = try StateFileAccess.openExisting(journalPath, flags: O_WRONLY) else {
            throw EmulatorError(code: .fileAccess, message: "cannot open \(journalPath): it went away")
        }
        if journal >= 0 { close(journal) }
        journal = fd
    }

    // MARK: Records

    /// One record: the revision after the change and, per keyset changed, what to write.
    static func recordPayload(_ engine: Engine, _ keysets: [Keyset]) -> JSONValue {
        var entries: [JSONValue] = []
        for keyset in keysets {
            let (objects, removed, classes) = keyset.unsavedState()
            var entry: [String: JSONValue] = ["subscribeKey": .string(keyset.subscribeKey)]
            if classes {
                entry["entityClasses"] = .array(keyset.registry.customClasses(.entity).map(\.jsonValue))
                entry["relationshipClasses"] = .array(keyset.registry.customClasses(.relationship).map(\.jsonValue))
            }
            if !objects.isEmpty { entry["objects"] = .array(objects.map(StateFile.persisted)) }
            if !removed.isEmpty {
                entry["removed"] = .array(
                    removed.map { ["space": .string($0.space.rawValue), "id": .string($0.id.text)] })
            }
            entries.append(.object(entry))
        }
        return ["revision": .int(Int64(truncatingIfNeeded: engine.transactions.revision)), "keysets": .array(entries)]
    }

    static func frame(_ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 8)
        let length = UInt32(payload.count)
        let checksum = Gzip.crc32(payload)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: length >> shift)) }
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: checksum >> shift)) }
        bytes += payload
        return bytes
    }

    enum Read {
        case complete(ArraySlice<UInt8>)
        /// Cut short or failing its checksum.
        case torn
    }

    /// The record at `offset`, advancing past it (to the end of the data when it is cut short);
    /// nil at the end.
    static func record(in bytes: [UInt8], at offset: inout Int) -> Read? {
        guard offset < bytes.count else { return nil }
        guard bytes.count - offset >= 8 else {
            offset = bytes.count
            return .torn
        }
        func word(_ at: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
        }
        let length = Int(word(offset))
        let checksum = word(offset + 4)
        guard bytes.count - offset - 8 >= length else {
            offset = bytes.count
            return .torn
        }
        let payload = bytes[(offset + 8)..<(offset + 8 + length)]
        offset += 8 + length
        return Gzip.crc32(Array(payload)) == checksum ? .complete(payload) : .torn
    }

    // MARK: Files

    /// Writes `bytes` to a new temporary file next to `target` (created with `O_EXCL`, never
    /// through a link, mode 0600: ``StateFileAccess/createTemporary(nextTo:suffixes:)``), fsyncs
    /// it, renames it over `target` (which replaces a link at `target` rather than writing
    /// through it) and fsyncs the directory: a crash leaves the old file or the new one, never a
    /// mix.
    static func replaceAtomically(
        _ target: String, with bytes: [UInt8], temporarySuffixes: [String]? = nil
    ) throws(EmulatorError) {
        let directory = URL(fileURLWithPath: target).deletingLastPathComponent().path
        let (fd, temporary) = try StateFileAccess.createTemporary(nextTo: target, suffixes: temporarySuffixes)
        var failure: String?
        if !writeAll(fd, bytes, at: 0) {
            failure = "cannot write \(temporary): \(describe(errno))"
        } else if fsync(fd) != 0 {
            failure = "cannot fsync \(temporary): \(describe(errno))"
        }
        close(fd)
        if failure == nil, rename(temporary, target) != 0 {
            failure = "cannot rename \(temporary) to \(target): \(describe(errno))"
        }
        if let failure {
            unlink(temporary)
            throw EmulatorError(code: .fileAccess, message: failure)
        }
        let directoryFD = openFile(directory, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at start: Int) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return pwrite(fd, base + offset, buffer.count - offset, off_t(start + offset))
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                if written == 0 { errno = EIO }
                return false
            }
        }
        return true
    }

    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    static func systemError(_ what: String) -> EmulatorError {
        EmulatorError(code: .fileAccess, message: "\(what): \(describe(errno))")
    }
}
