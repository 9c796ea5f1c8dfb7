import JSONCore

/// Presence: who is on which channel, their state, and the `-pnpres` events, all on the bus's
/// clock. Expiry is checked lazily at the start of every pub/sub and presence request and by a
/// ticker (one sleep of a second on the emulator clock at a time) while anyone is present, so a
/// test that moves a manual clock sees the timeouts on its next request.
extension PubSubBus {
    private var nowNanoseconds: Int64 { clock.now.nanosecondsSince1970 }
    private var nowSeconds: Int64 { clock.now.nanosecondsSince1970 / 1_000_000_000 }

    /// Channels `channels` plus the members of `groups`, without presence or wildcard names.
    func presenceChannels(_ subscribeKey: String, channels: [String], groups: [String]) -> [String] {
        var result: [String] = []
        var seen = Set<String>()
        let groupMembers = groups.flatMap { keysetGroups(subscribeKey)[$0] ?? [] }
        for channel in channels + groupMembers
        where PubSubNames.presenceBase(channel) == nil && !PubSubNames.isWildcard(channel) && !channel.isEmpty {
            if seen.insert(channel).inserted { result.append(channel) }
        }
        return result
    }

    private func keysetGroups(_ subscribeKey: String) -> [String: [String]] {
        groupsSnapshot(subscribeKey)
    }

    /// The presence timeouts a request may ask for, in seconds: the service's own range. The
    /// SDKs raise a smaller value to 20 (Swift, Kotlin) and lower a larger one to 320 (JavaScript),
    /// while Go sends values from 4 up unchanged and gets no error, so the service clamps rather
    /// than refuses, and so does the emulator.
    static let heartbeatBounds: ClosedRange<Int> = 20...320

    /// `heartbeat` from a query: clamped into ``heartbeatBounds``; nil (the configured default)
    /// when absent or not an integer.
    nonisolated static func heartbeat(_ text: String?) -> Int? {
        PubSubWire.clampedInteger(text, in: heartbeatBounds)
    }

    /// Why a presence was not recorded.
    enum PresenceRefusal: Error, Sendable {
        /// The keyset already holds ``PubSubConfiguration/maximumPresencesPerKeyset`` presences.
        case keysetFull(limit: Int)

        var message: String {
            switch self {
            case .keysetFull(let limit): "Presence limit reached: at most \(limit) presences per keyset"
            }
        }
    }

    /// Marks `uuid` present on the channels (and group members) for `timeout` seconds (already
    /// clamped by the caller; nil for the configured default); the first sighting announces
    /// `join`. `state`, keyed by channel, is stored and announced as `state-change` where it
    /// differs. Refused, with nothing changed, when the new presences would pass the keyset's
    /// limit (refreshing existing ones always works).
    @discardableResult
    func touch(
        subscribeKey: String, uuid: String, channels: [String], groups: [String], timeout: Int?,
        state: JSONValue?
    ) -> PresenceRefusal? {
        sweepExpired()
        let targets = presenceChannels(subscribeKey, channels: channels, groups: groups)
        guard !targets.isEmpty else { return nil }
        let keyset = readKeyset(subscribeKey)
        let added = targets.count { keyset?.present[$0]?[uuid] == nil }
        let limit = configuration.maximumPresencesPerKeyset
        if added > 0, (keyset?.presenceCount ?? 0) + added > limit { return .keysetFull(limit: limit) }
        let seconds = Int64(max(1, timeout ?? configuration.defaultPresenceTimeout))
        let expires = EmulatorClock.Instant.adding(nowNanoseconds, EmulatorClock.Instant.nanoseconds(seconds: seconds))
        noteDeadline(expires)
        for channel in targets {
            let isNew = updatePresence(subscribeKey, channel: channel, uuid: uuid, expires: expires)
            if isNew { announce(subscribeKey, channel: channel, action: "join", uuid: uuid) }
            if let channelState = state?[channel], channelState.objectValue != nil {
                setState(subscribeKey, uuid: uuid, channel: channel, state: channelState)
            }
        }
        startTickerIfNeeded()
        return nil
    }

