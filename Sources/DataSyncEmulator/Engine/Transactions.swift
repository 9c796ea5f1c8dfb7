/// Transactions and write stamps: the revision counter, the timestamps writes are stamped with,
/// and the begin / commit / roll-back steps that keep memory, the state file and the change feed
/// in agreement about every request (or seed, class document, expiry sweep).
///
/// A request is applied, then saved, then committed; when the save fails it is rolled back, so
/// the revision and the last write stamp go back too and a write that never happened leaves no
/// trace in later eTags or timestamps.
final class Transactions {
    /// The emulator's clock, shared with every other service.
    let clock: EmulatorClock
    /// What changed since the last save, and the open transaction's undo records (`Store/ChangeLog.swift`).
    let changes: ChangeLog
    /// Where committed changes go; a transaction holds them back until it commits.
    let publisher: ChangePublisher
    /// The last change-feed sequence number handed out.
    var revision: UInt64 = 0
    /// The last timestamp a write was stamped with (``writeStamp(after:)``).
    private var lastWriteStamp: Int64 = .min
    /// ``lastWriteStamp`` when the open transaction began.
    private var lastWriteStampAtTransactionStart: Int64 = .min

    init(clock: EmulatorClock, changes: ChangeLog, publisher: ChangePublisher) {
        self.clock = clock
        self.changes = changes
        self.publisher = publisher
    }

    /// The current time in whole microseconds since the Unix epoch.
    func now() -> Int64 { clock.now.microsecondsSince1970 }

    /// The timestamp of a write: the clock's time, but always later than every earlier write's and
    /// than `floor` (the written object's own `updatedAt`). The service orders writes by these
    /// stamps, as clients do (a create at a delete's microsecond reads as part of the deleted
    /// incarnation), so a stopped or coarse clock must not give two writes the same one.
    func writeStamp(after floor: Int64 = .min) -> Int64 {
        var stamp = now()
        if lastWriteStamp != .min { stamp = max(stamp, lastWriteStamp + 1) }
        if floor != .min { stamp = max(stamp, floor + 1) }
        lastWriteStamp = stamp
        return stamp
    }

    /// The sequence number of the next change.
    func nextRevision() -> UInt64 {
        revision += 1
        return revision
    }

    /// An opaque short tag derived from the revision: unique per write within a state.
    static func eTag(for revision: UInt64) -> String {
        String(revision &* 0x9E37_79B9 &+ 0x5bd1_e995, radix: 36)
    }

    // MARK: Transactions

    /// Starts recording how to undo what follows; changes reach the change feed only at
    /// ``commit()``.
    func begin() {
        changes.begin(revision: revision)
        lastWriteStampAtTransactionStart = lastWriteStamp
        publisher.feed.beginWrite()
    }

    /// Keeps the transaction's changes and hands them to the change feed's subscribers.
    func commit() {
        changes.commit()
        publisher.feed.endWrite()
    }

    /// Puts back the state from before the transaction; its changes are never published.
    func rollBack() {
        changes.rollBack()
        revision = changes.revisionAtStart
        lastWriteStamp = lastWriteStampAtTransactionStart
        publisher.feed.discardWrite()
    }

    /// Whether anything must be written at the next save.
    var hasUnsavedChanges: Bool { changes.hasUnsavedChanges }
}
