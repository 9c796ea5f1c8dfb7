import JSONCore
import JSONPatch

/// Class property pointers (`/payload/price`) through `JSONPatch`'s RFC 6901 `JSONPointer`, so the
/// emulator validates and unescapes pointers exactly as patch application does.
enum PointerLookup {
    /// The reference tokens of `pointer` (`~1` → `/`, `~0` → `~`), or nil when it is not a valid pointer.
    static func tokens(_ pointer: String) -> [String]? {
        (try? JSONPointer(pointer))?.tokens
    }

    static func value(at tokens: ArraySlice<String>, in document: JSONValue) -> JSONValue? {
        JSONPointer(tokens: Array(tokens)).value(in: document)
    }
}

extension StoredObject {
    /// The value a class property pointer (`/status` or `/payload/...`) names, nil when absent.
    func value(atPointerTokens tokens: [String]) -> JSONValue? {
        guard let first = tokens.first else { return nil }
        if first == "payload" {
            // The common case, one key under payload, without slicing or copying the payload.
            guard tokens.count > 1, case .object(let members)? = payload, let value = members[tokens[1]] else {
                return nil
            }
            return tokens.count == 2 ? value : PointerLookup.value(at: tokens.dropFirst(2), in: value)
        }
        if first == "status", tokens.count == 1 { return status.map(JSONValue.string) }
        return nil
    }
}
