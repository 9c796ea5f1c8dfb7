import EmulatorHTTP
import JSONCore

/// PubNub's publish/subscribe API: `/time/0`, publish (GET and POST), signal, fire, subscribe v2
/// long-polls and channel groups. State lives on the ``PubSubBus`` actor; a held long-poll is
/// parked (``ParkedSubscribe``) in the bus's ``WaiterRegistry`` with no task of its own, and is
/// forgotten as soon as its client goes away (the server cancels its pending answer).
struct PubSubService: EmulatorService {
    let bus: PubSubBus
    let faults: FaultPlan

    /// The largest message: 32 KiB, counted with the channel name.
    static let messageLimit = 32 * 1024
    /// The largest signal payload.
    static let signalLimit = 64

    func claims(_ request: ServerRequest) -> Bool { route(of: request.rawPath) != nil }

    private func route(of path: String) -> PubSubRoute? {
        if path == "/time/0" { return .time }
        if path.hasPrefix("/publish/") { return .publish }
        if path.hasPrefix("/signal/") { return .signal }
        if path.hasPrefix("/v2/subscribe/") { return .subscribe }
        if path.hasPrefix("/v1/channel-registration/") { return .channelGroups }
        return nil
    }

    func respond(to request: ServerRequest) async -> ServerResponse {
        await reply(to: request).response
    }

    /// A receive that finds nothing to send parks (``ParkedSubscribe``): its task ends and the
    /// answer comes from the publish, or the deadline, that completes it.
    func reply(to request: ServerRequest) async -> ServerReply {
        guard let route = route(of: request.rawPath) else {
            return .response(PubSubWire.serviceError(404, "Not Found", service: "Balancer"))
        }
        if let tooLong = PubSubWire.uriTooLong(request) { return .response(tooLong) }
        if let fault = faults.take(route) {
            return await FaultPlan.apply(fault, clock: bus.clock) { await answer(request, route: route) }
        }
        return await answer(request, route: route)
    }

    /// Nothing to narrow in pub/sub answers: as ``reply(to:)``.
    func reply(to request: ServerRequest, scope: ListScope) async -> ServerReply {
        await reply(to: request)
    }

    private func answer(_ request: ServerRequest, route: PubSubRoute) async -> ServerReply {
        switch route {
        case .time: return .response(PubSubWire.bytes(200, Array("[\(await bus.timetoken(""))]".utf8)))
        case .publish, .signal: return .response(await publish(request, signal: route == .signal))
        case .subscribe: return await subscribe(request)
        default: return .response(await channelGroups(request))
        }
    }

    // MARK: Publish, signal, fire

