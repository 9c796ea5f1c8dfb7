// fuzz-state: the emulator's state-file restore (snapshot plus journal) on arbitrary bytes.
//
// Input layout: the first byte holds flags, the rest is split on the byte 0x1E (a JSON text
// cannot hold it raw). The first part is the snapshot (`state.json`); the others make the journal
// (`state.json.journal`):
//   bit 0  there is a journal
//   bit 1  the journal is the remaining bytes as they are (framing and checksums up to the input);
//          otherwise each part is one payload, framed with its right length and CRC-32
//   bit 2  (framed) a valid header for the snapshot's generation comes first
//   bit 3  (framed) the last record is cut short by the next byte's value, as a torn write is
//
// A restore must either succeed or be refused with a `corruptStateFile` error that names the
// file. A restored state, saved by the emulator's own save, must restore to the same state, and
// its snapshot document must load on its own to the same state.
//
// Replay a corpus: `swift run fuzz-state FILE-OR-FOLDER...`; fuzz: `Scripts/fuzz.sh state 60`.

import DataSyncEmulator
import Foundation
import FuzzSupport
import JSONCore

func finding(_ what: String, _ input: [UInt8]) -> Never {
    print("\(what) for input \(Array(input.prefix(300)))")
    abort()
}

/// Where the files go: memory-backed when the system has it, so fsync costs nothing.
let directory: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let path = (base as NSString).appendingPathComponent("fuzz-state-\(getpid())")
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()
/// `FUZZ_STATE_VERBOSE=1` prints what each replayed input gave (to check a seed does what it should).
let verbose = ProcessInfo.processInfo.environment["FUZZ_STATE_VERBOSE"] != nil
let statePath = (directory as NSString).appendingPathComponent("state.json")
let journalPath = statePath + ".journal"

func removeFiles() {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
        try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name))
    }
}

/// The journal bytes the input describes.
func journal(flags: UInt8, parts: [ArraySlice<UInt8>], snapshot: [UInt8]) -> [UInt8] {
    if flags & 2 != 0 { return Array(parts.joined(separator: [0x1E])) }
    var records: [[UInt8]] = []
    if flags & 4 != 0 {
        let generation = (try? JSONValue(parsing: snapshot))?["generation"]?.int64Value ?? 0
        let header: JSONValue = [
            "format": .string(StateFileRestore.journalFormat), "formatVersion": 1, "generation": .int(generation),
        ]
        records.append(StateFileRestore.journalRecord((try? header.jsonBytes()) ?? []))
    }
    var cut = 0
    for (index, part) in parts.enumerated() {
        var payload = Array(part)
        if flags & 8 != 0, index == parts.count - 1, let first = payload.first {
            cut = Int(first)
            payload.removeFirst()
        }
        records.append(StateFileRestore.journalRecord(payload))
    }
    var bytes = Array(records.joined())
    if cut > 0, let last = records.last { bytes.removeLast(min(cut, last.count - 1)) }
    return bytes
}

func exercise(_ input: [UInt8]) {
    guard let flags = input.first else { return }
    let parts = input.dropFirst().split(separator: 0x1E, omittingEmptySubsequences: false)
    let snapshot = Array(parts.first ?? [])
    removeFiles()
    defer { removeFiles() }
    guard FileManager.default.createFile(atPath: statePath, contents: Data(snapshot)) else {
        finding("cannot write \(statePath)", input)
    }
    if flags & 1 != 0 {
        let bytes = journal(flags: flags, parts: Array(parts.dropFirst()), snapshot: snapshot)
        guard FileManager.default.createFile(atPath: journalPath, contents: Data(bytes)) else {
            finding("cannot write \(journalPath)", input)
        }
    }

    let restored: StateFileRestore.Restored
    do {
        restored = try StateFileRestore.restore(path: statePath, saveAfterwards: true)
    } catch {
        guard error.code == .corruptStateFile, error.message.contains(statePath) else {
            finding("refused without a clear error: \(error)", input)
        }
        if verbose { print("refused: \(error.message)") }
        return
    }
    let again: StateFileRestore.Restored
    do {
        again = try StateFileRestore.restore(path: statePath)
    } catch {
        finding("the saved state does not restore: \(error)", input)
    }
    if again.state != restored.state { finding("the saved state restores to a different state", input) }
    if again.replayedRecords != 0 { finding("a fresh save left \(again.replayedRecords) journal records", input) }
    do {
        let alone = try StateFileRestore.restore(document: restored.state)
        if alone != restored.state { finding("the snapshot document alone loads differently", input) }
    } catch {
        finding("the snapshot document alone is refused: \(error)", input)
    }
    if verbose {
        let objects = restored.state["keysets"]?.arrayValue?.map { $0["objects"]?.arrayValue?.count ?? 0 } ?? []
        print(
            "restored: objects per keyset \(objects), \(restored.replayedRecords) records replayed, "
                + "\(restored.truncatedBytes) bytes cut off")
    }
}

// The driver ends the process with exit(): the working directory goes with it.
atexit { try? FileManager.default.removeItem(atPath: directory) }
FuzzDriver.main(exercise)