    /// Removes `uuid` from the channels (and group members), announcing `leave`; `-pnpres` names
    /// are ignored.
    func leave(subscribeKey: String, uuid: String, channels: [String], groups: [String]) {
        sweepExpired()
        for channel in presenceChannels(subscribeKey, channels: channels, groups: groups) {
            if removePresence(subscribeKey, channel: channel, uuid: uuid) {
                announce(subscribeKey, channel: channel, action: "leave", uuid: uuid)
            }
        }
    }

    /// Stores `state` for `uuid` on `channel` and announces `state-change`.
    func setState(_ subscribeKey: String, uuid: String, channel: String, state: JSONValue) {
        let changed: Bool = mutateKeyset(subscribeKey) { keyset in
            let old = keyset.states[uuid]?[channel]
            keyset.states[uuid, default: [:]][channel] = state
            return old != state
        }
        if changed { announce(subscribeKey, channel: channel, action: "state-change", uuid: uuid, data: state) }
    }

    func state(_ subscribeKey: String, uuid: String, channel: String) -> JSONValue? {
        readKeyset(subscribeKey)?.states[uuid]?[channel]
    }

    /// One channel's occupants for here-now: uuid → state (nil when none), sorted by uuid.
    typealias Occupants = [(uuid: String, state: JSONValue?)]

    /// The occupants of each of `channels` (every occupied channel, sorted, when nil), after one
    /// expiry sweep for the whole request: a global here-now over many channels must not sweep
    /// every presence once per channel.
    func hereNow(_ subscribeKey: String, channels: [String]?) -> [(channel: String, occupants: Occupants)] {
        sweepExpired()
        guard let keyset = readKeyset(subscribeKey) else { return (channels ?? []).map { ($0, []) } }
        let targets = channels ?? keyset.present.filter { !$0.value.isEmpty }.keys.sorted()
        return targets.map { channel in
            (channel, (keyset.present[channel] ?? [:]).keys.sorted().map { ($0, keyset.states[$0]?[channel]) })
        }
    }

    /// The channels `uuid` is present on, sorted.
    func whereNow(_ subscribeKey: String, uuid: String) -> [String] {
        sweepExpired()
        guard let keyset = readKeyset(subscribeKey) else { return [] }
        return keyset.present.filter { $0.value[uuid] != nil }.keys.sorted()
    }

    // MARK: Expiry and intervals

    /// Times out everyone whose presence lapsed and sends the `interval` events that are due.
    /// Every presence and interval deadline is noted (``noteDeadline(_:)``), so while none has
    /// come the sweep returns without looking at a single presence.
    func sweepExpired() {
        countSweep()
        let now = nowNanoseconds
        guard now >= nextDeadline else { return }
        for subscribeKey in keysetKeys() {
            var lapsed: [(String, String)] = []
            for (channel, members) in readKeyset(subscribeKey)?.present ?? [:] {
                for (uuid, entry) in members where entry.expires <= now { lapsed.append((channel, uuid)) }
            }
            for (channel, uuid) in lapsed.sorted(by: { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }) {
                if removePresence(subscribeKey, channel: channel, uuid: uuid) {
                    announce(subscribeKey, channel: channel, action: "timeout", uuid: uuid)
                }
            }
            let due = (readKeyset(subscribeKey)?.intervals ?? [:]).filter { $0.value.next <= now }.keys.sorted()
            for channel in due { sendInterval(subscribeKey, channel: channel) }
        }
        // The next time a sweep has work: the earliest deadline still pending. Past the end of
        // time (a clock clamped at its end) every deadline has come at once, and stays so.
        var next = Int64.max
        for subscribeKey in keysetKeys() {
            guard let keyset = readKeyset(subscribeKey) else { continue }
            for members in keyset.present.values {
                for entry in members.values { next = min(next, entry.expires) }
            }
            for interval in keyset.intervals.values { next = min(next, interval.next) }
        }
        resetDeadline(to: next)
    }

    /// The instant `presenceInterval` seconds from now (saturating), noted as a deadline.
    private func scheduleInterval() -> Int64 {
        let period = EmulatorClock.Instant.nanoseconds(seconds: Int64(max(1, configuration.presenceInterval)))
        let next = EmulatorClock.Instant.adding(nowNanoseconds, period)
        noteDeadline(next)
        return next
    }

