public import JSONCore

extension PatchOperation: Codable, JSONCodable {
    private enum CodingKeys: String, CodingKey {
        case op
        case path
        case from
        case value
    }

    /// Decodes one operation from its wire form, `{"op", "path", "value"}` or `{"op", "from", "path"}`.
    ///
    /// Members the operation does not use are ignored, as RFC 6902 asks. A `value` of `null` is a
    /// value; a missing `value` is an error.
    ///
    /// - Throws: `DecodingError` (`JSONError` from `JSONValueDecoder`) with a message naming the
    ///   problem: an unknown or missing `op`, a missing or non-string `path` or `from`, a missing
    ///   `value`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.op) else {
            throw DecodingError.keyNotFound(
                CodingKeys.op,
                .init(
                    codingPath: container.codingPath,
                    debugDescription: "a JSON Patch operation needs an \"op\" member"))
        }
        guard let op = try? container.decode(String.self, forKey: .op) else {
            throw DecodingError.dataCorruptedError(
                forKey: .op, in: container, debugDescription: "the JSON Patch \"op\" member must be a string")
        }
        func string(_ key: CodingKeys) throws -> String {
            guard container.contains(key) else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(
                        codingPath: container.codingPath,
                        debugDescription: "a JSON Patch \"\(op)\" operation needs a \"\(key.stringValue)\" member"))
            }
            guard let text = try? container.decode(String.self, forKey: key) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription: "the JSON Patch \"\(key.stringValue)\" member must be a JSON Pointer string")
            }
            return text
        }
        func value() throws -> JSONValue {
            guard container.contains(.value) else {
                throw DecodingError.keyNotFound(
                    CodingKeys.value,
                    .init(
                        codingPath: container.codingPath,
                        debugDescription: "a JSON Patch \"\(op)\" operation needs a \"value\" member"))
            }
            return try container.decode(JSONValue.self, forKey: .value)
        }
        switch op {
        case "add": self = .add(path: try string(.path), value: try value())
        case "remove": self = .remove(path: try string(.path))
        case "replace": self = .replace(path: try string(.path), value: try value())
        case "move": self = .move(from: try string(.from), path: try string(.path))
        case "copy": self = .copy(from: try string(.from), path: try string(.path))
        case "test": self = .test(path: try string(.path), value: try value())
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .op, in: container,
                debugDescription:
                    "unknown JSON Patch op \"\(op)\"; expected add, remove, replace, move, copy or test")
        }
    }

    /// Encodes the wire form: `op`, then `from` for `move`/`copy`, `path`, and `value` for
    /// `add`/`replace`/`test` (`remove` carries no `value`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .op)
        if let from { try container.encode(from, forKey: .from) }
        try container.encode(path, forKey: .path)
        if let value { try container.encode(value, forKey: .value) }
    }
}
