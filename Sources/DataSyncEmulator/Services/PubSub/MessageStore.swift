import JSONCore

/// A message kept in a keyset's history (Message Persistence): what a publish stored.
struct StoredMessage: Sendable, Equatable {
    /// The publish timetoken (the one `p.t` showed subscribers); unique within a channel.
    var timetoken: UInt64
    var payload: JSONValue
    /// The publisher's uuid, if it sent one.
    var publisher: String?
    var meta: JSONValue?
    var customMessageType: String?
    /// `e` of the envelope: nil for a message, 4 for a file message.
    var messageType: Int?
    /// When it lapses (nanoseconds since 1970, emulator clock), for a publish with `ttl`.
    var expires: Int64?

    func isLive(at now: Int64) -> Bool { expires.map { now < $0 } ?? true }
}

/// A message action (a reaction, a receipt) kept with a channel's history.
struct StoredAction: Sendable, Equatable {
    var messageTimetoken: UInt64
    /// Its own timetoken, drawn when it was added; unique within a channel.
    var actionTimetoken: UInt64
    var type: String
    var value: String
    var uuid: String

    /// The object the action routes answer with, and the `data` of its `e: 3` event.
    var wire: JSONValue {
        [
            "messageTimetoken": .string(String(messageTimetoken)), "type": .string(type), "uuid": .string(uuid),
            "value": .string(value), "actionTimetoken": .string(String(actionTimetoken)),
        ]
    }
}

/// One channel's history: messages in timetoken order, and actions in action-timetoken order.
struct ChannelHistory: Sendable {
    var messages: [StoredMessage] = []
    var actions: [StoredAction] = []
    /// The earliest expiry among `messages`, so a write prunes only when something lapsed.
    var nextExpiry: Int64?

    /// The index of the first message whose timetoken is at least `timetoken` (binary search).
    func messageIndex(atLeast timetoken: UInt64) -> Int {
        Self.lowerBound(messages.count) { messages[$0].timetoken < timetoken }
    }

    /// The index of the first action whose action timetoken is at least `timetoken`.
    func actionIndex(atLeast timetoken: UInt64) -> Int {
        Self.lowerBound(actions.count) { actions[$0].actionTimetoken < timetoken }
    }

    static func lowerBound(_ count: Int, isBelow: (Int) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if isBelow(mid) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The actions on the message at `timetoken`, in action-timetoken order.
    func actions(on timetoken: UInt64) -> [StoredAction] { actions.filter { $0.messageTimetoken == timetoken } }
}

/// A time range of the history routes: `start` is exclusive and `end` inclusive, whichever of the
/// two is the larger (fetch passes the newer bound as `start`, the service's delete example the
/// older), so both read "after `start`, up to and including `end`" or its mirror.
struct HistoryRange: Sendable, Equatable {
    var start: UInt64?
    var end: UInt64?

    func contains(_ timetoken: UInt64) -> Bool {
        switch (start, end) {
        case (nil, nil): return true
        case (let start?, nil): return timetoken < start
        case (nil, let end?): return timetoken >= end
        case (let start?, let end?):
            return start >= end ? (timetoken < start && timetoken >= end) : (timetoken > start && timetoken <= end)
        }
    }
}

/// A keyset's message history: per channel, what publishes stored and the actions added to them.
///
/// Bounded: a channel keeps its newest ``perChannelLimit`` messages (10,000 by default) and as
/// many actions, and a keyset at most ``perKeysetLimit`` messages in all (100,000 by default; the
/// channel holding the oldest message gives it up first). Messages whose TTL passed are skipped
/// by every read and dropped by a later write to their channel.
struct MessageStore: Sendable {
    let perChannelLimit: Int
    let perKeysetLimit: Int

    private(set) var channels: [String: ChannelHistory] = [:]
    private(set) var messageCount = 0

    var isEmpty: Bool { channels.isEmpty }

    init(perChannelLimit: Int = 10_000, perKeysetLimit: Int = 100_000) {
        self.perChannelLimit = max(1, perChannelLimit)
        self.perKeysetLimit = max(1, perKeysetLimit)
    }

    // MARK: Writing

    /// Stores `message` on `channel` in timetoken order (a `ptto` override may place it before
    /// newer ones). A message with the timetoken of one already stored replaces it.
    mutating func insert(_ message: StoredMessage, channel: String, now: Int64) {
        // Taken out of the dictionary, not copied from it: a copy would share the messages'
        // buffer with the dictionary's entry, and the insert below would then copy the whole
        // channel (up to `perChannelLimit` messages) on every publish.
        var history = channels.removeValue(forKey: channel) ?? ChannelHistory()
        let before = history.messages.count
        if let next = history.nextExpiry, next <= now {
            history.messages.removeAll { !$0.isLive(at: now) }
            history.nextExpiry = history.messages.compactMap(\.expires).min()
        }
        if let expires = message.expires { history.nextExpiry = min(history.nextExpiry ?? expires, expires) }
        let index = history.messageIndex(atLeast: message.timetoken)
        if index < history.messages.count, history.messages[index].timetoken == message.timetoken {
            history.messages[index] = message
        } else {
            history.messages.insert(message, at: index)
        }
        if history.messages.count > perChannelLimit {
            history.messages.removeFirst(history.messages.count - perChannelLimit)
        }
        messageCount += history.messages.count - before
        channels[channel] = history
        while messageCount > perKeysetLimit, evictOldest() {}
    }