    private func publish(_ request: ServerRequest, signal: Bool) async -> ServerResponse {
        // /publish/{pub}/{sub}/0/{channel}/0[/{message}]
        let raw = PubSubWire.rawSegments(request.rawPath)
        let isPost = request.method == "POST"
        guard isPost ? (raw.count == 6 || (raw.count == 7 && raw[6].isEmpty)) : raw.count >= 7,
            request.method == "GET" || isPost,
            let publishKey = PercentDecoding.decode(raw[1]), let subscribeKey = PercentDecoding.decode(raw[2]),
            let channel = PercentDecoding.decode(raw[4])
        else {
            return PubSubWire.publishReply(
                400, sent: false, text: "Invalid Arguments", timetoken: await bus.timetoken(""))
        }
        guard bus.accepts(publishKey: publishKey, subscribeKey: subscribeKey) else {
            return PubSubWire.publishReply(400, sent: false, text: "Invalid Key", timetoken: await bus.timetoken(""))
        }
        let now = { await bus.timetoken(subscribeKey) }
        guard !channel.isEmpty, !PubSubNames.isWildcard(channel), !channel.contains(",") else {
            return PubSubWire.publishReply(400, sent: false, text: "Invalid Channel", timetoken: await now())
        }
        let messageBytes: [UInt8]
        let countedSize: Int
        if isPost {
            guard let body = PubSubWire.inflateBody(request.body, limit: 4 * Self.messageLimit) else {
                return PubSubWire.publishReply(400, sent: false, text: "Invalid JSON", timetoken: await now())
            }
            messageBytes = body
            countedSize = body.count + raw[4].utf8.count
        } else {
            // A message whose `/` was not escaped arrives split over several segments.
            let rawMessage = raw[6...].joined(separator: "/")
            guard let text = PercentDecoding.decode(Substring(rawMessage)) else {
                return PubSubWire.publishReply(400, sent: false, text: "Invalid JSON", timetoken: await now())
            }
            messageBytes = Array(text.utf8)
            countedSize = rawMessage.utf8.count + raw[4].utf8.count
        }
        if signal, messageBytes.count > Self.signalLimit {
            return PubSubWire.publishReply(400, sent: false, text: "Signal size too large", timetoken: await now())
        }
        if countedSize > Self.messageLimit {
            return PubSubWire.publishReply(400, sent: false, text: "Message Too Large", timetoken: await now())
        }
        guard let message = try? JSONValue(parsing: messageBytes) else {
            return PubSubWire.publishReply(400, sent: false, text: "Invalid JSON", timetoken: await now())
        }
        let query = PubSubWire.query(request.rawQuery)
        var meta: JSONValue?
        if let text = query["meta"], !text.isEmpty {
            guard let parsed = try? JSONValue(parsing: text) else {
                return PubSubWire.publishReply(400, sent: false, text: "Invalid JSON", timetoken: await now())
            }
            meta = parsed
        }
        let customType = query["custom_message_type"]
        if let customType, !Self.isValidCustomMessageType(customType) {
            return PubSubWire.publishReply(
                400, sent: false, text: "Invalid Custom Message Type", timetoken: await now())
        }
        let fire = !signal && query["store"] == "0" && query.flag("norep")
        let override = query["ptto"].flatMap(UInt64.init)
        let (timetoken, saved) = await bus.publish(
            subscribeKey: subscribeKey, channel: channel, payload: message, eventType: signal ? 1 : nil,
            publisher: query["uuid"], meta: meta, customMessageType: customType,
            sequence: query["seqn"].flatMap(Int64.init), timetokenOverride: override, deliver: !fire,
            requireSaved: true)
        guard saved else {
            // Acknowledging it would promise a restart keeps it; the state file could not take it.
            return PubSubWire.publishReply(500, sent: false, text: "Internal Server Error", timetoken: timetoken)
        }
        // Message Persistence: every publish is stored unless `store=0`; signals never are.
        if !signal, query["store"] != "0" {
            // Clamped to about a century of hours, so `hours * 3600` cannot overflow; 0 keeps it forever.
            let hours = PubSubWire.clampedInteger(query["ttl"], in: 0...1_000_000).map(Int64.init) ?? 0
            let expires = hours > 0 ? bus.clock.now.advanced(by: .seconds(hours * 3600)).nanosecondsSince1970 : nil
            let stored = StoredMessage(
                timetoken: timetoken, payload: message, publisher: query["uuid"], meta: meta,
                customMessageType: customType, expires: expires)
            guard await bus.storeMessage(stored, subscribeKey: subscribeKey, channel: channel) else {
                return PubSubWire.publishReply(500, sent: false, text: "Internal Server Error", timetoken: timetoken)
            }
        }
        return PubSubWire.publishReply(200, sent: true, text: "Sent", timetoken: timetoken)
    }

    /// 3 to 50 of `A-Za-z0-9_-`, not starting with `-`, `_`, `pn-` or `pn_`.
    static func isValidCustomMessageType(_ value: String) -> Bool {
        let allowed = value.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        let lower = value.lowercased()
        return (3...50).contains(value.utf8.count) && allowed && !value.hasPrefix("-") && !value.hasPrefix("_")
            && !lower.hasPrefix("pn-") && !lower.hasPrefix("pn_")
    }

    // MARK: Subscribe

