import Foundation
import JSONCore

/// The pub/sub side of the admin routes: a keyset's presence and groups for the console, its
/// recent events for the live event stream, and reset.
extension PubSubBus {
    /// Who is present on which channel (with state and when the presence lapses), and the
    /// channel groups, of `subscribeKey`.
    func presenceSnapshot(_ subscribeKey: String) -> JSONValue {
        sweepExpired()
        let keyset = readKeyset(subscribeKey)
        let channels: [JSONValue] = (keyset?.present ?? [:]).filter { !$0.value.isEmpty }.keys.sorted().map {
            channel in
            let present = keyset?.present[channel] ?? [:]
            let occupants: [JSONValue] = present.keys.sorted().map { uuid in
                var fields: [String: JSONValue] = ["uuid": .string(uuid)]
                if let expires = present[uuid]?.expires {
                    fields["expiresAt"] = .string(
                        ISO8601Timestamp.string(
                            microsecondsSince1970: EmulatorClock.Instant.floorDiv(expires, 1000), fractionDigits: 3))
                }
                if let state = keyset?.states[uuid]?[channel] { fields["state"] = state }
                return .object(fields)
            }
            return [
                "channel": .string(channel), "occupancy": .int(Int64(present.count)), "occupants": .array(occupants),
            ]
        }
        let groups: [JSONValue] = (keyset?.groups ?? [:]).keys.sorted().map { group in
            ["group": .string(group), "channels": .array((keyset?.groups[group] ?? []).map(JSONValue.string))]
        }
        return ["subscribeKey": .string(subscribeKey), "channels": .array(channels), "groups": .array(groups)]
    }

    /// The events of `subscribeKey`'s log: with `after` nil the newest `limit`, otherwise the
    /// first `limit` with a timetoken after it; and the log's head.
    func recentEvents(_ subscribeKey: String, after: UInt64?, limit: Int) -> (events: [BusEvent], head: UInt64) {
        guard let log = readKeyset(subscribeKey)?.log else { return ([], 0) }
        let events = log.events
        if let after {
            let start = log.firstIndex(after: after)
            return (Array(events[start..<min(events.count, start + max(0, limit))]), log.head)
        }
        return (Array(events.suffix(max(0, limit))), log.head)
    }

    /// Forgets everything the bus holds for `subscribeKey`: its event log, channel groups,
    /// presence and state, silently (no `leave` or `timeout` is announced). Held long-polls stay
    /// held and see what is published next. Returns how many groups and presences were dropped.
    @discardableResult
    func resetKeyset(_ subscribeKey: String) -> (groups: Int, presences: Int) {
        guard let old = readKeyset(subscribeKey) else { return (0, 0) }
        let capacity = configuration.catchUpBufferSize
        mutateKeyset(subscribeKey) { $0 = KeysetState(log: EventLog(capacity: capacity)) }
        saveReset(subscribeKey)
        // Held polls resolved their groups when they started waiting: let them resolve again.
        waiters.advance(subscribeKey: subscribeKey, head: 0, channel: nil)
        return (old.groups.count, old.present.values.reduce(0) { $0 + $1.count })
    }

    /// A bus event as the console's live event stream shows it.
    static func consoleJSON(_ event: BusEvent) -> JSONValue {
        let kind: String
        if event.isPresence {
            kind = "presence"
        } else {
            switch event.eventType {
            case nil: kind = "message"
            case 1?: kind = "signal"
            case 5?: kind = "datasync"
            case let other?: kind = "event-\(other)"
            }
        }
        var fields: [String: JSONValue] = [
            "kind": .string(kind), "timetoken": .string(String(event.timetoken)), "channel": .string(event.channel),
            "subscribeKey": .string(event.subscribeKey), "payload": event.payload,
        ]
        if let publisher = event.publisher { fields["publisher"] = .string(publisher) }
        if let meta = event.meta { fields["meta"] = meta }
        if let customMessageType = event.customMessageType { fields["customMessageType"] = .string(customMessageType) }
        return .object(fields)
    }
}
