package import JSONCore

/// One item of a subscribe answer's `m` array, with the wire's short keys given names.
package struct SubscribeEnvelope: Hashable, Sendable {
    /// `a`: the shard.
    package var shard: String?
    /// `f`: debug flags.
    package var flags: Int?
    /// `e`: the event type; `nil` when absent (a message, or presence on a `-pnpres` channel).
    package var type: Int?
    /// `i`: the publisher's user id.
    package var publisher: String?
    /// `s`: the publish sequence number.
    package var sequence: Int?
    /// `p`: the publish timetoken and region; the event's timetoken.
    package var published: SubscribeCursor
    /// `o`: the origination timetoken.
    package var origination: SubscribeCursor?
    /// `k`: the subscribe key.
    package var subscribeKey: String?
    /// `c`: the concrete channel.
    package var channel: String
    /// `b`: what the subscriber asked for that matched (group, pattern, presence channel).
    package var subscriptionMatch: String?
    /// `d`: the payload.
    package var payload: JSONValue
    /// `u`: the publish metadata.
    package var metadata: JSONValue?
    /// `cmt`: the custom message type.
    package var customMessageType: String?

    package init(
        shard: String? = nil, flags: Int? = nil, type: Int? = nil, publisher: String? = nil, sequence: Int? = nil,
        published: SubscribeCursor, origination: SubscribeCursor? = nil, subscribeKey: String? = nil,
        channel: String, subscriptionMatch: String? = nil, payload: JSONValue, metadata: JSONValue? = nil,
        customMessageType: String? = nil
    ) {
        self.shard = shard
        self.flags = flags
        self.type = type
        self.publisher = publisher
        self.sequence = sequence
        self.published = published
        self.origination = origination
        self.subscribeKey = subscribeKey
        self.channel = channel
        self.subscriptionMatch = subscriptionMatch
        self.payload = payload
        self.metadata = metadata
        self.customMessageType = customMessageType
    }

    /// What fan-out matches subscriptions against: `b`, or `c` when `b` is absent.
    package var match: String { subscriptionMatch ?? channel }
}

/// A decoded subscribe answer.
package struct SubscribeResponse: Hashable, Sendable {
    /// `t`: the cursor for the next request.
    package var cursor: SubscribeCursor
    /// `m`: the envelopes that decoded.
    package var envelopes: [SubscribeEnvelope]
    /// Why envelopes were left out (one line each), empty when every envelope decoded.
    package var problems: [String]
    /// Whether the body did not parse and only its cursor was read: whatever `m` held is lost
    /// unless the same long-poll is asked again.
    package var isSalvaged: Bool

    package init(
        cursor: SubscribeCursor, envelopes: [SubscribeEnvelope], problems: [String] = [], isSalvaged: Bool = false
    ) {
        self.cursor = cursor
        self.envelopes = envelopes
        self.problems = problems
        self.isSalvaged = isSalvaged
    }
}

/// What the decoder could make of a subscribe answer body.
package enum SubscribeDecodeOutcome: Hashable, Sendable {
    /// The cursor was read; `problems` lists envelopes that were skipped.
    case decoded(SubscribeResponse)
    /// The body is not a subscribe answer; `salvagedCursor` holds the cursor when its `"t"` object
    /// could still be read from the start of the body.
    case malformed(salvagedCursor: SubscribeCursor?, reason: String)
}
