/// Transactions: a request (or a seed, a class document, an expiry sweep) is applied, then saved,
/// then committed; when the save fails it is rolled back, so memory, the state file and the
/// change feed never disagree about it.
extension Engine {
    /// Starts recording how to undo what follows; changes reach the change feed only at
    /// ``commitTransaction()``.
    func beginTransaction() {
        changes.begin(revision: revision)
        lastWriteStampAtTransactionStart = lastWriteStamp
        feed.beginWrite()
    }

    /// Keeps the transaction's changes and hands them to the change feed's subscribers.
    func commitTransaction() {
        changes.commit()
        feed.endWrite()
    }

    /// Puts back the state from before the transaction; its changes are never published.
    func rollBackTransaction() {
        changes.rollBack()
        revision = changes.revisionAtStart
        lastWriteStamp = lastWriteStampAtTransactionStart
        feed.discardWrite()
    }

    /// Whether anything must be written at the next save.
    var hasUnsavedChanges: Bool { changes.hasUnsavedChanges }
}
