import JSONCore

// Message Persistence and message actions on the bus's actor: the history shares the keyset's
// timetoken sequence and the state file (PubSubJournal), and an action's `e: 3` event goes out on
// the same log subscribers read.
extension PubSubBus {
    /// The emulator clock in nanoseconds since 1970: what stored messages' TTLs are checked against.
    nonisolated var historyNow: Int64 { clock.now.nanosecondsSince1970 }

    /// Stores a published message (after the bus accepted it); false when the state file could
    /// not take it.
    func storeMessage(_ message: StoredMessage, subscribeKey: String, channel: String) -> Bool {
        let now = historyNow
        if let journal, !journal.stored(message, subscribeKey: subscribeKey, channel: channel) { return false }
        mutateKeyset(subscribeKey) { $0.history.insert(message, channel: channel, now: now) }
        return true
    }

    /// The keyset's history as it is now, read outside the actor (a copy-on-write value).
    func historySnapshot(_ subscribeKey: String) -> MessageStore {
        readKeyset(subscribeKey)?.history ?? MessageStore()
    }

    /// Deletes `channel`'s messages in `range`; false when the state file could not record it
    /// (nothing is deleted then).
    func deleteMessages(subscribeKey: String, channel: String, range: HistoryRange) -> Bool {
        guard readKeyset(subscribeKey)?.history.history(channel) != nil else { return true }
        if let journal, !journal.unstored(subscribeKey: subscribeKey, channel: channel, range: range) { return false }
        mutateKeyset(subscribeKey) { $0.history.delete(channel: channel, range: range) }
        return true
    }

    enum ActionFailure: Error, Sendable {
        /// The same user already added this type and value to the message.
        case alreadyAdded
        /// There is no such action.
        case notFound
        /// The state file could not record it.
        case notSaved
    }

    /// Adds an action with a timetoken of its own and announces it (`e: 3`, `event: added`).
    func addAction(
        subscribeKey: String, channel: String, messageTimetoken: UInt64, type: String, value: String, uuid: String
    ) -> Result<StoredAction, ActionFailure> {
        let (timetoken, reserved) = drawTimetoken(subscribeKey)
        guard reserved else { return .failure(.notSaved) }
        let action = StoredAction(
            messageTimetoken: messageTimetoken, actionTimetoken: timetoken, type: type, value: value, uuid: uuid)
        var probe = readKeyset(subscribeKey)?.history ?? MessageStore()
        guard probe.add(action, channel: channel) else { return .failure(.alreadyAdded) }
        if let journal, !journal.added(action, subscribeKey: subscribeKey, channel: channel) {
            return .failure(.notSaved)
        }
        mutateKeyset(subscribeKey) { _ = $0.history.add(action, channel: channel) }
        announce(action, event: "added", subscribeKey: subscribeKey, channel: channel)
        return .success(action)
    }

    /// Removes an action and announces it (`e: 3`, `event: removed`).
    func removeAction(
        subscribeKey: String, channel: String, messageTimetoken: UInt64, actionTimetoken: UInt64
    ) -> Result<StoredAction, ActionFailure> {
        var probe = readKeyset(subscribeKey)?.history ?? MessageStore()
        guard
            let action = probe.removeAction(
                channel: channel, messageTimetoken: messageTimetoken, actionTimetoken: actionTimetoken)
        else { return .failure(.notFound) }
        if let journal, !journal.removed(action, subscribeKey: subscribeKey, channel: channel) {
            return .failure(.notSaved)
        }
        mutateKeyset(subscribeKey) {
            _ = $0.history.removeAction(
                channel: channel, messageTimetoken: messageTimetoken, actionTimetoken: actionTimetoken)
        }
        announce(action, event: "removed", subscribeKey: subscribeKey, channel: channel)
        return .success(action)
    }

    /// The `e: 3` envelope: `{"source":"actions","version":"1.0","event":…,"data":{…}}`, with
    /// the acting user as the publisher (`i`).
    private func announce(_ action: StoredAction, event: String, subscribeKey: String, channel: String) {
        publish(
            ServerEnvelope(
                subscribeKey: subscribeKey, channel: channel,
                payload: ["source": "actions", "version": "1.0", "event": .string(event), "data": action.wire],
                eventType: 3, publisher: action.uuid))
    }

    /// The console's view of a keyset's history (`GET /_emulator/v1/keysets/{sub}/messages`): the
    /// channels that hold messages or actions, and with `channel` its newest `limit` live
    /// messages, newest first, each with its actions.
    func historyConsoleJSON(_ subscribeKey: String, channel: String?, limit: Int) -> JSONValue {
        let store = historySnapshot(subscribeKey)
        let now = historyNow
        var body: [String: JSONValue] = [
            "subscribeKey": .string(subscribeKey),
            "channels": .array(store.channels.keys.sorted().map(JSONValue.string)),
        ]
        guard let channel else { return .object(body) }
        let history = store.history(channel)
        let page = store.page(channel: channel, range: HistoryRange(), limit: limit, now: now).messages
        body["channel"] = .string(channel)
        body["messages"] = .array(
            page.reversed().map { message in
                var fields: [String: JSONValue] = [
                    "timetoken": .string(String(message.timetoken)), "message": message.payload,
                    "actions": .array((history?.actions(on: message.timetoken) ?? []).map(\.wire)),
                ]
                if let publisher = message.publisher { fields["publisher"] = .string(publisher) }
                if let meta = message.meta { fields["meta"] = meta }
                if let type = message.customMessageType { fields["customMessageType"] = .string(type) }
                if let expires = message.expires {
                    fields["expiresAt"] = .string(
                        ISO8601Timestamp.string(
                            microsecondsSince1970: EmulatorClock.Instant.floorDiv(expires, 1000), fractionDigits: 3))
                }
                return .object(fields)
            })
        return .object(body)
    }
}
