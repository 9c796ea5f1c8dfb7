public import JSONCore
public import PubNubCore

extension PubNub {
    /// Subscribes to channels and channel groups, adding them to what is subscribed already.
    ///
    /// The loop handshakes, then long-polls; events reach the listeners (`addListener(_:)`,
    /// `onMessage`…, the streams) and a `connected` status reports the subscription. Changing the
    /// set while receiving keeps the cursor, so nothing published in between is missed.
    ///
    /// - Parameters:
    ///   - channels: channel names; a wildcard pattern (`a.*`) subscribes to every channel under it.
    ///   - channelGroups: channel group names.
    ///   - timetoken: start from this timetoken, catching up on what was published after it.
    ///   - withPresence: also subscribe to each name's `-pnpres` presence channel.
    ///   - clientState: presence state per channel or group name, sent with the handshake and (when
    ///     `maintainPresenceState` is on) with every heartbeat. Values that cannot be encoded as JSON are left out.
    ///
    /// ```swift
    /// pubnub.addListener(listener)
    /// pubnub.subscribe(to: ["room-1", "news.*"], withPresence: true)
    /// ```
    public func subscribe(
        to channels: [String], and channelGroups: [String] = [], at timetoken: Timetoken? = nil,
        withPresence: Bool = false, clientState: [String: any JSONCodable]? = nil
    ) {
        let state = clientState.map { state in
            state.compactMapValues { try? $0.jsonValue() }
        }
        realtime.hub.changeClientNames(
            adding: Self.names(channels, channelGroups, presence: withPresence), timetoken: timetoken, state: state)
    }

    /// Subscribes to the presence channels of `channels` only (`<name>-pnpres`).
    public func subscribeToPresence(channels: [String]) {
        realtime.hub.changeClientNames(
            adding: SubscriptionNames(channels: channels.map { ChannelName($0).presence.rawValue }))
    }

    /// Unsubscribes from channels and channel groups subscribed with ``subscribe(to:and:at:withPresence:clientState:)``.
    ///
    /// A `leave` is sent for them (unless `suppressLeaveEvents`) and a `disconnected` status with
    /// operation `unsubscribe` reports it. Names a ``Subscription`` still holds stay subscribed.
    public func unsubscribe(from channels: [String], and channelGroups: [String] = [], withPresence: Bool = false) {
        realtime.hub.changeClientNames(removing: Self.names(channels, channelGroups, presence: withPresence))
    }

    /// Stops receiving presence events of `channels`, keeping their messages.
    public func unsubscribeFromPresence(channels: [String]) {
        realtime.hub.changeClientNames(
            removing: SubscriptionNames(channels: channels.map { ChannelName($0).presence.rawValue }))
    }

    /// Unsubscribes from everything, subscriptions included (their streams end), and forgets the
    /// cursor: a later subscribe starts from now.
    public func unsubscribeAll() {
        realtime.hub.unsubscribeAll()
    }

    /// Stops the subscribe loop and heartbeats, keeping the channels and the cursor; reports
    /// `disconnected`. ``reconnect(at:)`` (or a subscription change) starts it again.
    public func disconnect() {
        realtime.hub.send(.disconnect)
    }

    /// Starts a stopped or failed loop again, catching up from `timetoken` or (with `restore`)
    /// from the last timetoken received.
    public func reconnect(at timetoken: Timetoken? = nil) {
        realtime.hub.send(.reconnect(timetoken: timetoken))
    }

    /// Every channel subscribed now, by any API, presence channels included, sorted.
    public var subscribedChannels: [String] { realtime.hub.names.channels }

    /// Every channel group subscribed now, by any API, sorted.
    public var subscribedChannelGroups: [String] { realtime.hub.names.groups }

    /// Adds a listener for every event and status of this client; it is held until removed.
    public func addListener(_ listener: any PubNubEventsListener) {
        realtime.hub.clientStore.add(listener: listener)
    }

    /// Removes a listener added with ``addListener(_:)``.
    public func removeListener(_ listener: any PubNubEventsListener) {
        realtime.hub.clientStore.remove(listener: listener)
    }

    /// Called with every status of the subscribe loop and presence calls.
    public var onStatus: (@Sendable (PubNubStatus) -> Void)? {
        get { realtime.hub.clientStore.closures().onStatus }
        set { realtime.hub.clientStore.update { $0.onStatus = newValue } }
    }

    /// The statuses, as a stream.
    ///
    /// The default buffering keeps the newest 100: statuses describe the loop's state, so when a
    /// reader falls behind the latest ones matter most, and a flapping network must not grow memory
    /// without bound.
    public func statuses(
        bufferingPolicy: AsyncStream<PubNubStatus>.Continuation.BufferingPolicy = .bufferingNewest(100)
    ) -> AsyncStream<PubNubStatus> {
        realtime.hub.clientStore.stream(bufferingPolicy: bufferingPolicy, extract: { _ in nil }, status: { $0 })
    }

    private static func names(_ channels: [String], _ groups: [String], presence: Bool) -> SubscriptionNames {
        func expand(_ names: [String]) -> [String] {
            presence ? names.flatMap { [$0, ChannelName($0).presence.rawValue] } : names
        }
        return SubscriptionNames(channels: expand(channels), groups: expand(groups))
    }
}

extension PubNub: EventListenerHolding {}
