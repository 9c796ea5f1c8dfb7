/// One event loop's connections in the order they became idle, oldest first, for closing the
/// connection idle longest when the server must make room; and the hint, when the server runs
/// several loops, of when this loop's longest-idle connection became idle.
///
/// An entry names a connection and the time it became idle. Entries are never removed when a
/// connection gets busy or closes; they go stale, and every method that reads the queue takes
/// `isStillIdle` to tell a live entry (its connection is there, idle, and idle since that very
/// time) from a stale one, which is skipped. Stale entries are dropped as the head passes them,
/// and the queue is rebuilt when they dominate, so its length stays proportional to the
/// connections.
///
/// The hint methods return a ``HintUpdate`` only when the hint changed, for the caller to publish
/// to the other loops.
package struct IdleQueue: Sendable {
    /// A connection (`id`) and when it became idle (`since`, on the loop's monotonic clock).
    package struct Entry: Sendable, Hashable {
        package var id: UInt64, since: UInt64

        /// An entry for connection `id`, idle since `since`.
        package init(id: UInt64, since: UInt64) { (self.id, self.since) = (id, since) }
    }

    /// A new value of the hint, to publish: when the longest-idle connection became idle
    /// (`since`), or nil when the loop has no idle connection.
    package struct HintUpdate: Sendable, Hashable {
        package var since: UInt64?

        /// An update to `since`.
        package init(since: UInt64?) { self.since = since }
    }

    /// Entries from `head` on are waiting; those before it were taken or skipped.
    private var entries: [Entry] = []
    private var head = 0
    /// Whether noting a first idle connection publishes a hint (the server runs several loops).
    package let publishesHints: Bool
    /// The hint as last published.
    package private(set) var publishedHint: UInt64?

    /// An empty queue; with `publishesHints` the first idle connection noted also updates the hint.
    package init(publishesHints: Bool) {
        self.publishesHints = publishesHints
    }

    /// Entries waiting, stale ones included.
    package var count: Int { entries.count - head }
    /// Entries held: those waiting, and those taken or passed until ``settle(isStillIdle:)``
    /// gives their space back.
    package var storedCount: Int { entries.count }

    /// Appends `entry`, a connection that just became idle. When stale entries outnumber twice
    /// the `liveConnections` (plus 64), the queue is rebuilt with the live ones only. Returns the
    /// hint to publish when none was published.
    package mutating func noteIdle(
        _ entry: Entry, liveConnections: Int, isStillIdle: (Entry) -> Bool
    ) -> HintUpdate? {
        entries.append(entry)
        let update = publishedHint == nil && publishesHints ? updateHint(entry.since) : nil
        if entries.count - head > 2 * liveConnections + 64 {
            entries = entries[head...].filter(isStillIdle)
            head = 0
        }
        return update
    }

    /// Takes the oldest live entry, passing the stale ones before it; nil when none is live.
    /// Call ``settle(isStillIdle:)`` once done with the entry.
    package mutating func popOldest(isStillIdle: (Entry) -> Bool) -> Entry? {
        while head < entries.count {
            let entry = entries[head]
            head += 1
            if isStillIdle(entry) { return entry }
        }
        return nil
    }

    /// Gives back the space of taken entries once they are all or most of the queue, and brings
    /// the hint up to date when the queue publishes hints.
    package mutating func settle(isStillIdle: (Entry) -> Bool) -> HintUpdate? {
        if head > 0 && (head == entries.count || head > 1024 && head * 2 > entries.count) {
            entries.removeFirst(head)
            head = 0
        }
        return publishesHints ? refreshHint(isStillIdle: isStillIdle) : nil
    }

    /// Passes stale entries at the head and sets the hint to when the oldest live entry became
    /// idle (nil when none is live).
    package mutating func refreshHint(isStillIdle: (Entry) -> Bool) -> HintUpdate? {
        while head < entries.count, !isStillIdle(entries[head]) { head += 1 }
        return updateHint(head < entries.count ? entries[head].since : nil)
    }

    /// Sets the hint to `since`; returns the update when it differs from the published one.
    package mutating func updateHint(_ since: UInt64?) -> HintUpdate? {
        guard since != publishedHint else { return nil }
        publishedHint = since
        return HintUpdate(since: since)
    }
}
