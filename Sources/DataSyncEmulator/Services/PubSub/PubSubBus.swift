public import JSONCore
import PubNubBase

/// An envelope the emulator itself publishes on the bus (not a client's publish): the entry point
/// for other services, such as DataSync real-time events (`e: 5`) fed from the change feed.
public struct ServerEnvelope: Sendable {
    /// The keyset (subscribe key) whose subscribers receive it.
    public var subscribeKey: String
    /// The channel it is published on.
    public var channel: String
    /// `d`: the payload.
    public var payload: JSONValue
    /// `e`: the event type (nil for a plain message; 1 signal, 2 objects, 3 action, 4 file,
    /// 5 DataSync).
    public var eventType: Int?
    /// `i`: the publisher, if any.
    public var publisher: String?
    /// `u`: metadata, if any.
    public var meta: JSONValue?
    /// `cmt`: the custom message type, if any.
    public var customMessageType: String?

    /// Creates an envelope.
    public init(
        subscribeKey: String, channel: String, payload: JSONValue, eventType: Int? = nil, publisher: String? = nil,
        meta: JSONValue? = nil, customMessageType: String? = nil
    ) {
        self.subscribeKey = subscribeKey
        self.channel = channel
        self.payload = payload
        self.eventType = eventType
        self.publisher = publisher
        self.meta = meta
        self.customMessageType = customMessageType
    }
}