    private func subscribe(_ request: ServerRequest) async -> ServerReply {
        // /v2/subscribe/{sub}/{channels}/0
        let raw = PubSubWire.rawSegments(request.rawPath)
        guard raw.count >= 4, let subscribeKey = PercentDecoding.decode(raw[2]) else {
            return .response(PubSubWire.serviceError(400, "Invalid Arguments", service: "Balancer"))
        }
        guard bus.knows(subscribeKey: subscribeKey) else { return .response(PubSubWire.invalidSubscribeKey()) }
        let query = PubSubWire.query(request.rawQuery)
        let subscription = Subscription(channels: PubSubWire.names(raw[3]), groups: query.list("channel-group"))
        guard !subscription.channels.isEmpty || !subscription.groups.isEmpty else {
            return .response(PubSubWire.serviceError(400, "Invalid Arguments", service: "Balancer"))
        }
        var filter: StreamFilter?
        if let expression = query["filter-expr"], !expression.isEmpty {
            do {
                filter = try StreamFilter(parsing: expression)
            } catch {
                return .response(
                    PubSubWire.serviceError(
                        481, "Invalid filter expression: \(error.message) at \(error.offset)", service: "Subscribe"))
            }
        }
        var state: JSONValue?
        if let text = query["state"], !text.isEmpty {
            guard let parsed = try? JSONValue(parsing: text), parsed.objectValue != nil else {
                return .response(PubSubWire.serviceError(400, "Invalid Arguments", service: "Presence"))
            }
            state = parsed
        }
        let uuid = query["uuid"].flatMap { $0.isEmpty ? nil : $0 }
        let timeout = PubSubBus.heartbeat(query["heartbeat"])
        let cursor = query["tt"].flatMap(UInt64.init) ?? 0
        guard cursor != 0 else {
            if let uuid,
                let refusal = await bus.touch(
                    subscribeKey: subscribeKey, uuid: uuid, channels: subscription.presenceTargets,
                    groups: subscription.presenceGroups, timeout: timeout, state: state)
            {
                return .response(PubSubWire.serviceError(400, refusal.message, service: "Presence"))
            }
            let next = await bus.emptyCursor(subscribeKey: subscribeKey, after: 0)
            return .response(ParkedSubscribe.cursorReply(next, events: [], bus: bus))
        }
        // No await from here on: the presence, the look and the parking happen in a turn on the
        // bus shared with every receive queued meanwhile, and this task ends now.
        let held = ParkedSubscribe(
            bus: bus, subscribeKey: subscribeKey, subscription: subscription, filter: filter, cursor: cursor,
            deadline: bus.clock.now.advanced(by: bus.configuration.longPollTimeout))
        let reply = held.parkedReply()
        bus.lookSoon(FirstLooks.Look(held: held, uuid: uuid, timeout: timeout, state: state))
        return reply
    }

    // MARK: Channel groups

    private static let registry = "channel-registry"

    private func channelGroups(_ request: ServerRequest) async -> ServerResponse {
        // /v1/channel-registration/sub-key/{sub}/channel-group[/{group}[/remove]]
        guard let segments = PubSubWire.segments(request.rawPath), segments.count >= 5,
            segments[2] == "sub-key" || segments[2] == "sub_key", segments[4] == "channel-group"
        else {
            return PubSubWire.serviceError(400, "Invalid Arguments", service: Self.registry)
        }
        let subscribeKey = segments[3]
        guard bus.knows(subscribeKey: subscribeKey) else { return PubSubWire.invalidSubscribeKey() }
        let ok: JSONValue = ["status": 200, "message": "OK", "service": .string(Self.registry), "error": false]
        if segments.count == 5 {
            let groups = await bus.groupNames(subscribeKey)
            return PubSubWire.json(
                200,
                [
                    "status": 200, "payload": ["namespace": "", "groups": .array(groups.map(JSONValue.string))],
                    "service": .string(Self.registry), "error": false,
                ])
        }
        let group = segments[5]
        guard Self.isValidName(group) else {
            return PubSubWire.serviceError(400, "Reserved character in input parameters.", service: Self.registry)
        }
        if segments.count == 7, segments[6] == "remove" {
            await bus.deleteGroup(group, subscribeKey: subscribeKey)
            return PubSubWire.json(200, ok)
        }
        guard segments.count == 6 else {
            return PubSubWire.serviceError(400, "Invalid Arguments", service: Self.registry)
        }
        let query = PubSubWire.query(request.rawQuery)
        if query.has("add") {
            let channels = query.list("add")
            guard !channels.isEmpty, channels.allSatisfy({ Self.isValidName($0, channel: true) }) else {
                return PubSubWire.serviceError(400, "Reserved character in input parameters.", service: Self.registry)
            }
            if await bus.addChannels(channels, to: group, subscribeKey: subscribeKey) != nil {
                return PubSubWire.serviceError(400, "Maximum channel group count exceeded.", service: Self.registry)
            }
            return PubSubWire.json(200, ok)
        }
        if query.has("remove") {
            await bus.removeChannels(query.list("remove"), from: group, subscribeKey: subscribeKey)
            return PubSubWire.json(200, ok)
        }
        let channels = await bus.groupChannels(subscribeKey, group: group)
        return PubSubWire.json(
            200,
            [
                "status": 200,
                "payload": ["channels": .array(channels.map(JSONValue.string)), "group": .string(group)],
                "service": .string(Self.registry), "error": false,
            ])
    }

    /// Group names may not hold `,` `:` `*` `/` `\` or whitespace; channel names in a group may
    /// not hold `,`, `*` or whitespace, nor end in `-pnpres`.
    static func isValidName(_ name: String, channel: Bool = false) -> Bool {
        let reserved: Set<Character> = channel ? [",", "*"] : [",", ":", "*", "/", "\\"]
        return !name.isEmpty && name.count <= 92 && !name.contains { reserved.contains($0) || $0.isWhitespace }
            && !(channel && name.hasSuffix(PubSubNames.presenceSuffix))
    }
}
