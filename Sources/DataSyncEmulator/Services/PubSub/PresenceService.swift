import EmulatorHTTP
import JSONCore

/// PubNub's presence REST API under `/v2/presence/sub-key/{sub}/…`: heartbeat, leave, set and
/// get state, here now (one channel, several, global) and where now. It shares the
/// ``PubSubBus`` actor with ``PubSubService`` because joins come from subscribes and every
/// presence event goes into the same log subscribers read.
struct PresenceService: EmulatorService {
    let bus: PubSubBus
    let faults: FaultPlan

    private static let service = "Presence"
    /// The most uuids a here-now lists per channel (`limit`), the service's maximum and default.
    static let hereNowLimit = 1000

    func claims(_ request: ServerRequest) -> Bool { request.rawPath.hasPrefix("/v2/presence/") }

    func respond(to request: ServerRequest) async -> ServerResponse {
        if let tooLong = PubSubWire.uriTooLong(request) { return tooLong }
        if let fault = faults.take(.presence) {
            return await FaultPlan.apply(fault, clock: bus.clock) { .response(await answer(request)) }.response
        }
        return await answer(request)
    }

    private func ok(_ extra: JSONObject = [:]) -> ServerResponse {
        var body: JSONObject = ["status": 200, "message": "OK", "service": .string(Self.service)]
        body.merge(extra) { $1 }
        return PubSubWire.json(200, .object(body))
    }

    private func answer(_ request: ServerRequest) async -> ServerResponse {
        let raw = PubSubWire.rawSegments(request.rawPath)
        // v2 presence sub-key {sub} [channel {chs} [heartbeat|leave|uuid {uuid} [data]] | uuid {uuid}]
        guard raw.count >= 4, raw[2] == "sub-key" || raw[2] == "sub_key",
            let subscribeKey = PercentDecoding.decode(raw[3])
        else {
            return PubSubWire.serviceError(400, "Invalid Arguments", service: Self.service)
        }
        guard bus.knows(subscribeKey: subscribeKey) else { return PubSubWire.invalidSubscribeKey() }
        let query = PubSubWire.query(request.rawQuery)
        let groups = query.list("channel-group").filter { PubSubNames.presenceBase($0) == nil }
        if raw.count == 4 {
            return await hereNow(subscribeKey, channels: nil, groups: [], query: query)
        }
        if raw.count == 6, raw[4] == "uuid", let uuid = PercentDecoding.decode(raw[5]) {
            let channels = await bus.whereNow(subscribeKey, uuid: uuid)
            return ok(["payload": ["channels": .array(channels.map(JSONValue.string))]])
        }
        guard raw.count >= 6, raw[4] == "channel" else {
            return PubSubWire.serviceError(400, "Invalid Arguments", service: Self.service)
        }
        let channels = PubSubWire.names(raw[5])
        let uuid = query["uuid"] ?? ""
        switch (raw.count, raw.count > 6 ? raw[6] : "") {
        case (6, _):
            return await hereNow(subscribeKey, channels: channels, groups: groups, query: query)
        case (7, "heartbeat"):
            var state: JSONValue?
            if let text = query["state"], !text.isEmpty {
                guard let parsed = try? JSONValue(parsing: text), parsed.objectValue != nil else {
                    return PubSubWire.serviceError(400, "Invalid Arguments", service: Self.service)
                }
                state = parsed
            }
            guard !uuid.isEmpty else { return PubSubWire.serviceError(400, "Invalid Arguments", service: Self.service) }
            if let refusal = await bus.touch(
                subscribeKey: subscribeKey, uuid: uuid, channels: channels, groups: groups,
                timeout: PubSubBus.heartbeat(query["heartbeat"]), state: state)
            {
                return PubSubWire.serviceError(400, refusal.message, service: Self.service)
            }
            return ok()
        case (7, "leave"):
            if !uuid.isEmpty {
                await bus.leave(subscribeKey: subscribeKey, uuid: uuid, channels: channels, groups: groups)
            }
            return ok(["action": "leave"])
        case (8, "uuid"), (9, "uuid"):
            guard let target = PercentDecoding.decode(raw[7]) else {
                return PubSubWire.serviceError(400, "Invalid Arguments", service: Self.service)
            }
            if raw.count == 9 {
                guard raw[8] == "data" else {
                    return PubSubWire.serviceError(400, "Invalid Arguments", service: Self.service)
                }
                return await setState(subscribeKey, uuid: target, channels: channels, groups: groups, query: query)
            }
            return await getState(subscribeKey, uuid: target, channels: channels, groups: groups)
        default:
            return PubSubWire.serviceError(400, "Invalid Arguments", service: Self.service)
        }
    }

