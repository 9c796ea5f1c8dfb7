import Foundation

// The bus's side of `--state-file` (``PubSubJournal``): every call is a no-op without one, so an
// emulator without a state file does no extra work per publish.
extension PubSubBus {
    /// Keyset states rebuilt from what a state file held, each buffer trimmed to `capacity`.
    static func keysets(restoring saved: PubSubSavedState, capacity: Int) -> [String: KeysetState] {
        var keysets: [String: KeysetState] = [:]
        for key in Set(saved.events.keys).union(saved.groups.keys).union(saved.history.keys).union(saved.push.keys) {
            var state = KeysetState(log: EventLog(capacity: capacity))
            // The log trims in batches; a restart keeps exactly the newest `capacity`.
            for event in (saved.events[key] ?? []).suffix(state.log.capacity) where event.timetoken > state.log.head {
                state.log.append(event)
            }
            state.groups = saved.groups[key] ?? [:]
            state.history = saved.history[key] ?? MessageStore()
            state.push = saved.push[key] ?? PushRegistrations()
            keysets[key] = state
        }
        return keysets
    }

    /// Whether the bus writes to a state file.
    var persists: Bool { journal != nil }

    /// A timetoken for `subscribeKey`, and whether a restart is sure to continue above it (the
    /// journal's reservation covers it; always true without a state file).
    func drawTimetoken(_ subscribeKey: String) -> (timetoken: UInt64, saved: Bool) {
        let timetoken = clock.timetoken(for: subscribeKey)
        guard let journal else { return (timetoken, true) }
        compactJournalIfDue()
        return (timetoken, journal.reserve(subscribeKey, through: timetoken))
    }

    /// Writes `event` to the state file before anyone can see it; true without a state file.
    func save(_ event: BusEvent) -> Bool {
        guard let journal else { return true }
        compactJournalIfDue()
        return journal.append(event)
    }

    /// Saves the clock's setting after the admin routes moved it, so a restart keeps it moved.
    func clockMoved() {
        compactJournalIfDue()
        journal?.clockMoved(clock.setting)
    }

    /// Saves a group's members after a change (the group is gone when it is not in the keyset).
    func saveGroup(_ subscribeKey: String, group: String) {
        guard let journal else { return }
        compactJournalIfDue()
        journal.groupChanged(subscribeKey, group: group, channels: readKeyset(subscribeKey)?.groups[group])
    }

    /// Saves a push device's channels before a change (none: the device is gone); true without a
    /// state file, false when the write failed.
    func savePush(_ subscribeKey: String, device: PushDevice, channels: [String]) -> Bool {
        guard let journal else { return true }
        compactJournalIfDue()
        return journal.pushChanged(subscribeKey, device: device, channels: channels)
    }

    /// Saves that a keyset's buffer and groups were dropped (its timetokens still go on).
    func saveReset(_ subscribeKey: String) {
        guard let journal else { return }
        compactJournalIfDue()
        journal.reset(subscribeKey)
    }

    /// Rewrites the journal with only what the bus holds now, once it has grown long enough or
    /// a failed write left it unusable. A failure keeps the old file; the next write tries again.
    private func compactJournalIfDue() {
        guard let journal, journal.needsCompaction else { return }
        var state = PubSubSavedState(clock: journal.savedClock)
        for key in keysetKeys() {
            guard let keyset = readKeyset(key) else { continue }
            if !keyset.log.events.isEmpty { state.events[key] = keyset.log.events }
            if !keyset.groups.isEmpty { state.groups[key] = keyset.groups }
            if !keyset.history.isEmpty { state.history[key] = keyset.history }
            if !keyset.push.isEmpty { state.push[key] = keyset.push }
        }
        try? journal.compact(state)
    }
}
