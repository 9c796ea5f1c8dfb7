import EmulatorHTTP
import Testing

/// The order in which an event loop gives up idle connections, and the hint it publishes to the
/// other loops, without a server: the connections are a table of which are idle since when.
@Suite("HTTP server: idle queue")
struct IdleQueueTests {
    /// Which connections are idle, and since when; an entry is live when it names one of them at
    /// that very time.
    struct Idle {
        var since: [UInt64: UInt64] = [:]
        func isStillIdle(_ entry: IdleQueue.Entry) -> Bool { since[entry.id] == entry.since }
    }

    static func note(
        _ id: UInt64, at time: UInt64, in queue: inout IdleQueue, idle: inout Idle, live: Int = 100
    ) -> IdleQueue.HintUpdate? {
        idle.since[id] = time
        return queue.noteIdle(
            IdleQueue.Entry(id: id, since: time), liveConnections: live, isStillIdle: idle.isStillIdle)
    }

    @Test func theConnectionIdleLongestGoesFirstAndBusyOnesAreSkipped() {
        var queue = IdleQueue(publishesHints: false)
        var idle = Idle()
        for id in UInt64(1)...4 { _ = Self.note(id, at: id * 10, in: &queue, idle: &idle) }
        idle.since[1] = nil  // closed
        idle.since[3] = nil  // busy with a request
        #expect(queue.popOldest(isStillIdle: idle.isStillIdle) == IdleQueue.Entry(id: 2, since: 20))
        #expect(queue.popOldest(isStillIdle: idle.isStillIdle) == IdleQueue.Entry(id: 4, since: 40))
        #expect(queue.popOldest(isStillIdle: idle.isStillIdle) == nil)
        #expect(queue.count == 0)
    }

    @Test func aConnectionIdleAgainKeepsOnlyItsLaterPlace() {
        var queue = IdleQueue(publishesHints: false)
        var idle = Idle()
        _ = Self.note(1, at: 10, in: &queue, idle: &idle)
        _ = Self.note(2, at: 20, in: &queue, idle: &idle)
        // Connection 1 served a request and became idle again, after connection 2.
        _ = Self.note(1, at: 30, in: &queue, idle: &idle)
        #expect(queue.popOldest(isStillIdle: idle.isStillIdle) == IdleQueue.Entry(id: 2, since: 20))
        #expect(queue.popOldest(isStillIdle: idle.isStillIdle) == IdleQueue.Entry(id: 1, since: 30))
        #expect(queue.popOldest(isStillIdle: idle.isStillIdle) == nil)
    }

    @Test func theHintFollowsTheOldestLiveEntry() {
        var queue = IdleQueue(publishesHints: true)
        var idle = Idle()
        #expect(Self.note(1, at: 10, in: &queue, idle: &idle) == IdleQueue.HintUpdate(since: 10))
        // Already published: a younger idle connection changes nothing.
        #expect(Self.note(2, at: 20, in: &queue, idle: &idle) == nil)
        #expect(queue.publishedHint == 10)

        let first = queue.popOldest(isStillIdle: idle.isStillIdle)
        #expect(first?.id == 1)
        idle.since[1] = nil  // the loop closed it
        #expect(queue.settle(isStillIdle: idle.isStillIdle) == IdleQueue.HintUpdate(since: 20))

        idle.since[2] = nil  // busy now
        #expect(queue.refreshHint(isStillIdle: idle.isStillIdle) == IdleQueue.HintUpdate(since: nil))
        #expect(queue.refreshHint(isStillIdle: idle.isStillIdle) == nil)
        #expect(queue.publishedHint == nil)
        #expect(queue.count == 0)
    }

    @Test func aQueueThatPublishesNoHintsReportsNone() {
        var queue = IdleQueue(publishesHints: false)
        var idle = Idle()
        #expect(Self.note(1, at: 10, in: &queue, idle: &idle) == nil)
        #expect(queue.popOldest(isStillIdle: idle.isStillIdle)?.id == 1)
        #expect(queue.settle(isStillIdle: idle.isStillIdle) == nil)
        #expect(queue.publishedHint == nil)
        // Stopping a loop clears whatever it said before; nothing was said here.
        #expect(queue.updateHint(nil) == nil)
    }

    @Test func staleEntriesAreDroppedOnceTheyOutnumberTheConnections() {
        var queue = IdleQueue(publishesHints: false)
        var idle = Idle()
        // Two connections, each going busy and idle again many times: 2 * 2 + 64 entries allowed.
        for round in UInt64(0)..<34 {
            _ = Self.note(1, at: round * 2 + 1, in: &queue, idle: &idle, live: 2)
            _ = Self.note(2, at: round * 2 + 2, in: &queue, idle: &idle, live: 2)
        }
        #expect(queue.count == 68)
        _ = Self.note(1, at: 1_000, in: &queue, idle: &idle, live: 2)
        // Rebuilt with the live entries only: connection 2's last and connection 1's new one.
        #expect(queue.count == 2)
        #expect(queue.popOldest(isStillIdle: idle.isStillIdle) == IdleQueue.Entry(id: 2, since: 68))
        #expect(queue.popOldest(isStillIdle: idle.isStillIdle) == IdleQueue.Entry(id: 1, since: 1_000))
    }

    @Test func settlingGivesBackTheSpaceOfTakenEntries() {
        var queue = IdleQueue(publishesHints: false)
        var idle = Idle()
        for id in UInt64(1)...3 { _ = Self.note(id, at: id, in: &queue, idle: &idle) }
        _ = queue.popOldest(isStillIdle: idle.isStillIdle)
        // One taken of three: kept until taken entries are all or most of a long queue.
        _ = queue.settle(isStillIdle: idle.isStillIdle)
        #expect(queue.storedCount == 3)
        #expect(queue.count == 2)
        _ = queue.popOldest(isStillIdle: idle.isStillIdle)
        _ = queue.popOldest(isStillIdle: idle.isStillIdle)
        _ = queue.settle(isStillIdle: idle.isStillIdle)
        #expect(queue.storedCount == 0)
    }

    @Test func aLongQueueIsCompactedOnceMostOfItIsTaken() {
        var queue = IdleQueue(publishesHints: false)
        var idle = Idle()
        for id in UInt64(1)...3_000 { _ = Self.note(id, at: id, in: &queue, idle: &idle, live: 3_000) }
        for _ in 0..<1_024 { _ = queue.popOldest(isStillIdle: idle.isStillIdle) }
        _ = queue.settle(isStillIdle: idle.isStillIdle)
        // 1,024 taken is not more than 1,024: kept.
        #expect(queue.storedCount == 3_000)
        for _ in 0..<477 { _ = queue.popOldest(isStillIdle: idle.isStillIdle) }
        _ = queue.settle(isStillIdle: idle.isStillIdle)
        // 1,501 taken of 3,000: more than half, and over 1,024.
        #expect(queue.storedCount == 1_499)
        #expect(queue.popOldest(isStillIdle: idle.isStillIdle)?.id == 1_502)
    }
}
