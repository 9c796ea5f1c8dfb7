package import PubNubCore

/// The subscribe loop's decisions, with no I/O and no clock: feed it an ``Event``, it changes state
/// and returns the ``Effect``s to carry out (requests, timers, deliveries, status reports).
///
/// States:
/// - `stopped`: nothing to subscribe to, or stopped by the user (`disconnect`, a cancelled retry).
/// - `handshaking(attempt:)`: a `tt=0` request is out; `attempt` counts the failures before it.
/// - `receiving`: a long-poll with the cursor is out.
/// - `reconnecting(attempt:failure:)`: waiting for the reconnection delay after a failure.
/// - `failed(_:)`: stopped by an answer that retrying cannot fix (403, 400, 414, a rejected filter)
///   or after the policy gave up; a channel change, `reconnect` or (after a 403) a new token
///   starts it again.
///
/// Signals about the origin from the client's other requests (``Event/origin(_:)``) shorten a
/// reconnection wait that followed a connection-level failure once the origin answers again, and
/// make a held long-poll suspect when a request to the origin could not connect or timed out.
///
/// Every request and timer carries a generation number; results of an older generation are
/// ignored, so a cancelled long-poll that still answers cannot move the machine.
package struct SubscribeStateMachine: Sendable {
    package struct Settings: Sendable, Hashable {
        package var policy: SubscribeReconnectionPolicy
        package var restore: Bool
        package var suppressLeaveEvents: Bool
        package var requestMessageCountThreshold: Int

        package init(
            policy: SubscribeReconnectionPolicy = .default, restore: Bool = true, suppressLeaveEvents: Bool = false,
            requestMessageCountThreshold: Int = 0
        ) {
            self.policy = policy
            self.restore = restore
            self.suppressLeaveEvents = suppressLeaveEvents
            self.requestMessageCountThreshold = requestMessageCountThreshold
        }

        package init(configuration: PubNubConfiguration) {
            self.init(
                policy: configuration.subscribeReconnectionPolicy, restore: configuration.restore,
                suppressLeaveEvents: configuration.suppressLeaveEvents,
                requestMessageCountThreshold: configuration.requestMessageCountThreshold)
        }

        /// How many messages in a catch-up answer mean the service's queue may have overflowed:
        /// the threshold when the user set one (it then describes their keyset), otherwise the
        /// service's default queue of ``serviceMessageQueue`` messages.
        package var catchUpOverflowLimit: Int {
            requestMessageCountThreshold > 0 ? requestMessageCountThreshold : SubscribeStateMachine.serviceMessageQueue
        }
    }

    /// The messages the service queues for a subscriber by default: it
    /// answers a catch-up with at most this many, and when more were published since the cursor
    /// it keeps the newest, so a full catch-up answer may follow dropped messages.
    package static let serviceMessageQueue = 100

    /// How a request failed when no HTTP answer came back.
    package enum ConnectionFailure: Hashable, Sendable {
        /// Refused, reset or closed early: the network said no at once, so trying again soon
        /// costs little and finds the origin as soon as it is back.
        case failedFast
        /// The request timed out, or the long-poll was given up because another request to the
        /// origin could not connect or timed out.
        case timedOut
        /// Another failure to exchange (TLS, host resolution, the transport's own).
        case other
    }

    /// Why a request failed, as the loop classified the error or answer.
    package struct Failure: Hashable, Sendable {
        package var category: PubNubStatus.Category
        package var statusCode: Int?
        package var isRetryable: Bool
        package var retryAfter: Duration?
        package var errorData: PubNubStatus.ErrorData?
        /// How the connection failed, or `nil` when the service answered (an error status, a body
        /// that could not be read): only a wait after a connection failure ends early when the
        /// origin answers another request.
        package var connection: ConnectionFailure?

        package init(
            category: PubNubStatus.Category, statusCode: Int? = nil, isRetryable: Bool, retryAfter: Duration? = nil,
            errorData: PubNubStatus.ErrorData? = nil, connection: ConnectionFailure? = nil
        ) {
            self.category = category
            self.statusCode = statusCode
            self.isRetryable = isRetryable
            self.retryAfter = retryAfter
            self.errorData = errorData
            self.connection = connection
        }
    }

    package enum State: Hashable, Sendable {
        case stopped
        case handshaking(attempt: Int)
        case receiving
        case reconnecting(attempt: Int, failure: Failure)
        case failed(Failure)
    }

    package enum Event: Sendable, Equatable {
        /// The full set to subscribe to now (sorted, unique), and a timetoken to start from.
        case subscriptionChanged(channels: [String], groups: [String], timetoken: Timetoken?)
        /// The request of generation `id` answered 2xx with a readable cursor.
        case responseReceived(id: UInt64, response: SubscribeResponse)
        /// The request of generation `id` failed.
        case requestFailed(id: UInt64, failure: Failure)
        /// The reconnection delay of generation `id` passed.
        case reconnectTimerFired(id: UInt64)
        /// The user asked to stop, keeping the channels and the cursor.
        case disconnect
        /// The user asked to start again, optionally from a timetoken.
        case reconnect(timetoken: Timetoken?)
        /// The Access Manager token was replaced.
        case tokenChanged
        /// The user cancelled the automatic retry announced with generation `id`.
        case cancelAutomaticRetry(id: UInt64)
        /// Another request to the origin ended this way (a heartbeat, a REST call, a probe). The
        /// loop passes on only signals of requests that started after its current request or wait.
        case origin(OriginHealth.Signal)
        /// The device's network path monitor reported this path (see ``NetworkPathMonitor``).
        case networkPath(NetworkPathUpdate)
    }

    package enum Effect: Sendable, Equatable {
        /// Send a handshake (`tt=0`) for the set.
        case handshake(id: UInt64, channels: [String], groups: [String])
        /// Send a long-poll from `cursor` for the set.
        case receive(id: UInt64, channels: [String], groups: [String], cursor: SubscribeCursor)
        /// Cancel the request or timer in flight.
        case cancelPending
        /// Wait before reconnection attempt `attempt` (the policy's delay, or `retryAfter`), then
        /// report ``Event/reconnectTimerFired(id:)``.
        case scheduleReconnect(id: UInt64, attempt: Int, retryAfter: Duration?)
        /// The origin answers again: replace the pending wait of generation `id` by a short jitter,
        /// then report ``Event/reconnectTimerFired(id:)``.
        case reconnectSoon(id: UInt64)
        /// Hand these envelopes to the listeners.
        case deliver([SubscribeEnvelope])
        /// Report a status; `retryID` is the generation ``Event/cancelAutomaticRetry(id:)`` must name.
        case emitStatus(PubNubStatus, retryID: UInt64?)
        /// A catch-up answer was full: the service may have dropped messages before it. Not a
        /// status for the app (the category is announced only with a threshold set); it feeds the
        /// DataSync gap detectors. The status says where (category `requestMessageCountExceeded`).
        case possibleLoss(PubNubStatus)
        /// Send a presence `leave` for these names.
        case leave(channels: [String], groups: [String])
        /// Presence heartbeats now cover this set (empty: stop them).
        case presenceChanged(channels: [String], groups: [String])
    }

    package let settings: Settings
    package private(set) var state: State = .stopped
    package private(set) var channels: [String] = []
    package private(set) var groups: [String] = []
    /// The last cursor received.
    package private(set) var cursor: SubscribeCursor?
    /// The cursor before it.
    package private(set) var lastTimetoken: Timetoken?
    /// The timetoken the next handshake resumes from (a user timetoken or a restore).
    package private(set) var pendingTimetoken: Timetoken?
    package private(set) var generation: UInt64 = 0
    /// The cursor a long-poll was asked again from after its answer could not be parsed; a second
    /// unreadable answer from it moves on to the cursor salvaged from that answer.
    package private(set) var salvageRetryCursor: SubscribeCursor?
    /// Whether the next answer is the first of a catch-up: the long-poll resumed from a stored or
    /// given timetoken, so the service answers from its queue rather than with what is new.
    package private(set) var isCatchingUp = false
    /// Whether the current reconnection wait was already cut short by an answer from the origin,
    /// so further answers leave its jitter alone.
    package private(set) var isWaitShortened = false
    /// The last path the network path monitor reported; `nil` before its first update.
    package private(set) var networkPath: NetworkPathUpdate?

    package init(settings: Settings) {
        self.settings = settings
    }

    package mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .subscriptionChanged(let channels, let groups, let timetoken):
            return changeSubscription(channels: channels, groups: groups, timetoken: timetoken)
        case .responseReceived(let id, let response):
            guard id == generation else { return [] }
            return received(response)
        case .requestFailed(let id, let failure):
            guard id == generation else { return [] }
            return failed(failure)
        case .reconnectTimerFired(let id):
            guard id == generation else { return [] }
            switch state {
            case .reconnecting(let attempt, _):
                return startHandshake(attempt: attempt + 1)
            case .stopped, .handshaking, .receiving, .failed:
                return []
            }
        case .disconnect:
            switch state {
            case .stopped:
                return []
            case .handshaking, .receiving, .reconnecting, .failed:
                return stop(category: .disconnected, operation: .subscribe)
            }
        case .reconnect(let timetoken):
            guard !isEmptySet else { return [] }
            switch state {
            case .handshaking, .receiving:
                guard let timetoken else { return [] }
                pendingTimetoken = timetoken
                return [.cancelPending] + startHandshake(attempt: 0)
            case .stopped, .reconnecting, .failed:
                pendingTimetoken = timetoken ?? restoreTimetoken
                return [.cancelPending] + startHandshake(attempt: 0) + [presenceEffect]
            }
        case .tokenChanged:
            switch state {
            case .failed(let failure) where failure.category == .accessDenied:
                pendingTimetoken = pendingTimetoken ?? restoreTimetoken
                return startHandshake(attempt: 0) + [presenceEffect]
            case .stopped, .handshaking, .receiving, .reconnecting, .failed:
                return []
            }
        case .cancelAutomaticRetry(let id):
            guard id == generation else { return [] }
            switch state {
            case .reconnecting:
                return stop(category: .disconnected, operation: .subscribe)
            case .stopped, .handshaking, .receiving, .failed:
                return []
            }
        case .origin(let signal):
            return originSignal(signal.outcome)
        case .networkPath(let update):
            return networkPathChanged(update)
        }
    }

    /// What a new network path means here.
    ///
    /// - Lost: a request in flight cannot be answered, so it is given up now (the status stream
    ///   says so) instead of when its timeout expires; the loop resumes from its cursor.
    /// - Back, or over other interfaces: a wait after a connection failure ends within a short
    ///   jitter, and a held long-poll (whose connection used the old path) is restarted from its
    ///   cursor. The first update is only the starting point, unless it says there is no path.
    private mutating func networkPathChanged(_ update: NetworkPathUpdate) -> [Effect] {
        let previous = networkPath
        networkPath = update
        guard previous != update else { return [] }
        guard update.isSatisfied else {
            switch state {
            case .handshaking, .receiving:
                return giveUpInFlight(
                    because: "the device has no network path: the subscription resumes from its cursor when one is back"
                )
            case .stopped, .reconnecting, .failed:
                return []
            }
        }
        guard let previous else { return [] }
        switch state {
        case .reconnecting(_, let failure):
            guard failure.connection != nil, !isWaitShortened else { return [] }
            isWaitShortened = true
            return [.reconnectSoon(id: generation)]
        case .receiving, .handshaking:
            let what = previous.isSatisfied ? "switched interfaces" : "came back"
            return giveUpInFlight(
                because: "the device's network path \(what) while a request was open: it is restarted from its cursor")
        case .stopped, .failed:
            return []
        }
    }

    /// Ends the request in flight as a lost connection, to be resumed from the cursor: the loop
    /// has reason to believe its connection is dead although the request has not failed yet.
    private mutating func giveUpInFlight(because reason: String) -> [Effect] {
        // With no automatic reconnection a suspicion must not stop a request that may be fine.
        guard settings.policy.allowsAttempt(0) else { return [] }
        let resumeFrom = cursor?.timetoken
        var effects = failed(
            Failure(
                category: .networkIssues, isRetryable: true,
                errorData: PubNubStatus.ErrorData(information: reason), connection: .timedOut))
        // Suspected, not seen to fail: resume from the cursor even without `restore`, so the
        // restart itself loses nothing.
        if pendingTimetoken == nil { pendingTimetoken = resumeFrom }
        effects.insert(.cancelPending, at: 0)
        return effects
    }

    /// The outcomes an `.origin` event would change anything for in the current state: the hub
    /// queues only these for the loop, so the client's other requests cost the loop nothing while
    /// it has no use for them. Derived from ``originSignal(_:)`` itself, on a copy, so the filter
    /// cannot drift from what the machine does.
    package var originOutcomesActedOn: Set<OriginHealth.Outcome> {
        var outcomes: Set<OriginHealth.Outcome> = []
        for outcome in [OriginHealth.Outcome.answered, .cannotConnect, .connectionLost, .timedOut] {
            var copy = self
            if !copy.originSignal(outcome).isEmpty { outcomes.insert(outcome) }
        }
        return outcomes
    }

    /// What another request to the origin means here.
    ///
    /// - While waiting after a connection failure, an answer ends the wait: the network is back,
    ///   whatever the backoff says. After an error answer (5xx, 429) the origin was reachable all
    ///   along, so the wait is the service's and is kept.
    /// - While a long-poll is held, a request that could not connect or timed out means the
    ///   long-poll's connection may be dead without anyone noticing until the subscribe timeout:
    ///   it is given up like a lost connection and resumed from its cursor. A lost connection is
    ///   not enough: servers close idle pooled connections in the normal course.
    private mutating func originSignal(_ outcome: OriginHealth.Outcome) -> [Effect] {
        switch (state, outcome) {
        case (.reconnecting(_, let failure), .answered):
            guard failure.connection != nil, !isWaitShortened else { return [] }
            isWaitShortened = true
            return [.reconnectSoon(id: generation)]
        case (.receiving, .cannotConnect), (.receiving, .timedOut):
            let what = outcome == .timedOut ? "timed out" : "could not connect"
            return giveUpInFlight(
                because: "another request to the origin \(what) while the long-poll was open: "
                    + "the long-poll is restarted from its cursor")
        case (.stopped, _), (.handshaking, _), (.receiving, _), (.reconnecting, _), (.failed, _):
            return []
        }
    }

    // MARK: - Transitions

    private var isEmptySet: Bool { channels.isEmpty && groups.isEmpty }

    /// The cursor's timetoken when the configuration asks to catch up.
    private var restoreTimetoken: Timetoken? { settings.restore ? cursor?.timetoken : nil }

    private var presenceEffect: Effect { .presenceChanged(channels: channels, groups: groups) }

    private mutating func changeSubscription(channels: [String], groups: [String], timetoken: Timetoken?) -> [Effect] {
        // Sets, so a change to a client holding thousands of names is linear in them.
        let newChannels = Set(channels)
        let newGroups = Set(groups)
        let oldChannels = Set(self.channels)
        let oldGroups = Set(self.groups)
        let removedChannels = self.channels.filter { !newChannels.contains($0) }
        let removedGroups = self.groups.filter { !newGroups.contains($0) }
        let added = channels.contains { !oldChannels.contains($0) } || groups.contains { !oldGroups.contains($0) }
        let removed = !removedChannels.isEmpty || !removedGroups.isEmpty
        let wasActive = state != .stopped
        self.channels = channels
        self.groups = groups
        var effects: [Effect] = []
        if removed, wasActive, !settings.suppressLeaveEvents {
            let leaveChannels = removedChannels.filter { !ChannelName($0).isPresence }
            let leaveGroups = removedGroups.filter { !ChannelName($0).isPresence }
            if !leaveChannels.isEmpty || !leaveGroups.isEmpty {
                effects.append(.leave(channels: leaveChannels, groups: leaveGroups))
            }
        }
        if isEmptySet {
            // Unsubscribing from everything resets the cursor, as the documented API says.
            let wasRunning = wasActive
            state = .stopped
            cursor = nil
            lastTimetoken = nil
            pendingTimetoken = nil
            generation &+= 1
            guard wasRunning || removed else { return effects }
            effects += [.cancelPending, presenceEffect]
            if removed { effects.append(.emitStatus(status(.disconnected, .unsubscribe), retryID: nil)) }
            return effects
        }
        guard added || removed || timetoken != nil else { return effects }
        if removed, wasActive { effects.append(.emitStatus(status(.disconnected, .unsubscribe), retryID: nil)) }
        switch state {
        case .stopped, .failed:
            pendingTimetoken = timetoken ?? restoreTimetoken
            return effects + [.cancelPending] + startHandshake(attempt: 0) + [presenceEffect]
        case .handshaking(let attempt):
            if let timetoken { pendingTimetoken = timetoken }
            return effects + startHandshake(attempt: attempt) + [presenceEffect]
        case .receiving:
            if let timetoken {
                pendingTimetoken = timetoken
                return effects + startHandshake(attempt: 0) + [presenceEffect]
            }
            guard let cursor else {
                return effects + startHandshake(attempt: 0) + [presenceEffect]
            }
            generation &+= 1
            effects.append(.receive(id: generation, channels: channels, groups: groups, cursor: cursor))
            if added { effects.append(.emitStatus(status(.connected, .subscribe), retryID: nil)) }
            return effects + [presenceEffect]
        case .reconnecting:
            // The pending attempt will use the new set; changing channels does not skip the delay.
            if let timetoken { pendingTimetoken = timetoken }
            return effects + [presenceEffect]
        }
    }

    private mutating func startHandshake(attempt: Int) -> [Effect] {
        state = .handshaking(attempt: attempt)
        generation &+= 1
        return [.handshake(id: generation, channels: channels, groups: groups)]
    }

    private mutating func received(_ response: SubscribeResponse) -> [Effect] {
        var effects: [Effect] = []
        var isRefetching = false
        switch state {
        case .handshaking(let attempt):
            let next =
                pendingTimetoken.map { SubscribeCursor(timetoken: $0, region: response.cursor.region) }
                ?? response.cursor
            isCatchingUp = pendingTimetoken != nil
            pendingTimetoken = nil
            advance(to: next)
            state = .receiving
            generation &+= 1
            effects.append(.receive(id: generation, channels: channels, groups: groups, cursor: next))
            effects.append(.emitStatus(status(attempt > 0 ? .reconnected : .connected, .subscribe), retryID: nil))
        case .receiving:
            if response.isSalvaged, let current = cursor, salvageRetryCursor != current {
                // The answer's cursor was read but its messages were not: ask for them again from
                // the cursor this long-poll was sent with, once, instead of skipping past them.
                salvageRetryCursor = current
                isRefetching = true
                generation &+= 1
                effects.append(.receive(id: generation, channels: channels, groups: groups, cursor: current))
                break
            }
            salvageRetryCursor = nil
            let wasCatchingUp = isCatchingUp
            isCatchingUp = false
            advance(to: response.cursor)
            if !response.envelopes.isEmpty { effects.append(.deliver(response.envelopes)) }
            let count = response.envelopes.count
            let threshold = settings.requestMessageCountThreshold
            if threshold > 0, count >= threshold {
                var exceeded = status(.requestMessageCountExceeded, .subscribe)
                exceeded.isError = true
                exceeded.errorData = PubNubStatus.ErrorData(
                    information: "one answer held \(count) messages (threshold \(threshold))")
                effects.append(.emitStatus(exceeded, retryID: nil))
            }
            // Only the first answer of a catch-up can follow messages the service dropped: a
            // live answer, or the next page of a catch-up, starts where the last one ended.
            let limit = settings.catchUpOverflowLimit
            if wasCatchingUp, count >= limit {
                var overflow = status(.requestMessageCountExceeded, .subscribe)
                overflow.errorData = PubNubStatus.ErrorData(
                    information: "the first answer of a catch-up held \(count) messages, the service's queue holds "
                        + "\(limit): older ones may have been dropped")
                effects.append(.possibleLoss(overflow))
            }
            generation &+= 1
            effects.append(.receive(id: generation, channels: channels, groups: groups, cursor: response.cursor))
        case .stopped, .reconnecting, .failed:
            return []
        }
        if !response.problems.isEmpty {
            var malformed = status(.malformedResponse, .subscribe)
            malformed.isError = true
            malformed.statusCode = 200
            // The answer is fetched again from the same cursor, so nothing is skipped (yet).
            malformed.willAutomaticallyRetry = isRefetching
            malformed.errorData = PubNubStatus.ErrorData(information: response.problems.joined(separator: "; "))
            effects.insert(.emitStatus(malformed, retryID: nil), at: 0)
        }
        return effects
    }

    private mutating func advance(to next: SubscribeCursor) {
        lastTimetoken = cursor?.timetoken
        cursor = next
    }

    private mutating func failed(_ failure: Failure) -> [Effect] {
        let attempt: Int
        let wasReceiving: Bool
        switch state {
        case .handshaking(let count):
            attempt = count
            wasReceiving = false
        case .receiving:
            attempt = 0
            wasReceiving = true
            pendingTimetoken = restoreTimetoken
        case .stopped, .reconnecting, .failed:
            return []
        }
        var report = status(wasReceiving ? .unexpectedDisconnect : failure.category, .subscribe)
        report.isError = true
        report.statusCode = failure.statusCode
        report.errorData = failure.errorData
        if failure.isRetryable, settings.policy.allowsAttempt(attempt) {
            state = .reconnecting(attempt: attempt, failure: failure)
            isWaitShortened = false
            generation &+= 1
            report.willAutomaticallyRetry = true
            return [
                .scheduleReconnect(id: generation, attempt: attempt, retryAfter: failure.retryAfter),
                .emitStatus(report, retryID: generation),
            ]
        }
        if !failure.isRetryable { report.category = failure.category }
        if pendingTimetoken == nil { pendingTimetoken = restoreTimetoken }
        state = .failed(failure)
        generation &+= 1
        return [.emitStatus(report, retryID: nil), .presenceChanged(channels: [], groups: [])]
    }

    private mutating func stop(category: PubNubStatus.Category, operation: PubNubStatus.Operation) -> [Effect] {
        state = .stopped
        pendingTimetoken = nil
        generation &+= 1
        return [
            .cancelPending, .presenceChanged(channels: [], groups: []),
            .emitStatus(status(category, operation), retryID: nil),
        ]
    }

    private func status(_ category: PubNubStatus.Category, _ operation: PubNubStatus.Operation) -> PubNubStatus {
        PubNubStatus(
            category: category, operation: operation, isError: false, currentTimetoken: cursor?.timetoken,
            lastTimetoken: lastTimetoken, subscribedChannels: channels, subscribedChannelGroups: groups)
    }
}
