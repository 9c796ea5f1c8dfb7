import DataSync
import Foundation
import Realtime

/// What the watching client has seen so far: DataSync events for Alice, whether it is connected,
/// and why it stopped if it did. Fed in order by the tasks reading the client's streams.
actor WatchMailbox {
    private var events: [PubNubDataSyncEvent] = []
    private var connected = false
    private(set) var stopReason: String?
    private var waiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
    private var nextWaiterId = 0

    func put(_ event: PubNubDataSyncEvent) {
        events.append(event)
        wake()
    }

    func markConnected() {
        connected = true
        wake()
    }

    func stop(_ reason: String) {
        if stopReason == nil { stopReason = reason }
        wake()
    }

    /// The next event, or nil when none came within `limit` on `clock` (or the watch stopped).
    func nextEvent(within limit: Duration, clock: any Clock<Duration>) async -> PubNubDataSyncEvent? {
        await wait(within: limit, clock: clock) { !$0.events.isEmpty }
        return events.isEmpty ? nil : events.removeFirst()
    }

    /// Whether the subscription connected within `limit`.
    func waitConnected(within limit: Duration, clock: any Clock<Duration>) async -> Bool {
        await wait(within: limit, clock: clock) { $0.connected }
        return connected
    }

    private func wait(
        within limit: Duration, clock: any Clock<Duration>, until ready: (isolated WatchMailbox) -> Bool
    ) async {
        guard !ready(self), stopReason == nil else { return }
        nextWaiterId += 1
        let id = nextWaiterId
        let timer = Task { [weak self] in
            try? await clock.sleep(for: limit)
            await self?.timeOut(id)
        }
        await withCheckedContinuation { continuation in waiter = (id, continuation) }
        timer.cancel()
    }

    private func wake() {
        waiter?.continuation.resume()
        waiter = nil
    }

    private func timeOut(_ id: Int) {
        guard waiter?.id == id else { return }
        wake()
    }
}

/// A second client that watches one user's DataSync channel and prints each change it receives.
final class AliceWatcher: Sendable {
    let pubnub: PubNub
    let userId: String
    let subscription: Subscription
    let mailbox = WatchMailbox()
    /// How long to wait for each event, on the client's clock.
    let limit: Duration
    /// With the in-process emulator every event must arrive; a real keyset may have events off.
    let eventsRequired: Bool
    private let readers: [Task<Void, Never>]

    init(pubnub: PubNub, userId: String, limit: Duration, eventsRequired: Bool) {
        self.pubnub = pubnub
        self.userId = userId
        self.limit = limit
        self.eventsRequired = eventsRequired
        subscription = pubnub.dataSyncEntity(userId).subscription()
        let (mailbox, subscription) = (mailbox, subscription)
        let statuses = pubnub.statuses()
        let events = subscription.dataSyncEvents()
        readers = [
            Task {
                for await event in events { await mailbox.put(event) }
            },
            Task {
                for await status in statuses where status.operation == .subscribe {
                    switch status.category {
                    case .connected, .reconnected:
                        if status.subscribedChannels.contains(userId) { await mailbox.markConnected() }
                    case .badRequest, .accessDenied, .malformedFilterExpression, .requestURITooLong:
                        await mailbox.stop("the subscribe call was refused (\(status.category))")
                    default:
                        break
                    }
                }
            },
        ]
    }

    /// Subscribes and waits (bounded) until the subscription is live.
    func start() async throws {
        subscription.subscribe()
        if await mailbox.waitConnected(within: limit, clock: pubnub.configuration.clock) {
            detail("watcher: subscribed to \(userId)'s DataSync channel")
            return
        }
        let reason = await mailbox.stopReason ?? "not connected within \(limit)"
        try await give(
            up: "could not subscribe: \(reason)",
            advice: "check that the subscribe key is a pub/sub keyset and the token grants read on the channel")
    }

    /// Waits for the changes `expected` (in order) and prints each as it arrives.
    func expect(_ expected: [PubNubDataSyncChange]) async throws {
        for change in expected {
            guard await mailbox.stopReason == nil else { return }
            guard let event = await mailbox.nextEvent(within: limit, clock: pubnub.configuration.clock) else {
                try await give(
                    up: "no \(change) event within \(limit) of the client's clock",
                    advice:
                        "events are off by default on the service: enable them for the User and Membership classes "
                        + "of this keyset to see them here")
                return
            }
            detail("watcher saw: \(describe(event))")
            guard event.change == change else {
                throw QuickstartFailure("the watcher expected \(change), got \(describe(event))")
            }
        }
    }

    func stop() {
        subscription.unsubscribe()
        for reader in readers { reader.cancel() }
    }

    /// With the emulator a missing event is a failure; against a real service it ends the watch
    /// with an explanation (events are off by default and enabled per class).
    private func give(up reason: String, advice: String) async throws {
        guard !eventsRequired else { throw QuickstartFailure("real-time step: \(reason)") }
        await mailbox.stop(reason)
        detail("watcher: \(reason); the rest of the story runs without it (\(advice)).")
    }

    private func describe(_ event: PubNubDataSyncEvent) -> String {
        var text = "\(event.change) \(event.kind) \(event.objectId ?? "?") on \(event.channel)"
        switch event.kind {
        case .user:
            if case .user(let user)? = event.entity?.object {
                let title = user.payload?["title"]?.stringValue ?? "-"
                text += " (status \(user.status ?? "nil"), title \(title))"
            }
        case .membership:
            if case .membership(let membership)? = event.relationship?.object {
                text += " (channel \(membership.channelId), user \(membership.userId))"
            } else if case .known(let channel, let user)? = event.removed?.endpoints {
                text += " (channel \(channel), user \(user), sides learned from its create event)"
            }
        default:
            break
        }
        return text
    }
}
