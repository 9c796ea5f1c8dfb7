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

    /// Marks `uuid` present on the channels (and group members) for `timeout` seconds; the first
    /// sighting announces `join`. `state`, keyed by channel, is stored and announced as
    /// `state-change` where it differs.
    func touch(
        subscribeKey: String, uuid: String, channels: [String], groups: [String], timeout: Int?,
        state: JSONValue?
    ) {
        sweepExpired()
        let targets = presenceChannels(subscribeKey, channels: channels, groups: groups)
        guard !targets.isEmpty else { return }
        let seconds = Int64(max(1, timeout ?? configuration.defaultPresenceTimeout))
        let expires = nowNanoseconds + seconds * 1_000_000_000
        for channel in targets {
            let isNew = updatePresence(subscribeKey, channel: channel, uuid: uuid, expires: expires)
            if isNew { announce(subscribeKey, channel: channel, action: "join", uuid: uuid) }
            if let channelState = state?[channel], channelState.objectValue != nil {
                setState(subscribeKey, uuid: uuid, channel: channel, state: channelState)
            }
        }
        startTickerIfNeeded()
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

    /// uuid → state (nil when none) of everyone present on `channel`, sorted by uuid.
    func occupants(_ subscribeKey: String, channel: String) -> [(uuid: String, state: JSONValue?)] {
        sweepExpired()
        guard let keyset = readKeyset(subscribeKey) else { return [] }
        return (keyset.present[channel] ?? [:]).keys.sorted().map { ($0, keyset.states[$0]?[channel]) }
    }

    /// Every channel with at least one occupant, sorted.
    func occupiedChannels(_ subscribeKey: String) -> [String] {
        sweepExpired()
        guard let keyset = readKeyset(subscribeKey) else { return [] }
        return keyset.present.filter { !$0.value.isEmpty }.keys.sorted()
    }

    /// The channels `uuid` is present on, sorted.
    func whereNow(_ subscribeKey: String, uuid: String) -> [String] {
        sweepExpired()
        guard let keyset = readKeyset(subscribeKey) else { return [] }
        return keyset.present.filter { $0.value[uuid] != nil }.keys.sorted()
    }

    // MARK: Expiry and intervals

    /// Times out everyone whose presence lapsed and sends the `interval` events that are due.
    func sweepExpired() {
        let now = nowNanoseconds
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
        interval.next = nowNanoseconds + Int64(max(1, configuration.presenceInterval)) * 1_000_000_000
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
            mutateKeyset(subscribeKey) { keyset in
                var interval =
                    keyset.intervals[channel]
                    ?? IntervalState(
                        next: nowNanoseconds + Int64(max(1, configuration.presenceInterval)) * 1_000_000_000)
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
            return isNew
        }
    }

    /// Returns whether `uuid` was present; drops its state on the channel.
    private func removePresence(_ subscribeKey: String, channel: String, uuid: String) -> Bool {
        mutateKeyset(subscribeKey) { keyset in
            guard keyset.present[channel]?.removeValue(forKey: uuid) != nil else { return false }
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
