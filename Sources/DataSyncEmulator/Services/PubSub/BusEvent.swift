import JSONCore

/// One event on the pub/sub bus: a message, signal, presence event or server-published envelope,
/// stored in its keyset's log and rendered into a subscribe envelope for each receiver.
struct BusEvent: Sendable {
    /// The bus order: strictly increasing per keyset; a subscribe cursor compares against it.
    var timetoken: UInt64
    /// The timetoken shown in `p.t` (the publish timetoken override `ptto` when one was given).
    var publishTimetoken: UInt64
    var subscribeKey: String
    var channel: String
    var payload: JSONValue
    /// `e` on the wire; nil for an ordinary message or a presence event.
    var eventType: Int?
    /// `i` on the wire: the publisher's uuid.
    var publisher: String?
    /// `u` on the wire: the publish `meta`.
    var meta: JSONValue?
    /// `cmt` on the wire.
    var customMessageType: String?
    /// `s` on the wire (`seqn`).
    var sequence: Int64?

    /// Whether this is a presence event (its channel carries the `-pnpres` suffix).
    var isPresence: Bool { channel.hasSuffix(PubSubNames.presenceSuffix) }

    /// The subscribe envelope with `b` set to `subscription` when the receiver matched indirectly.
    func envelope(region: Int, subscription: String?) -> JSONValue {
        var fields: [String: JSONValue] = [
            "a": "1",
            "f": 0,
            "p": ["t": .string(String(publishTimetoken)), "r": .int(Int64(region))],
            "k": .string(subscribeKey),
            "c": .string(channel),
            "d": payload,
        ]
        if publishTimetoken != timetoken {
            fields["o"] = ["t": .string(String(timetoken)), "r": .int(Int64(region))]
        }
        if let eventType { fields["e"] = .int(Int64(eventType)) }
        if let publisher { fields["i"] = .string(publisher) }
        if let meta { fields["u"] = meta }
        if let customMessageType { fields["cmt"] = .string(customMessageType) }
        if let sequence { fields["s"] = .int(sequence) }
        if let subscription, subscription != channel { fields["b"] = .string(subscription) }
        return .object(fields)
    }
}

/// A bounded log of events in timetoken order: the catch-up buffer of one keyset.
struct EventLog: Sendable {
    private(set) var events: [BusEvent] = []
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The newest timetoken in the log, 0 when empty.
    var head: UInt64 { events.last?.timetoken ?? 0 }

    mutating func append(_ event: BusEvent) {
        events.append(event)
        // Trim in batches so appending stays amortised O(1).
        if events.count > capacity + capacity / 4 + 1 { events.removeFirst(events.count - capacity) }
    }

    /// The index of the first event after `timetoken` (binary search; the log is sorted).
    func firstIndex(after timetoken: UInt64) -> Int {
        var low = 0
        var high = events.count
        while low < high {
            let mid = (low + high) / 2
            if events[mid].timetoken <= timetoken { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// Names with a meaning on the pub/sub wire.
enum PubSubNames {
    static let presenceSuffix = "-pnpres"

    /// `a.*` or `a.b.*`: a wildcard pattern (at most two dots before the `*`, which ends it).
    static func isWildcard(_ name: String) -> Bool { name.hasSuffix(".*") }

    /// The name without `-pnpres`, or nil when it has no such suffix.
    static func presenceBase(_ name: String) -> String? {
        guard name.hasSuffix(presenceSuffix), name.count > presenceSuffix.count else { return nil }
        return String(name.dropLast(presenceSuffix.count))
    }

    /// Whether `channel` falls under the wildcard `pattern` (`a.*` matches `a.b`, `a.b.c`).
    static func wildcard(_ pattern: String, matches channel: String) -> Bool {
        let prefix = pattern.dropLast()  // keeps the dot
        return channel.count > prefix.count && channel.hasPrefix(prefix)
    }
}
