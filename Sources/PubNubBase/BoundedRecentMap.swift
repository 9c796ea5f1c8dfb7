/// A map that keeps at most `capacity` keys, forgetting the one written longest ago first.
///
/// Writing a key again makes it the newest. Every operation is amortized O(1).
package struct BoundedRecentMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var stamp: UInt64
    }

    private struct Written: Sendable {
        var key: Key
        var stamp: UInt64
    }

    /// The most keys kept; 0 or less keeps none.
    package let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var order: [Written] = []
    private var head = 0
    private var nextStamp: UInt64 = 0

    package init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// How many keys are kept now.
    package var count: Int { entries.count }

    /// Whether no key is kept.
    package var isEmpty: Bool { entries.isEmpty }

    package subscript(key: Key) -> Value? { entries[key]?.value }

    /// Writes `value` for `key`, making it the newest, and forgets the oldest keys over capacity.
    package mutating func set(_ value: Value, for key: Key) {
        guard capacity > 0 else { return }
        nextStamp &+= 1
        entries[key] = Entry(value: value, stamp: nextStamp)
        order.append(Written(key: key, stamp: nextStamp))
        while entries.count > capacity, head < order.count {
            let oldest = order[head]
            head += 1
            if entries[oldest.key]?.stamp == oldest.stamp { entries[oldest.key] = nil }
        }
        // Rewritten keys leave stale records behind; drop them once they outnumber the live ones.
        if order.count - head > 2 * capacity + 16 {
            order = order[head...].filter { entries[$0.key]?.stamp == $0.stamp }
            head = 0
        } else if head > 64, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }

    /// Forgets `key`. Its record in the write order is dropped with the other stale ones.
    package mutating func remove(_ key: Key) {
        entries[key] = nil
    }

    /// Inserts `key` when absent; returns `false` when it was already kept (and leaves it in place).
    package mutating func insertIfAbsent(_ key: Key, value: Value) -> Bool {
        guard entries[key] == nil else { return false }
        set(value, for: key)
        return true
    }
}
