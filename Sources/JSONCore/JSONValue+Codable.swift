extension JSONValue: Codable {
    /// Decodes any JSON value from a decoder, keeping integers apart from doubles.
    public init(from decoder: any Decoder) throws {
        if let direct = decoder as? JSONValueDecoderImpl {
            self = direct.value
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .int(integer)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else if let object = try? container.decode([String: JSONValue].self) {
            self = .object(object)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes this value into any encoder.
    public func encode(to encoder: any Encoder) throws {
        if let direct = encoder as? JSONValueEncoderImpl {
            direct.storage.state = .value(self)
            return
        }
        if case .object(let members) = self {
            // A keyed container, as `Dictionary` would use, but over every member: two names that
            // are canonically equivalent stay two keys (whether the encoder keeps both is its own
            // business).
            var container = encoder.container(keyedBy: MemberKey.self)
            for (key, value) in members { try container.encode(value, forKey: MemberKey(stringValue: key)) }
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object: break  // encoded above
        }
    }
}

/// A coding key for any member name.
private struct MemberKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
