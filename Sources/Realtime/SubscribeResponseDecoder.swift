package import JSONCore

/// Turns subscribe answer bytes into typed envelopes.
///
/// Strict where the loop depends on it (the `t` cursor, each envelope's `c` and `p.t`), lenient
/// elsewhere: timetokens may be strings (as the service sends them) or integers, a missing region is
/// 0, and unknown keys are ignored. A body that does not parse still yields its cursor when the
/// `"t"` object at its start does (the service writes `t` first).
package enum SubscribeResponseDecoder {
    /// Decodes a subscribe answer body.
    ///
    /// Reads the answer straight from the bytes (``AnswerReader``), building a ``JSONValue`` only
    /// for payloads, metadata and members it does not know. Anything off the well-formed path (a
    /// syntax error, a body that is not an answer, trailing bytes) goes to ``decodeThroughTree(_:)``,
    /// which gives the same outcome for every body the byte reader accepts and the only outcome
    /// (errors and salvage included) for the rest.
    package static func decode(_ body: [UInt8]) -> SubscribeDecodeOutcome {
        if let direct = decodeDirectly(body) { return .decoded(direct) }
        return decodeThroughTree(body)
    }

    /// The byte reader alone: the answer, or nil for any body that is not a well-formed answer
    /// (which ``decode(_:)`` hands to ``decodeThroughTree(_:)``).
    package static func decodeDirectly(_ body: [UInt8]) -> SubscribeResponse? {
        body.withUnsafeBytes { bytes in
            var reader = AnswerReader(bytes)
            return try? reader.answer()
        }
    }

    /// Decodes by parsing the whole body into a ``JSONValue`` first: the reference the byte reader
    /// is checked against, and the path that reports errors.
    package static func decodeThroughTree(_ body: [UInt8]) -> SubscribeDecodeOutcome {
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

    struct Problem: Error {
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
            case "u": envelope.metadata = field.isNull ? JSONValue?.none : field
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
    static func cursor(_ value: JSONValue) -> SubscribeCursor? {
        guard let object = value.objectValue, let raw = object["t"], let timetoken = timetoken(raw) else {
            return nil
        }
        guard let region = region(object["r"]) else { return nil }
        return SubscribeCursor(timetoken: timetoken, region: region)
    }

    /// A cursor's `r`: absent or null is 0, else an integer or a string of one; `nil` when unreadable.
    static func region(_ value: JSONValue?) -> Int? {
        switch value {
        case .none, .some(.null): return 0
        case .some(let value):
            if let number = value.intValue { return number }
            if let text = value.stringValue, let number = Int(text) { return number }
            return nil
        }
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
