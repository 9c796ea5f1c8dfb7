import JSONCore

extension PubNubEvent {
    /// The event an envelope carries, by `e` and the `-pnpres` suffix of `c`.
    ///
    /// An envelope whose type is unknown, or whose payload lacks what its type needs, becomes
    /// ``unknown(_:)`` with the payload untouched, so nothing is dropped.
    package init(envelope: SubscribeEnvelope) {
        let subscription = envelope.subscriptionMatch.flatMap { $0 == envelope.channel ? nil : $0 }
        let timetoken = envelope.published.timetoken
        let raw = PubNubRawEvent(
            type: envelope.type, channel: envelope.channel, subscription: subscription,
            publisher: envelope.publisher, timetoken: timetoken, payload: envelope.payload,
            metadata: envelope.metadata, customMessageType: envelope.customMessageType)
        let payload = envelope.payload
        let channelName = ChannelName(envelope.channel)
        if channelName.isPresence, envelope.type == nil || envelope.type == 0 {
            guard let action = payload["action"]?.stringValue else {
                self = .unknown(raw)
                return
            }
            let state =
                payload["data"].flatMap { value -> JSONValue? in value.isNull ? nil : value } ?? payload["state"]
            self = .presence(
                PubNubPresenceEvent(
                    event: PubNubPresenceAction(rawValue: action), channel: channelName.base.rawValue,
                    subscription: subscription, uuid: payload["uuid"]?.stringValue,
                    occupancy: payload["occupancy"]?.intValue, timetoken: timetoken,
                    timestamp: payload["timestamp"]?.intValue, state: state,
                    join: Self.strings(payload["join"] ?? payload["joined"]),
                    leave: Self.strings(payload["leave"] ?? payload["left"]),
                    timeout: Self.strings(payload["timeout"] ?? payload["timedout"]),
                    hereNowRefresh: payload["here_now_refresh"]?.boolValue ?? false))
            return
        }
        let message = PubNubMessage(
            payload: payload, channel: envelope.channel, subscription: subscription, publisher: envelope.publisher,
            timetoken: timetoken, metadata: envelope.metadata, customMessageType: envelope.customMessageType)
        switch envelope.type {
        case .none, .some(0):
            self = .message(message)
        case .some(1):
            self = .signal(message)
        case .some(2):
            guard let event = payload["event"]?.stringValue, let type = payload["type"]?.stringValue,
                let data = payload["data"]
            else {
                self = .unknown(raw)
                return
            }
            self = .appContext(
                PubNubAppContextEvent(
                    event: event, type: type, channel: envelope.channel, subscription: subscription, data: data,
                    timetoken: timetoken))
        case .some(3):
            guard let event = payload["event"]?.stringValue, let data = payload["data"],
                let type = data["type"]?.stringValue, let value = data["value"]?.stringValue,
                let messageTimetoken = data["messageTimetoken"].flatMap(SubscribeResponseDecoder.timetoken),
                let actionTimetoken = data["actionTimetoken"].flatMap(SubscribeResponseDecoder.timetoken)
            else {
                self = .unknown(raw)
                return
            }
            self = .messageAction(
                PubNubMessageActionEvent(
                    event: event, channel: envelope.channel, subscription: subscription, type: type, value: value,
                    messageTimetoken: messageTimetoken, actionTimetoken: actionTimetoken,
                    uuid: envelope.publisher, timetoken: timetoken))
        case .some(4):
            guard let file = payload["file"], let id = file["id"]?.stringValue, let name = file["name"]?.stringValue
            else {
                self = .unknown(raw)
                return
            }
            self = .file(
                PubNubFileEvent(
                    channel: envelope.channel, subscription: subscription, publisher: envelope.publisher,
                    message: payload["message"].flatMap { value -> JSONValue? in value.isNull ? nil : value },
                    fileId: id, fileName: name,
                    size: file["size"]?.intValue, mimeType: file["mime-type"]?.stringValue, timetoken: timetoken,
                    metadata: envelope.metadata, customMessageType: envelope.customMessageType))
        case .some(5):
            // Only service-made changes are DataSync events; anything else typed 5 is a message.
            if let change = PubNubDataSyncEvent(envelope: envelope) {
                self = .dataSync(change)
            } else {
                self = .message(message)
            }
        case .some:
            self = .unknown(raw)
        }
    }

    private static func strings(_ value: JSONValue?) -> [String] {
        value?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
