public import JSONCore

/// One user present on a channel, as here-now reports it.
public struct PubNubPresenceOccupant: Sendable, Hashable {
    /// The user's id (`uuid` on the wire).
    public var userId: String
    /// The user's presence state on the channel, when here-now was asked for states and the user
    /// has one.
    public var state: JSONValue?

    /// Creates an occupant.
    public init(userId: String, state: JSONValue? = nil) {
        self.userId = userId
        self.state = state
    }
}

/// Who is on one channel.
public struct PubNubChannelPresence: Sendable, Hashable {
    /// The channel's name.
    public var channel: String
    /// How many users are present.
    public var occupancy: Int
    /// The users present; empty when here-now was asked without user ids.
    public var occupants: [PubNubPresenceOccupant]

    /// Creates a channel's presence.
    public init(channel: String, occupancy: Int, occupants: [PubNubPresenceOccupant] = []) {
        self.channel = channel
        self.occupancy = occupancy
        self.occupants = occupants
    }
}

/// The answer of here-now: who is on each channel, and the totals.
public struct PubNubHereNow: Sendable, Hashable {
    /// Each channel's presence, by channel name.
    public var channels: [String: PubNubChannelPresence]
    /// How many channels the answer covers.
    public var totalChannels: Int
    /// How many users are present over all those channels.
    public var totalOccupancy: Int

    /// Creates a here-now answer.
    public init(channels: [String: PubNubChannelPresence], totalChannels: Int, totalOccupancy: Int) {
        self.channels = channels
        self.totalChannels = totalChannels
        self.totalOccupancy = totalOccupancy
    }

    /// Reads both answer forms of a here-now call: the single-channel form (top-level `occupancy` and
    /// `uuids`, for exactly one channel and no groups) and the multi-channel form
    /// (`payload.channels`, `total_channels`, `total_occupancy`), with `uuids` as strings or
    /// `{"uuid","state"}` objects.
    package init?(answer object: JSONObject, singleChannel: String?) {
        if let channels = object["payload"]?["channels"]?.objectValue {
            var parsed: [String: PubNubChannelPresence] = [:]
            for (name, value) in channels {
                parsed[name] = Self.channel(name, value)
            }
            self.channels = parsed
            totalChannels = object["payload"]?["total_channels"]?.intValue ?? parsed.count
            totalOccupancy =
                object["payload"]?["total_occupancy"]?.intValue ?? parsed.values.reduce(0) { $0 + $1.occupancy }
            return
        }
        guard let name = singleChannel, object["occupancy"] != nil || object["uuids"] != nil else {
            // A global or multi-channel answer with nobody present may carry no `channels` at all.
            guard let payload = object["payload"]?.objectValue else { return nil }
            channels = [:]
            totalChannels = payload["total_channels"]?.intValue ?? 0
            totalOccupancy = payload["total_occupancy"]?.intValue ?? 0
            return
        }
        let channel = Self.channel(name, .object(object))
        channels = [name: channel]
        totalChannels = 1
        totalOccupancy = channel.occupancy
    }

    private static func channel(_ name: String, _ value: JSONValue) -> PubNubChannelPresence {
        let occupants: [PubNubPresenceOccupant] =
            value["uuids"]?.arrayValue?.compactMap { entry in
                if let id = entry.stringValue { return PubNubPresenceOccupant(userId: id) }
                guard let id = entry["uuid"]?.stringValue else { return nil }
                return PubNubPresenceOccupant(userId: id, state: entry["state"])
            } ?? []
        return PubNubChannelPresence(
            channel: name, occupancy: value["occupancy"]?.intValue ?? occupants.count, occupants: occupants)
    }
}