    private func setState(
        _ subscribeKey: String, uuid: String, channels: [String], groups: [String], query: PubSubWire.Query
    ) async -> ServerResponse {
        guard let text = query["state"], !text.isEmpty else {
            return PubSubWire.json(
                400, ["status": 400, "error": 1, "message": "No state specified.", "service": .string(Self.service)])
        }
        guard let state = try? JSONValue(parsing: text), state.objectValue != nil else {
            return PubSubWire.serviceError(400, "Invalid Arguments", service: Self.service)
        }
        let targets = await bus.presenceChannels(subscribeKey, channels: channels, groups: groups)
        for channel in targets { await bus.setState(subscribeKey, uuid: uuid, channel: channel, state: state) }
        return ok(["payload": state])
    }

    private func getState(_ subscribeKey: String, uuid: String, channels: [String], groups: [String]) async
        -> ServerResponse
    {
        let targets = await bus.presenceChannels(subscribeKey, channels: channels, groups: groups)
        if targets.count == 1, groups.isEmpty {
            let state = await bus.state(subscribeKey, uuid: uuid, channel: targets[0]) ?? [:]
            return ok(["payload": state, "uuid": .string(uuid), "channel": .string(targets[0])])
        }
        var states: [String: JSONValue] = [:]
        for channel in targets { states[channel] = await bus.state(subscribeKey, uuid: uuid, channel: channel) ?? [:] }
        return ok(["payload": ["channels": .object(states)], "uuid": .string(uuid)])
    }

    private func hereNow(_ subscribeKey: String, channels: [String]?, groups: [String], query: PubSubWire.Query) async
        -> ServerResponse
    {
        let showUUIDs = !query.flag("disable_uuids")
        let showState = query.flag("state")
        let limit = PubSubWire.clampedInteger(query["limit"], in: 0...Self.hereNowLimit) ?? Self.hereNowLimit
        let offset = PubSubWire.clampedInteger(query["offset"], in: 0...Int.max) ?? 0
        var targets: [String]?
        if let channels {
            targets = await bus.presenceChannels(subscribeKey, channels: channels, groups: groups)
        }
        var entries: [String: JSONValue] = [:]
        var total = 0
        for (channel, occupants) in await bus.hereNow(subscribeKey, channels: targets) {
            total += occupants.count
            var entry: [String: JSONValue] = ["occupancy": .int(Int64(occupants.count))]
            if showUUIDs, limit > 0 {
                let page = occupants.dropFirst(offset).prefix(limit)
                entry["uuids"] = .array(
                    page.map { occupant in
                        guard showState else { return .string(occupant.uuid) }
                        var object: [String: JSONValue] = ["uuid": .string(occupant.uuid)]
                        if let state = occupant.state { object["state"] = state }
                        return .object(object)
                    })
            }
            entries[channel] = .object(entry)
        }
        if let channels, channels.count == 1, groups.isEmpty, let single = entries[channels[0]]?.objectValue {
            return ok(single)
        }
        return ok([
            "payload": [
                "channels": .object(entries), "total_channels": .int(Int64(entries.count)),
                "total_occupancy": .int(Int64(total)),
            ]
        ])
    }
}
