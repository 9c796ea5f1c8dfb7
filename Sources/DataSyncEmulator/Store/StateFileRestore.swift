import Foundation
package import JSONCore

/// Restoring a state file (its snapshot and the journal next to it) outside a running emulator,
/// through the same code the emulator starts with: for the `fuzz-state` harness and its
/// regression tests.
package enum StateFileRestore {
    /// What a restore gave: the state as a snapshot document (without its journal generation)
    /// and the counts the start-up log reports.
    package struct Restored {
        package var state: JSONValue
        package var replayedRecords: Int
        package var truncatedBytes: Int
    }

    /// Restores the state file at `path` (and `<path>.journal` when there is one) into a fresh
    /// engine. A refused state throws a `corruptStateFile` error that names the file and the
    /// place; a failure to read or write throws `fileAccess`. With `saveAfterwards`, the restored
    /// state is then written back with the emulator's own save of the whole state (a new
    /// snapshot generation and an empty journal), which is what the next restore reads.
    package static func restore(path: String, saveAfterwards: Bool = false) throws(EmulatorError) -> Restored {
        let engine = Engine(filterFastConditionLimit: 8, clock: .manual(startingAt: .init(timeIntervalSince1970: 0)))
        let persistence = try StatePersistence.open(path: path, into: engine)
        if saveAfterwards { try persistence.compact(engine) }
        return Restored(
            state: StateFile.snapshot(engine), replayedRecords: persistence.loadReport.replayedRecords,
            truncatedBytes: persistence.loadReport.truncatedBytes)
    }

    /// Loads a snapshot document (no journal, no file) into a fresh engine and gives the state
    /// back as a snapshot document, or throws the `corruptStateFile` refusal.
    package static func restore(document: JSONValue) throws(EmulatorError) -> JSONValue {
        let engine = Engine(filterFastConditionLimit: 8, clock: .manual(startingAt: .init(timeIntervalSince1970: 0)))
        try StateFile.restore(document, into: engine)
        return StateFile.snapshot(engine)
    }

    /// One journal record as the emulator frames it: length and CRC-32 of `payload`, then `payload`.
    package static func journalRecord(_ payload: [UInt8]) -> [UInt8] {
        StatePersistence.frame(payload)
    }

    /// The `format` a journal's header record names.
    package static var journalFormat: String { StatePersistence.journalFormat }
}
