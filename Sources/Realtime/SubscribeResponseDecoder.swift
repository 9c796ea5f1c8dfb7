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

/// Turns subscribe answer bytes into typed envelopes.
///
/// Strict where the loop depends on it (the `t` cursor, each envelope's `c` and `p.t`), lenient
/// elsewhere: timetokens may be strings (as the service sends them) or integers, a missing region is
/// 0, and unknown keys are ignored. A body that does not parse still yields its cursor when the
/// `"t"` object at its start does (the service writes `t` first).
package enum SubscribeResponseDecoder {
    package static func decode(_ body: [UInt8]) -> SubscribeDecodeOutcome {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: body)
        } catch {
            return .malformed(salvagedCursor: salvageCursor(body), reason: "the body is not JSON: \(error)")
        }
        guard let object = root.objectValue else {
            return .malformed(salvagedCursor: nil, reason: "the body is \(root.typeName), not an object")
        }
        guard let cursorValue = object["t"], let cursor = cursor(cursorValue) else {
            return .malformed(salvagedCursor: nil, reason: "the body has no readable \"t\" cursor")
        }
        guard let messages = object["m"] else {
            return .decoded(SubscribeResponse(cursor: cursor, envelopes: []))
        }
        guard let items = messages.arrayValue else {
            return .malformed(salvagedCursor: cursor, reason: "\"m\" is \(messages.typeName), not an array")
        }
        var envelopes: [SubscribeEnvelope] = []
        envelopes.reserveCapacity(items.count)
        var problems: [String] = []
        for (index, item) in items.enumerated() {
            switch envelope(item) {
            case .success(let envelope): envelopes.append(envelope)
            case .failure(let problem): problems.append("m[\(index)]: \(problem.text)")
            }
        }
        return .decoded(SubscribeResponse(cursor: cursor, envelopes: envelopes, problems: problems))
    }

    private struct Problem: Error {
        let text: String
    }

    private static func envelope(_ value: JSONValue) -> Result<SubscribeEnvelope, Problem> {
        guard case .object(let item) = value else { return .failure(Problem(text: "not an object")) }
        // One pass over the keys instead of a hashed lookup per field: envelopes carry a dozen
        // one- to three-letter keys, so comparing them is cheaper than hashing each name.
        var channel: String?
        var published: JSONValue?
        var typeValue: JSONValue?
        var envelope = SubscribeEnvelope(
            published: SubscribeCursor(timetoken: 0, region: 0), channel: "", payload: .null)
        for (key, field) in item {
            switch key {
            case "c": channel = field.stringValue
            case "p": published = field
            case "d": envelope.payload = field
            case "e": typeValue = field
            case "i": envelope.publisher = field.stringValue
            case "a": envelope.shard = field.stringValue
            case "f": envelope.flags = field.intValue
            case "k": envelope.subscribeKey = field.stringValue
            case "b": envelope.subscriptionMatch = field.stringValue
            case "u": envelope.metadata = field.isNull ? nil : field
            case "s": envelope.sequence = field.intValue
            case "o": envelope.origination = cursor(field)
            case "cmt": envelope.customMessageType = field.stringValue
            default: continue
            }
        }
        guard let channel else { return .failure(Problem(text: "no \"c\" channel")) }
        guard let published, let publishedCursor = cursor(published) else {
            return .failure(Problem(text: "no readable \"p\" timetoken"))
        }
        if let raw = typeValue, !raw.isNull {
            guard let number = raw.intValue else { return .failure(Problem(text: "\"e\" is not an integer")) }
            envelope.type = number
        }
        envelope.channel = channel
        envelope.published = publishedCursor
        return .success(envelope)
    }

    /// Reads `{"t": "<timetoken>", "r": <region>}`.
    private static func cursor(_ value: JSONValue) -> SubscribeCursor? {
        guard let object = value.objectValue, let raw = object["t"], let timetoken = timetoken(raw) else {
            return nil
        }
        let region: Int
        switch object["r"] {
        case .none, .some(.null): region = 0
        case .some(let value):
            if let number = value.intValue {
                region = number
            } else if let text = value.stringValue, let number = Int(text) {
                region = number
            } else {
                return nil
            }
        }
        return SubscribeCursor(timetoken: timetoken, region: region)
    }

    /// A timetoken written as a string of digits or as a non-negative integer.
    package static func timetoken(_ value: JSONValue) -> Timetoken? {
        switch value {
        case .string(let text):
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                return nil
            }
            return Timetoken(text)
        case .int(let number):
            return number >= 0 ? Timetoken(number) : nil
        default:
            return nil
        }
    }

    /// Reads the cursor from the `{"t":{…}` object at the start of a body that failed to parse.
    private static func salvageCursor(_ body: [UInt8]) -> SubscribeCursor? {
        let window = body.prefix(256)
        var index = window.startIndex
        func skipSpace() {
            while index < window.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(window[index]) { index += 1 }
        }
        func expect(_ bytes: String) -> Bool {
            for byte in bytes.utf8 {
                skipSpace()
                guard index < window.endIndex, window[index] == byte else { return false }
                index += 1
            }
            return true
        }
        guard expect("{"), expect("\"t\""), expect(":") else { return nil }
        skipSpace()
        guard index < window.endIndex, window[index] == UInt8(ascii: "{") else { return nil }
        guard let close = window[index...].firstIndex(of: UInt8(ascii: "}")) else { return nil }
        guard let value = try? JSONValue(parsing: window[index...close]) else { return nil }
        return cursor(value)
    }
}