    /// Drops the keyset's oldest message; false when there is none.
    private mutating func evictOldest() -> Bool {
        guard
            let (name, _) = channels.compactMap({ name, history in history.messages.first.map { (name, $0.timetoken) } }
            )
            .min(by: { $0.1 < $1.1 })
        else { return false }
        channels[name]?.messages.removeFirst()
        messageCount -= 1
        return true
    }

    /// Deletes the messages of `channel` in `range` (and their actions); returns how many went.
    @discardableResult
    mutating func delete(channel: String, range: HistoryRange) -> Int {
        guard var history = channels[channel] else { return 0 }
        let gone = Set(history.messages.filter { range.contains($0.timetoken) }.map(\.timetoken))
        history.messages.removeAll { gone.contains($0.timetoken) }
        history.actions.removeAll { gone.contains($0.messageTimetoken) }
        messageCount -= gone.count
        channels[channel] = history.messages.isEmpty && history.actions.isEmpty ? nil : history
        return gone.count
    }

    /// Adds `action`; false when the same user already added the same type and value to the message.
    mutating func add(_ action: StoredAction, channel: String) -> Bool {
        if channels[channel]?.actions.contains(where: {
            $0.messageTimetoken == action.messageTimetoken && $0.type == action.type && $0.value == action.value
                && $0.uuid == action.uuid
        }) == true {
            return false
        }
        // Taken out, not copied, so the insert does not copy every action (see `insert`).
        var history = channels.removeValue(forKey: channel) ?? ChannelHistory()
        history.actions.insert(action, at: history.actionIndex(atLeast: action.actionTimetoken))
        if history.actions.count > perChannelLimit {
            history.actions.removeFirst(history.actions.count - perChannelLimit)
        }
        channels[channel] = history
        return true
    }

    /// Removes the action; returns it, or nil when there was none.
    mutating func removeAction(channel: String, messageTimetoken: UInt64, actionTimetoken: UInt64) -> StoredAction? {
        guard var history = channels[channel],
            let index = history.actions.firstIndex(where: {
                $0.actionTimetoken == actionTimetoken && $0.messageTimetoken == messageTimetoken
            })
        else { return nil }
        let removed = history.actions.remove(at: index)
        channels[channel] = history.messages.isEmpty && history.actions.isEmpty ? nil : history
        return removed
    }

    // MARK: Reading

    /// A page of `channel`'s live messages in `range`, oldest first: the newest `limit` of them,
    /// or, when only `end` bounds the range, the oldest `limit` (the service reads forward from
    /// `end` then). `more` tells whether the range holds others beyond the page.
    func page(channel: String, range: HistoryRange, limit: Int, now: Int64) -> (
        messages: [StoredMessage], more: Bool
    ) {
        guard let history = channels[channel], limit > 0 else { return ([], false) }
        let inRange = history.messages.filter { range.contains($0.timetoken) && $0.isLive(at: now) }
        if range.start == nil, range.end != nil {
            return (Array(inRange.prefix(limit)), inRange.count > limit)
        }
        return (Array(inRange.suffix(limit)), inRange.count > limit)
    }

    /// How many live messages `channel` holds with a timetoken after `timetoken`.
    func count(channel: String, after timetoken: UInt64, now: Int64) -> Int {
        guard let history = channels[channel] else { return 0 }
        let from = history.messageIndex(atLeast: timetoken == .max ? timetoken : timetoken + 1)
        return history.messages[from...].reduce(0) { $0 + ($1.isLive(at: now) ? 1 : 0) }
    }

    /// A page of `channel`'s actions with action timetokens in `range`, oldest first: the newest
    /// `limit` (the action routes page backwards from `start`), and whether there are older ones.
    func actions(channel: String, range: HistoryRange, limit: Int) -> (actions: [StoredAction], more: Bool) {
        guard let history = channels[channel], limit > 0 else { return ([], false) }
        let inRange = history.actions.filter { range.contains($0.actionTimetoken) }
        return (Array(inRange.suffix(limit)), inRange.count > limit)
    }

    /// Whether `channel` holds a live message at `timetoken`.
    func hasMessage(channel: String, timetoken: UInt64, now: Int64) -> Bool {
        guard let history = channels[channel] else { return false }
        let index = history.messageIndex(atLeast: timetoken)
        return index < history.messages.count && history.messages[index].timetoken == timetoken
            && history.messages[index].isLive(at: now)
    }

    func history(_ channel: String) -> ChannelHistory? { channels[channel] }
}
