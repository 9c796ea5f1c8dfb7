import JSONCore
import PubNubBase

/// The last subscribe answer body encoded, keyed by what it holds.
///
/// One publish to a channel with N long-polls held answers all N with the same bytes when they
/// asked alike (same events, same `b` for each); encoding the envelope once instead of N times
/// takes most of the per-subscriber work out of a fan-out. One entry is enough for that, and it
/// costs one body's bytes. A key compares the events' timetokens and `b` names (a timetoken is
/// unique within a keyset's log) together with the keyset, the cursor and the region.
final class AnswerCache: Sendable {
    private struct Key: Equatable {
        var subscribeKey: String
        var timetoken: UInt64
        var region: Int
        var events: [UInt64]
        var names: [String?]
    }

    private let last = Locked<(key: Key, body: [UInt8])?>(nil)
    /// How many answers were encoded rather than taken from the cache (tests count it).
    private let encodings = Locked(0)

    var encodedCount: Int { encodings.withLock { $0 } }

    /// `{"t":{"t":"<tt>","r":<r>},"m":[…]}` with `"t"` first, as Swift's salvage logic expects.
    func body(timetoken: UInt64, events: [(BusEvent, String?)], region: Int) -> [UInt8] {
        guard let first = events.first else { return Self.encode(timetoken: timetoken, events: events, region: region) }
        // Compared in place first: a hit (N - 1 of the N answers of a fan-out) builds no key.
        let hit = last.withLock { last -> [UInt8]? in
            guard let last, last.key.subscribeKey == first.0.subscribeKey, last.key.timetoken == timetoken,
                last.key.region == region, last.key.events.count == events.count
            else { return nil }
            for (index, event) in events.enumerated()
            where last.key.events[index] != event.0.timetoken || last.key.names[index] != event.1 {
                return nil
            }
            return last.body
        }
        if let hit { return hit }
        let key = Key(
            subscribeKey: first.0.subscribeKey, timetoken: timetoken, region: region,
            events: events.map(\.0.timetoken), names: events.map(\.1))
        let body = Self.encode(timetoken: timetoken, events: events, region: region)
        encodings.withLock { $0 += 1 }
        last.withLock { $0 = (key, body) }
        return body
    }

    private static func encode(timetoken: UInt64, events: [(BusEvent, String?)], region: Int) -> [UInt8] {
        var body = Array("{\"t\":{\"t\":\"\(timetoken)\",\"r\":\(region)},\"m\":[".utf8)
        for (index, (event, subscription)) in events.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += (try? event.envelope(region: region, subscription: subscription).jsonBytes()) ?? Array("{}".utf8)
        }
        body += Array("]}".utf8)
        return body
    }
}
