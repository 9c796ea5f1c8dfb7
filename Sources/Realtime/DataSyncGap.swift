import PubNubCore

/// A signal that DataSync events may have been missed, so a local copy built from events may be
/// stale: read the objects you keep again (`pubnub.dataSync.get…`) and carry on from the events.
///
/// ```swift
/// subscription.onDataSyncGap = { gap in
///     print("may have missed changes:", gap.reason)
///     Task { await cache.reload() }
/// }
/// ```
public struct PubNubDataSyncGap: Equatable, Sendable, CustomStringConvertible {
    /// Why events may be missing. An open set: compare with the static members.
    public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The reason's name.
        public let rawValue: String
        /// Wraps a name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The reason's name.
        public var description: String { rawValue }

        /// The first answer of a catch-up (a reconnection that resumed from its timetoken, or a
        /// subscribe from a given one) was full: the service queues a limited number of messages
        /// per subscriber (100 by default, or `requestMessageCountThreshold` when set) and keeps
        /// the newest, so older ones may have been dropped. ``PubNubDataSyncGap/status`` has the
        /// category `requestMessageCountExceeded`.
        public static let tooManyEvents = Reason(rawValue: "tooManyEvents")
        /// Part of an answer could not be read and was skipped (status `malformedResponse`).
        public static let unreadableEvents = Reason(rawValue: "unreadableEvents")
        /// After an interruption (a network failure, `disconnect()`, a denied token) the loop
        /// started again later than where it stopped: `restore` is off, or it was given a newer
        /// timetoken, so what was published in between is not delivered.
        public static let couldNotResume = Reason(rawValue: "couldNotResume")
    }

    /// Why events may be missing.
    public var reason: Reason
    /// The last timetoken received before the gap, when known: events after it may be missing.
    public var lastKnownTimetoken: Timetoken?
    /// Where the loop goes on from, when known.
    public var resumedAt: Timetoken?
    /// The status that revealed the gap.
    public var status: PubNubStatus

    /// Creates a gap signal.
    public init(reason: Reason, lastKnownTimetoken: Timetoken? = nil, resumedAt: Timetoken? = nil, status: PubNubStatus)
    {
        self.reason = reason
        self.lastKnownTimetoken = lastKnownTimetoken
        self.resumedAt = resumedAt
        self.status = status
    }

    /// The reason and the timetokens.
    public var description: String {
        var text = "PubNubDataSyncGap(\(reason)"
        if let lastKnownTimetoken { text += ", after \(lastKnownTimetoken)" }
        if let resumedAt { text += ", resumed at \(resumedAt)" }
        return text + ")"
    }
}

/// What a DataSync event stream with gaps carries: the events, and a ``PubNubDataSyncGap`` where
/// events may be missing, in the order they happened.
public enum PubNubDataSyncUpdate: Equatable, Sendable {
    /// A change.
    case event(PubNubDataSyncEvent)
    /// Events may be missing here: read your copies again.
    case gap(PubNubDataSyncGap)
}

/// Finds gaps in the subscribe loop's statuses (operation `subscribe` only).
///
/// - A possible loss (``observePossibleLoss(_:)``: the first answer of a catch-up was full): a gap
///   at once (``PubNubDataSyncGap/Reason/tooManyEvents``). The `requestMessageCountExceeded` status
///   an app's threshold raises is not one: a live burst or the next page of a catch-up loses nothing.
/// - `malformedResponse` while receiving and not retried (envelopes or a body skipped): a gap
///   (``PubNubDataSyncGap/Reason/unreadableEvents``); retried, the answer is fetched again from its
///   cursor and nothing is missed.
/// - Any other error status, or `disconnected` for the loop, interrupts; the next `connected` or
///   `reconnected` either resumed from the timetoken it had (no gap) or started later
///   (``PubNubDataSyncGap/Reason/couldNotResume``). Nothing was missed when nothing had been
///   received yet.
/// - `disconnected` with operation `unsubscribe` and nothing left subscribed forgets it all.
package struct DataSyncGapDetector: Sendable {
    private enum State: Sendable, Equatable {
        case idle
        case live
        case interrupted(cursor: Timetoken?)
    }

    private var state = State.idle

    package init() {}

    package mutating func observe(_ status: PubNubStatus) -> PubNubDataSyncGap? {
        if status.operation == .unsubscribe {
            if status.subscribedChannels.isEmpty, status.subscribedChannelGroups.isEmpty { state = .idle }
            return nil
        }
        guard status.operation == .subscribe else { return nil }
        switch status.category {
        case .connected, .reconnected:
            let previous = state
            state = .live
            guard case .interrupted(let cursor?) = previous else { return nil }
            if let resumed = status.currentTimetoken, resumed <= cursor { return nil }
            return PubNubDataSyncGap(
                reason: .couldNotResume, lastKnownTimetoken: cursor, resumedAt: status.currentTimetoken,
                status: status)
        case .requestMessageCountExceeded:
            return nil
        case .malformedResponse where state == .live:
            // While receiving, a retried one is an answer fetched again from its cursor: nothing
            // skipped, and the loop never stopped. (A failed long-poll reports unexpectedDisconnect.)
            guard !status.willAutomaticallyRetry else { return nil }
            return PubNubDataSyncGap(
                reason: .unreadableEvents, lastKnownTimetoken: status.lastTimetoken,
                resumedAt: status.currentTimetoken, status: status)
        default:
            guard status.isError || status.category == .disconnected else { return nil }
            switch state {
            case .live: state = .interrupted(cursor: status.currentTimetoken)
            case .idle: state = .interrupted(cursor: nil)
            case .interrupted: break
            }
            return nil
        }
    }

    /// A catch-up whose first answer was full (``SubscribeStateMachine/Effect/possibleLoss(_:)``):
    /// events before it may be missing.
    package mutating func observePossibleLoss(_ status: PubNubStatus) -> PubNubDataSyncGap? {
        guard status.operation == .subscribe else { return nil }
        state = .live
        return PubNubDataSyncGap(
            reason: .tooManyEvents, lastKnownTimetoken: status.lastTimetoken, resumedAt: status.currentTimetoken,
            status: status)
    }
}
