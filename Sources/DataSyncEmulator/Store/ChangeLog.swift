/// What changed in the store since the last successful save, and how to undo the open
/// transaction: shared by the engine and every keyset, confined to the engine like them.
///
/// A request runs as one transaction (``Transactions/begin()``): every object it writes and
/// every class change is noted in its keyset, with the state before it. When the save that ends
/// the transaction succeeds, the change stays and its changes are delivered on the change feed;
/// when it fails, the transaction is rolled back, so memory never holds a change the state file
/// does not, and nothing of it is ever published.
final class ChangeLog {
    /// Keysets holding changes not saved yet.
    private(set) var unsaved: [ObjectIdentifier: Keyset] = [:]
    /// Keysets changed by the open transaction (they hold its undo records).
    private(set) var inTransaction: [ObjectIdentifier: Keyset] = [:]
    /// Whether a transaction is open, so changes record how to undo them.
    private(set) var isRecording = false
    /// Whether changes are tracked at all: only with a state file (without one nothing is saved,
    /// so nothing can fail to be saved, and the bookkeeping would only cost memory).
    var isEnabled = false
    /// The engine's revision when the open transaction began.
    private(set) var revisionAtStart: UInt64 = 0

    func noteUnsaved(_ keyset: Keyset) { unsaved[ObjectIdentifier(keyset)] = keyset }

    func noteInTransaction(_ keyset: Keyset) { inTransaction[ObjectIdentifier(keyset)] = keyset }

    var hasUnsavedChanges: Bool { unsaved.values.contains { $0.hasUnsavedState } }

    /// The keysets with something to save, by subscribe key.
    var unsavedKeysets: [Keyset] {
        unsaved.values.filter(\.hasUnsavedState).sorted { $0.subscribeKey < $1.subscribeKey }
    }

    func begin(revision: UInt64) {
        isRecording = true
        revisionAtStart = revision
    }

    /// Ends the transaction keeping its changes.
    func commit() {
        for keyset in inTransaction.values { keyset.commitTransaction() }
        inTransaction = [:]
        isRecording = false
    }

    /// Ends the transaction putting back the state from before it.
    func rollBack() {
        isRecording = false
        for keyset in inTransaction.values { keyset.rollBackTransaction() }
        inTransaction = [:]
    }

    /// Every keyset's state is saved (after a save, or once a state file is loaded).
    func markSaved(_ keysets: some Sequence<Keyset>) {
        for keyset in keysets { keyset.markSaved() }
        unsaved = [:]
    }
}
