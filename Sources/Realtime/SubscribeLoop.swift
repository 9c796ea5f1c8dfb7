import Foundation
import JSONCore
import PubNubBase
package import PubNubCore
package import Transport

/// Runs the ``SubscribeStateMachine``: takes events from its inbox one at a time, and carries out
/// the effects (requests through the shared pipeline on the `.direct` chain, reconnection timers
/// and heartbeats on the configured clock, deliveries through the hub).
///
/// It holds the pipeline and the hub, never the client, so releasing the client ends it: the
/// component's `shutDown()` finishes the inbox and cancels every task at once.
package actor SubscribeLoop {
    private enum Slot: Hashable, Sendable {
        case request
        case timer
        case heartbeat
    }

    private struct Tasks: Sendable {
        var running: [Slot: Task<Void, Never>] = [:]
        var isShutDown = false
    }

    private var machine: SubscribeStateMachine
    private let pipeline: ServicePipeline
    private let hub: RealtimeHub
    private let unitRandom: @Sendable () -> Double
    private var heartbeatNames = SubscriptionNames()
    /// ``OriginHealth/mark()`` when the current request or reconnection wait began: signals of
    /// requests that started before it are older news than what the loop knows.
    private var originMark: UInt64 = 0
    /// Cancelled synchronously by ``shutDownNow()``, so the long-poll ends even before the actor
    /// runs again.
    private nonisolated let tasks = Locked(Tasks())
    private nonisolated let handledEvents = Locked<UInt64>(0)

    /// How many inbox events the loop has handled (its state machine decided and the effects were
    /// started): tests compare it with ``RealtimeHub/sentEventCount`` to know that nothing sent
    /// so far is still waiting, instead of yielding and hoping.
    package nonisolated var handledEventCount: UInt64 { handledEvents.withLock { $0 } }

    package init(
        pipeline: ServicePipeline, hub: RealtimeHub,
        unitRandom: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.pipeline = pipeline
        self.hub = hub
        self.unitRandom = unitRandom
        machine = SubscribeStateMachine(settings: SubscribeStateMachine.Settings(configuration: pipeline.configuration))
    }

    /// Handles inbox events until the inbox finishes.
    package func run(_ inbox: AsyncStream<SubscribeStateMachine.Event>) async {
        for await event in inbox {
            if case .subscriptionChanged = event {
                handle(hub.takeSubscriptionChange() ?? event)
            } else {
                handle(event)
            }
            handledEvents.withLock { $0 &+= 1 }
        }
        shutDownNow()
    }

    /// The machine's state, for tests.
    package var state: SubscribeStateMachine.State { machine.state }

    /// The machine's cursor, for tests.
    package var cursor: SubscribeCursor? { machine.cursor }

    package func handle(_ event: SubscribeStateMachine.Event) {
        if case .origin(let signal) = event, signal.sequence <= originMark { return }
        let effects = machine.handle(event)
        hub.setOriginInterest(machine.originOutcomesActedOn)
        hub.loopReceiving(
            machine.state == .receiving ? SubscriptionNames(channels: machine.channels, groups: machine.groups) : nil)
        for effect in effects {
            execute(effect)
        }
    }

    /// Cancels every task now; later tasks are cancelled as they start.
    package nonisolated func shutDownNow() {
        let running = tasks.withLock { tasks in
            tasks.isShutDown = true
            defer { tasks.running = [:] }
            return Array(tasks.running.values)
        }
        for task in running { task.cancel() }
    }

    private nonisolated func replace(_ slot: Slot, with task: Task<Void, Never>?) {
        let (old, shutDown) = tasks.withLock { tasks in
            let old = tasks.running.removeValue(forKey: slot)
            if let task, !tasks.isShutDown { tasks.running[slot] = task }
            return (old, tasks.isShutDown)
        }
        old?.cancel()
        if shutDown { task?.cancel() }
    }

    // MARK: Effects

    private func execute(_ effect: SubscribeStateMachine.Effect) {
        switch effect {
        case .handshake(let id, let channels, let groups):
            startRequest(id: id, channels: channels, groups: groups, cursor: nil)
        case .receive(let id, let channels, let groups, let cursor):
            startRequest(id: id, channels: channels, groups: groups, cursor: cursor)
        case .cancelPending:
            replace(.request, with: nil)
            replace(.timer, with: nil)
        case .scheduleReconnect(let id, let attempt, let retryAfter):
            var connection: SubscribeStateMachine.ConnectionFailure?
            if case .reconnecting(_, let failure) = machine.state { connection = failure.connection }
            let configuration = pipeline.configuration
            let delay = Self.reconnectionDelay(
                policy: configuration.subscribeReconnectionPolicy, attempt: attempt, retryAfter: retryAfter,
                connection: connection, unitRandom: unitRandom())
            var probeInterval: Duration?
            if connection != nil, let interval = configuration.reconnectionProbeInterval, interval > .zero,
                delay > interval
            {
                probeInterval = interval
            }
            originMark = pipeline.originHealth.mark()
            let pipeline = self.pipeline
            let hub = self.hub
            replace(.request, with: nil)
            replace(
                .timer,
                with: Task {
                    guard await Self.wait(delay, probingEvery: probeInterval, pipeline: pipeline) else { return }
                    hub.send(.reconnectTimerFired(id: id))
                })
        case .reconnectSoon(let id):
            let jitter = Self.reconnectSoonJitter(
                policy: pipeline.configuration.subscribeReconnectionPolicy, unitRandom: unitRandom())
            let clock = pipeline.configuration.clock
            let hub = self.hub
            replace(
                .timer,
                with: Task {
                    if jitter > .zero {
                        do {
                            try await clock.sleep(for: jitter)
                        } catch {
                            return
                        }
                    }
                    guard !Task.isCancelled else { return }
                    hub.send(.reconnectTimerFired(id: id))
                })
        case .deliver(let envelopes):
            let outcome = SubscribeDecryption.decrypt(
                envelopes, with: pipeline.configuration.cryptoModule, channels: machine.channels,
                groups: machine.groups)
            hub.deliver(outcome.envelopes)
            for status in outcome.statuses { hub.deliver(status) }
        case .emitStatus(var status, let retryID):
            if let retryID {
                let hub = self.hub
                status.retryCanceller = { hub.send(.cancelAutomaticRetry(id: retryID)) }
            }
            hub.deliver(status)
        case .possibleLoss(let status):
            hub.deliverPossibleLoss(status)
        case .leave(let channels, let groups):
            let call = RealtimeCalls.leave(
                subscribeKey: pipeline.configuration.subscribeKey, channels: channels, groups: groups)
            let pipeline = self.pipeline
            let hub = self.hub
            Task {
                if let failure = await Self.presenceCall(call, pipeline: pipeline) {
                    hub.deliver(Self.presenceStatus(failure, operation: .unsubscribe, channels, groups))
                }
            }
        case .presenceChanged(let channels, let groups):
            updateHeartbeats(channels: channels, groups: groups)
        }
    }

    private func startRequest(id: UInt64, channels: [String], groups: [String], cursor: SubscribeCursor?) {
        let configuration = pipeline.configuration
        let names = SubscriptionNames(channels: channels, groups: groups)
        let state =
            cursor == nil
            ? hub.presenceState(for: names, consume: !configuration.maintainPresenceState) : [:]
        let call = RealtimeCalls.subscribe(
            subscribeKey: configuration.subscribeKey, channels: channels, groups: groups, cursor: cursor,
            presenceTimeout: configuration.effectivePresenceTimeout, state: state,
            filterExpression: configuration.filterExpression)
        let pipeline = self.pipeline
        let hub = self.hub
        originMark = pipeline.originHealth.mark()
        replace(.timer, with: nil)
        replace(
            .request,
            with: Task {
                guard let event = await Self.perform(call, id: id, pipeline: pipeline, isHandshake: cursor == nil)
                else { return }
                hub.send(event)
            })
    }

    /// Sends one subscribe request and turns its outcome into a machine event; `nil` when the
    /// task was cancelled (the machine moved on).
    package static func perform(
        _ call: ServicePipeline.Call, id: UInt64, pipeline: ServicePipeline, isHandshake: Bool = false
    ) async -> SubscribeStateMachine.Event? {
        let custom = PubNub.RequestConfiguration(timeout: timeout(isHandshake: isHandshake, pipeline.configuration))
        let response: HTTPResponse
        do {
            let request = try pipeline.request(call, custom: custom)
            // The loop reads its own outcome; reporting it would only tell the loop what it knows.
            response = try await pipeline.exchange(request, chain: .direct, custom: custom, reportsOriginHealth: false)
        } catch {
            if Task.isCancelled { return nil }
            return .requestFailed(id: id, failure: failure(for: error))
        }
        if Task.isCancelled { return nil }
        return event(for: response, id: id, filterExpression: pipeline.configuration.filterExpression)
    }

    // MARK: Reconnection waits

    /// The most a reconnection is put off once the origin answers again, so clients that lost
    /// the same network do not all come back in the same instant; never more than the policy's
    /// own ``SubscribeReconnectionPolicy/maximumJitter`` (a policy without jitter gets none).
    package static let maximumReconnectJitter: Duration = .milliseconds(250)

    /// The jitter before reconnecting once the origin answers again.
    package static func reconnectSoonJitter(policy: SubscribeReconnectionPolicy, unitRandom: Double) -> Duration {
        let fraction = unitRandom.isFinite ? min(max(unitRandom, 0), 1) : 0
        return min(policy.maximumJitter, maximumReconnectJitter) * fraction
    }

    /// The short schedule for connections that failed fast (refused, reset): 0.5 s, 1 s, then
    /// 2 s for every later attempt, each plus ``reconnectSoonJitter(policy:unitRandom:)``.
    package static let fastFailureDelays: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2)]

    /// The wait before reconnection attempt `attempt`: a `Retry-After` as the service asked; after
    /// a connection that failed fast, the short schedule (``fastFailureDelays`` plus up to
    /// ``maximumReconnectJitter``) unless the policy's own delay is shorter; otherwise the policy's
    /// delay. A refused or reset connection costs nothing to try again, and the long schedule is
    /// meant for a service that answers with errors.
    package static func reconnectionDelay(
        policy: SubscribeReconnectionPolicy, attempt: Int, retryAfter: Duration?,
        connection: SubscribeStateMachine.ConnectionFailure?, unitRandom: Double
    ) -> Duration {
        if let retryAfter { return retryAfter }
        let policyDelay = policy.delay(beforeAttempt: attempt, unitRandom: unitRandom)
        guard connection == .failedFast, let last = fastFailureDelays.last else { return policyDelay }
        let step = attempt >= 0 && attempt < fastFailureDelays.count ? fastFailureDelays[attempt] : last
        return min(step + reconnectSoonJitter(policy: policy, unitRandom: unitRandom), policyDelay)
    }

    /// Sleeps `delay` on the configured clock; meanwhile, every `interval`, asks the origin for
    /// its time (an answer reaches the loop through ``OriginHealth`` and ends the wait). Returns
    /// `true` when the whole delay passed, `false` when the task was cancelled.
    private static func wait(_ delay: Duration, probingEvery interval: Duration?, pipeline: ServicePipeline) async
        -> Bool
    {
        let clock = pipeline.configuration.clock
        guard let interval else {
            do {
                try await clock.sleep(for: delay)
                return true
            } catch {
                return false
            }
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await clock.sleep(for: delay)
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                let custom = PubNub.RequestConfiguration(timeout: interval)
                while !Task.isCancelled {
                    do {
                        try await clock.sleep(for: interval)
                    } catch {
                        return false
                    }
                    // Any answer is reported by the pipeline; a failure only means "not yet".
                    if let request = try? pipeline.request(RealtimeCalls.probe, custom: custom) {
                        _ = try? await pipeline.exchange(request, chain: .direct, custom: custom)
                    }
                }
                return false
            }
            let passed = await group.next() ?? false
            group.cancelAll()
            return passed
        }
    }

    /// A handshake is answered at once, so it gets the short ``PubNubConfiguration/handshakeTimeout``;
    /// only a long-poll, which the service holds, needs ``PubNubConfiguration/subscribeTimeout``.
    package static func timeout(isHandshake: Bool, _ configuration: PubNubConfiguration) -> Duration {
        isHandshake ? configuration.handshakeTimeout : configuration.subscribeTimeout
    }

    /// The machine event for a subscribe answer.
    package static func event(
        for response: HTTPResponse, id: UInt64, filterExpression: String?
    ) -> SubscribeStateMachine.Event {
        if response.isSuccess {
            switch SubscribeResponseDecoder.decode(response.body) {
            case .decoded(let decoded):
                return .responseReceived(id: id, response: decoded)
            case .malformed(let salvaged, let reason):
                if let salvaged {
                    return .responseReceived(
                        id: id,
                        response: SubscribeResponse(
                            cursor: salvaged, envelopes: [], problems: [reason], isSalvaged: true))
                }
                return .requestFailed(
                    id: id,
                    failure: .init(
                        category: .malformedResponse, statusCode: response.status, isRetryable: true,
                        errorData: PubNubStatus.ErrorData(information: reason)))
            }
        }
        return .requestFailed(id: id, failure: failure(for: response, filterExpression: filterExpression))
    }

    /// How an error answer is classified (the table in Documentation/Realtime.md, "Status events").
    package static func failure(
        for response: HTTPResponse, filterExpression: String?
    ) -> SubscribeStateMachine.Failure {
        let body = try? JSONValue(parsing: response.body)
        let message = body?["message"]?.stringValue ?? body?["error"]?["message"]?.stringValue
        let information = message ?? "the service answered HTTP \(response.status)"
        let status = response.status
        switch status {
        case 403:
            let payload = body?["payload"]
            let channels = payload?["channels"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let groups =
                payload?["channel-groups"]?.arrayValue?.compactMap(\.stringValue).map { name in
                    name.hasPrefix(":") ? String(name.dropFirst()) : name
                } ?? []
            return .init(
                category: .accessDenied, statusCode: status, isRetryable: false,
                errorData: .init(channels: channels, channelGroups: groups, information: information))
        case 414:
            return .init(
                category: .requestURITooLong, statusCode: status, isRetryable: false,
                errorData: .init(information: information))
        case 481:
            return .init(
                category: .malformedFilterExpression, statusCode: status, isRetryable: false,
                errorData: .init(information: information))
        case 429, 500...599:
            let retryAfter = RetryMiddleware.retryAfter(response.headers["Retry-After"], now: Date())
            return .init(
                category: .networkIssues, statusCode: status, isRetryable: true, retryAfter: retryAfter,
                errorData: .init(information: information))
        case 400...499:
            // A filter the service cannot parse comes back as a client error; a key error says so.
            let aboutKey = message?.lowercased().contains("key") ?? false
            let category: PubNubStatus.Category =
                filterExpression != nil && !aboutKey ? .malformedFilterExpression : .badRequest
            return .init(
                category: category, statusCode: status, isRetryable: false,
                errorData: .init(information: information))
        default:
            return .init(
                category: .malformedResponse, statusCode: status, isRetryable: true,
                errorData: .init(information: information))
        }
    }

    /// How a failure to exchange is classified. The information names the reason only: transport
    /// messages may quote the URL, and the URL carries the token.
    package static func failure(for error: any Error) -> SubscribeStateMachine.Failure {
        let mapped = ServicePipeline.map(error)
        let information = "the request failed (\(mapped.reason))"
        switch mapped.reason {
        case .requestTimedOut:
            return .init(
                category: .timeout, isRetryable: true, errorData: .init(information: information),
                connection: .timedOut)
        case .connectionFailure:
            let code = (mapped.underlying as? TransportError)?.code
            let failedFast = code == .cannotConnect || code == .connectionLost
            return .init(
                category: code == .tls ? .tlsConnectionFailed : .networkIssues, isRetryable: true,
                errorData: .init(information: information), connection: failedFast ? .failedFast : .other)
        case .invalidConfiguration:
            return .init(category: .badRequest, isRetryable: false, errorData: .init(information: information))
        default:
            return .init(
                category: .networkIssues, isRetryable: true, errorData: .init(information: information),
                connection: .other)
        }
    }

    // MARK: Presence

    private func updateHeartbeats(channels: [String], groups: [String]) {
        let names = SubscriptionNames(
            channels: channels.filter { !ChannelName($0).isPresence },
            groups: groups.filter { !ChannelName($0).isPresence })
        guard names != heartbeatNames else { return }
        heartbeatNames = names
        let configuration = pipeline.configuration
        let interval = configuration.effectiveHeartbeatInterval
        guard interval > .zero, !names.channels.isEmpty || !names.groups.isEmpty else {
            replace(.heartbeat, with: nil)
            return
        }
        let pipeline = self.pipeline
        let hub = self.hub
        replace(
            .heartbeat,
            with: Task {
                while !Task.isCancelled {
                    let state =
                        configuration.maintainPresenceState ? hub.presenceState(for: names, consume: false) : [:]
                    let call = RealtimeCalls.heartbeat(
                        subscribeKey: configuration.subscribeKey, channels: names.channels, groups: names.groups,
                        presenceTimeout: configuration.effectivePresenceTimeout, state: state)
                    if let failure = await Self.presenceCall(call, pipeline: pipeline), !Task.isCancelled {
                        hub.deliver(Self.presenceStatus(failure, operation: .heartbeat, names.channels, names.groups))
                    }
                    do {
                        try await configuration.clock.sleep(for: interval)
                    } catch {
                        return
                    }
                }
            })
    }

    /// Sends a presence call; returns the failure, or `nil` on success or cancellation.
    private static func presenceCall(
        _ call: ServicePipeline.Call, pipeline: ServicePipeline
    ) async -> SubscribeStateMachine.Failure? {
        do {
            let custom = PubNub.RequestConfiguration()
            let response = try await pipeline.exchange(
                try pipeline.request(call, custom: custom), chain: .direct, custom: custom)
            if response.isSuccess { return nil }
            return failure(for: response, filterExpression: nil)
        } catch {
            if Task.isCancelled { return nil }
            return failure(for: error)
        }
    }

    private static func presenceStatus(
        _ failure: SubscribeStateMachine.Failure, operation: PubNubStatus.Operation, _ channels: [String],
        _ groups: [String]
    ) -> PubNubStatus {
        PubNubStatus(
            category: failure.category, operation: operation, isError: true, statusCode: failure.statusCode,
            subscribedChannels: channels, subscribedChannelGroups: groups, errorData: failure.errorData)
    }
}