/// The pub/sub bus: per keyset, the ordered event log (catch-up buffer), channel groups and
/// presence. Every mutation happens on this actor, and every timetoken of a keyset's log is drawn
/// here, so the log is always in timetoken order. Held long-polls never wait on this actor: they
/// wait in ``WaiterRegistry`` and come back to read.
actor PubSubBus {
    struct PresenceEntry: Sendable {
        var expires: Int64
    }

    struct IntervalState: Sendable {
        var next: Int64
        var join: [String] = []
        var leave: [String] = []
        var timeout: [String] = []
    }

    struct KeysetState: Sendable {
        var log: EventLog
        var groups: [String: [String]] = [:]
        /// channel → uuid → presence.
        var present: [String: [String: PresenceEntry]] = [:]
        /// uuid → channel → state.
        var states: [String: [String: JSONValue]] = [:]
        /// Channels in interval mode (occupancy above the announce limit), with their deltas.
        var intervals: [String: IntervalState] = [:]
        /// How many (channel, uuid) entries `present` holds, for the per-keyset limit.
        var presenceCount = 0
        /// Message Persistence: what publishes stored, and message actions (PubSubBus+History).
        var history = MessageStore()
        /// Mobile push registrations (PubSubBus+Push).
        var push = PushRegistrations()
    }

    let configuration: PubSubConfiguration
    nonisolated let clock: EmulatorClock
    nonisolated let waiters = WaiterRegistry()
    /// The last subscribe answer encoded, shared by every long-poll a publish answers alike.
    nonisolated let answers = AnswerCache()
    /// Subscribe receives queued for their first look at the log.
    nonisolated let firstLooks = FirstLooks()
    /// How many ``ParkedSubscribe`` objects exist (tests check that none outlives its answer).
    nonisolated let parkedAlive = Locked(0)
    /// subscribe key → publish key.
    nonisolated let publishKeys: [String: String]
    /// `r` in every cursor and `p`.
    nonisolated let region = 1
    private var keysets: [String: KeysetState] = [:]
    private var ticker: Task<Void, Never>?
    /// No presence lapses and no interval is due before this instant (nanoseconds since 1970).
    private(set) var nextDeadline = Int64.max
    /// How many times ``sweepExpired()`` was called: tests check a request sweeps once.
    private(set) var sweepCount = 0
    /// How many times a long-poll read the log through ``collect(subscribeKey:after:subscription:filter:)``.
    private(set) var collectCount = 0
    /// The pub/sub half of the state file; nil without one, and then nothing is written.
    let journal: PubSubJournal?

    /// Creates the bus; with `saved`, it continues from a state file (``PubSubJournal``).
    init(configuration: PubSubConfiguration, clock: EmulatorClock, saved: (PubSubJournal, PubSubSavedState)? = nil) {
        self.configuration = configuration
        self.clock = clock
        var keys: [String: String] = [:]
        for keyset in configuration.keysets { keys[keyset.subscribeKey] = keyset.publishKey }
        publishKeys = keys
        journal = saved?.0
        if let state = saved?.1 { keysets = Self.keysets(restoring: state, capacity: configuration.catchUpBufferSize) }
    }

    deinit { ticker?.cancel() }

    nonisolated func knows(subscribeKey: String) -> Bool { publishKeys[subscribeKey] != nil }

    nonisolated func accepts(publishKey: String, subscribeKey: String) -> Bool {
        publishKeys[subscribeKey] == publishKey
    }

    /// Runs `body` on the keyset's state in place (no copy of its log).
    private func withKeyset<R>(_ key: String, _ body: (inout KeysetState) -> R) -> R {
        body(&keysets[key, default: KeysetState(log: EventLog(capacity: configuration.catchUpBufferSize))])
    }

    /// A timetoken for `subscribeKey`, in the keyset's own sequence.
    func timetoken(_ subscribeKey: String) -> UInt64 { drawTimetoken(subscribeKey).timetoken }

    // MARK: Publishing

    /// Appends an event to the log and wakes the long-polls it may interest; returns the
    /// timetoken shown in `p.t`, and whether the state file (if any) holds the event. With
    /// `deliver` false (fire) nothing is logged. With `requireSaved`, an event the state file
    /// could not take is not delivered either (a client publish must not be acknowledged then).
    @discardableResult
    func publish(
        subscribeKey: String, channel: String, payload: JSONValue, eventType: Int? = nil, publisher: String? = nil,
        meta: JSONValue? = nil, customMessageType: String? = nil, sequence: Int64? = nil,
        timetokenOverride: UInt64? = nil, deliver: Bool = true, requireSaved: Bool = false
    ) -> (timetoken: UInt64, saved: Bool) {
        let (timetoken, reserved) = drawTimetoken(subscribeKey)
        guard deliver else { return (timetokenOverride ?? timetoken, reserved) }
        let event = BusEvent(
            timetoken: timetoken, publishTimetoken: timetokenOverride ?? timetoken, subscribeKey: subscribeKey,
            channel: channel, payload: payload, eventType: eventType, publisher: publisher, meta: meta,
            customMessageType: customMessageType, sequence: sequence)
        let saved = reserved && save(event)
        if saved || !requireSaved { append(event) }
        return (event.publishTimetoken, saved)
    }

    /// Publishes an envelope from the emulator itself; see ``ServerEnvelope``.
    @discardableResult
    func publish(_ envelope: ServerEnvelope) -> UInt64 {
        publish(
            subscribeKey: envelope.subscribeKey, channel: envelope.channel, payload: envelope.payload,
            eventType: envelope.eventType, publisher: envelope.publisher, meta: envelope.meta,
            customMessageType: envelope.customMessageType
        ).timetoken
    }

    /// Publishes `envelopes` in order in one step on this actor, so a subscriber reads either
    /// none of them or all (up to its response limit); returns their timetokens.
    @discardableResult
    func publish(_ envelopes: [ServerEnvelope]) -> [UInt64] {
        envelopes.map { publish($0) }
    }

    private func append(_ event: BusEvent) {
        let log = withKeyset(event.subscribeKey) { state in
            state.log.append(event)
            return state.log
        }
        // The woken long-polls get their events here, in this one turn on the actor, instead of
        // each coming back to `collect`: with N held that was N hops through this actor, one
        // after another, before the last subscriber could be answered.
        let limit = max(1, configuration.maximumMessagesPerResponse)
        waiters.advance(subscribeKey: event.subscribeKey, head: event.timetoken, channel: event.channel) { query in
            Self.matching(in: log, after: query.after, matcher: query.matcher, filter: query.filter, limit: limit)
        }
    }

    // MARK: Receiving

    /// The events after `after` that `subscription` receives (at most the response limit), each
    /// with its `b`, and the log head that was looked at.
    func collect(
        subscribeKey: String, after: UInt64, subscription: Subscription, filter: StreamFilter?
    ) -> (events: [(BusEvent, String?)], head: UInt64, matcher: Subscription.Matcher) {
        collectCount += 1
        sweepExpired()
        let state = keysets[subscribeKey]
        let matcher = subscription.matcher { state?.groups[$0] ?? [] }
        guard let log = state?.log else { return ([], 0, matcher) }
        let limit = max(1, configuration.maximumMessagesPerResponse)
        return (Self.matching(in: log, after: after, matcher: matcher, filter: filter, limit: limit), log.head, matcher)
    }

    /// The events of `log` after `after` that `matcher` and `filter` let through, at most `limit`,
    /// each with its `b`.
    static func matching(
        in log: EventLog, after: UInt64, matcher: Subscription.Matcher, filter: StreamFilter?, limit: Int
    ) -> [(BusEvent, String?)] {
        var found: [(BusEvent, String?)] = []
        var index = log.firstIndex(after: after)
        while index < log.events.count, found.count < limit {
            let event = log.events[index]
            index += 1
            guard let subscriptionName = matcher.match(event.channel) else { continue }
            if let filter, !event.isPresence, !filter.matches(publisher: event.publisher, meta: event.meta) {
                continue
            }
            found.append((event, subscriptionName))
        }
        return found
    }

    /// The cursor for an answer without messages: a fresh timetoken, or `after` when it is later.
    func emptyCursor(subscribeKey: String, after: UInt64) -> UInt64 {
        max(after, drawTimetoken(subscribeKey).timetoken)
    }

    // MARK: Channel groups

    enum GroupError: Error, Sendable {
        case tooMany
        case reserved
    }

    func groupChannels(_ subscribeKey: String, group: String) -> [String] {
        keysets[subscribeKey]?.groups[group] ?? []
    }

    func groupNames(_ subscribeKey: String) -> [String] {
        (keysets[subscribeKey]?.groups.keys).map { $0.sorted() } ?? []
    }

    func addChannels(_ channels: [String], to group: String, subscribeKey: String) -> GroupError? {
        let result: GroupError? = withKeyset(subscribeKey) { state in
            if state.groups[group] == nil, state.groups.count >= configuration.maximumChannelGroups { return .tooMany }
            var members = state.groups[group] ?? []
            for channel in channels where !members.contains(channel) { members.append(channel) }
            if members.count > configuration.maximumChannelsPerGroup { return .tooMany }
            state.groups[group] = members.sorted()
            return nil
        }
        if result == nil { groupsChanged(subscribeKey, group: group) }
        return result
    }

    func removeChannels(_ channels: [String], from group: String, subscribeKey: String) {
        withKeyset(subscribeKey) { state in
            guard var members = state.groups[group] else { return }
            members.removeAll { channels.contains($0) }
            state.groups[group] = members
        }
        groupsChanged(subscribeKey, group: group)
    }

    func deleteGroup(_ group: String, subscribeKey: String) {
        withKeyset(subscribeKey) { state in state.groups[group] = nil }
        groupsChanged(subscribeKey, group: group)
    }

    private func groupsChanged(_ subscribeKey: String, group: String) {
        saveGroup(subscribeKey, group: group)
        // Held polls resolved the groups when they started waiting: let them resolve again.
        waiters.advance(subscribeKey: subscribeKey, head: 0, channel: nil)
    }
}

