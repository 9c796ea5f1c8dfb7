import Foundation
import JSONCore

/// Reads the value an RFC 6901 pointer names, for class property pointers (`/payload/price`).
/// Patch application itself belongs to the `JSONPatch` module.
enum PointerLookup {
    /// The reference tokens of `pointer` (`~1` → `/`, `~0` → `~`), or nil when it is not a pointer.
    static func tokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.contains("~")
                ? $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") : String($0)
        }
    }

    static func value(at tokens: ArraySlice<String>, in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(token), index >= 0, index < items.count, String(index) == token else {
                    return nil
                }
                current = items[index]
            default:
                return nil
            }
        }
        return current
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