    private func sendInterval(_ subscribeKey: String, channel: String) {
        let occupancy = readKeyset(subscribeKey)?.present[channel]?.count ?? 0
        guard var interval = readKeyset(subscribeKey)?.intervals[channel] else { return }
        var payload: [String: JSONValue] = [
            "action": "interval", "timestamp": .int(nowSeconds), "occupancy": .int(Int64(occupancy)),
        ]
        var deltas: [String: JSONValue] = [:]
        if !interval.join.isEmpty { deltas["join"] = .array(interval.join.map(JSONValue.string)) }
        if !interval.leave.isEmpty { deltas["leave"] = .array(interval.leave.map(JSONValue.string)) }
        if !interval.timeout.isEmpty { deltas["timeout"] = .array(interval.timeout.map(JSONValue.string)) }
        let size = (try? JSONValue.object(deltas).jsonBytes().count) ?? 0
        if size > configuration.presenceDeltaByteLimit {
            payload["here_now_refresh"] = true
        } else {
            payload.merge(deltas) { $1 }
        }
        interval.join = []
        interval.leave = []
        interval.timeout = []
        interval.next = scheduleInterval()
        let stillAbove = occupancy > configuration.presenceAnnounceMax
        mutateKeyset(subscribeKey) { $0.intervals[channel] = stillAbove ? interval : nil }
        publish(subscribeKey: subscribeKey, channel: channel + PubSubNames.presenceSuffix, payload: .object(payload))
    }

    /// Sends a presence event, or records it as an interval delta when the channel is above the
    /// announce limit.
    private func announce(_ subscribeKey: String, channel: String, action: String, uuid: String, data: JSONValue? = nil)
    {
        let occupancy = readKeyset(subscribeKey)?.present[channel]?.count ?? 0
        let limit = configuration.presenceAnnounceMax
        let inInterval = readKeyset(subscribeKey)?.intervals[channel] != nil
        if action != "state-change", inInterval || occupancy > limit {
            let next = inInterval ? 0 : scheduleInterval()
            mutateKeyset(subscribeKey) { keyset in
                var interval = keyset.intervals[channel] ?? IntervalState(next: next)
                switch action {
                case "join": interval.join.append(uuid)
                case "leave": interval.leave.append(uuid)
                default: interval.timeout.append(uuid)
                }
                keyset.intervals[channel] = interval
            }
            return
        }
        var payload: [String: JSONValue] = [
            "action": .string(action), "uuid": .string(uuid), "timestamp": .int(nowSeconds),
            "occupancy": .int(Int64(occupancy)),
        ]
        if let data { payload["data"] = data }
        publish(subscribeKey: subscribeKey, channel: channel + PubSubNames.presenceSuffix, payload: .object(payload))
    }

    /// Returns whether `uuid` was not present on `channel` before.
    private func updatePresence(_ subscribeKey: String, channel: String, uuid: String, expires: Int64) -> Bool {
        mutateKeyset(subscribeKey) { keyset in
            let isNew = keyset.present[channel]?[uuid] == nil
            keyset.present[channel, default: [:]][uuid] = PresenceEntry(expires: expires)
            if isNew { keyset.presenceCount += 1 }
            return isNew
        }
    }

    /// Returns whether `uuid` was present; drops its state on the channel.
    private func removePresence(_ subscribeKey: String, channel: String, uuid: String) -> Bool {
        mutateKeyset(subscribeKey) { keyset in
            guard keyset.present[channel]?.removeValue(forKey: uuid) != nil else { return false }
            keyset.presenceCount -= 1
            if keyset.present[channel]?.isEmpty == true { keyset.present[channel] = nil }
            keyset.states[uuid]?[channel] = nil
            if keyset.states[uuid]?.isEmpty == true { keyset.states[uuid] = nil }
            return true
        }
    }

    private func startTickerIfNeeded() {
        guard !hasTicker else { return }
        let clock = self.clock
        setTicker(
            Task { [weak self] in
                while !Task.isCancelled {
                    do {
                        try await clock.sleep(for: .seconds(1))
                    } catch {
                        return
                    }
                    guard let bus = self else { return }
                    if await bus.tick() == false { return }
                }
            })
    }
}