// Storage access for the presence extension (kept here, next to the stored properties).
extension PubSubBus {
    func groupsSnapshot(_ subscribeKey: String) -> [String: [String]] { keysets[subscribeKey]?.groups ?? [:] }

    func readKeyset(_ subscribeKey: String) -> KeysetState? { keysets[subscribeKey] }

    func keysetKeys() -> [String] { Array(keysets.keys) }

    @discardableResult
    func mutateKeyset<R>(_ subscribeKey: String, _ body: (inout KeysetState) -> R) -> R {
        withKeyset(subscribeKey, body)
    }

    var hasTicker: Bool { ticker != nil }

    func countSweep() { sweepCount += 1 }

    /// Records that a presence lapses or an interval is due at `deadline`.
    func noteDeadline(_ deadline: Int64) { nextDeadline = min(nextDeadline, deadline) }

    func resetDeadline(to deadline: Int64) { nextDeadline = deadline }

    func setTicker(_ task: Task<Void, Never>) { ticker = task }

    /// One tick of the presence clock; returns false (and forgets the ticker) once nobody is
    /// present and no interval is pending, so an idle emulator has no sleeper on its clock.
    func tick() -> Bool {
        sweepExpired()
        let busy = keysets.values.contains { !$0.present.isEmpty || !$0.intervals.isEmpty }
        if !busy { ticker = nil }
        return busy
    }
}
