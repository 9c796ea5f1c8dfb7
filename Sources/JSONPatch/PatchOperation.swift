public import JSONCore

/// One RFC 6902 JSON Patch operation, in the exact wire form the DataSync `update*` methods send.
///
/// Paths are sent as written: nothing is prefixed and dots are not converted.
///
/// ```swift
/// let operations: [PatchOperation] = [
///     .test(path: "/status", value: "active"),
///     .replace(path: "/payload/price", value: 79.99),
///     .remove(path: "/payload/tempFlag"),
/// ]
/// ```
public enum PatchOperation: Sendable, Hashable {
    /// Adds `value` at `path` (inserting into arrays, replacing object members).
    case add(path: String, value: JSONValue)
    /// Removes the value at `path`, which must exist.
    case remove(path: String)
    /// Replaces the value at `path`, which must exist.
    case replace(path: String, value: JSONValue)
    /// Removes the value at `from` and adds it at `path`.
    case move(from: String, path: String)
    /// Adds a copy of the value at `from` at `path`.
    case copy(from: String, path: String)
    /// Succeeds only when the value at `path` equals `value` (numbers compare by value).
    case test(path: String, value: JSONValue)

    /// The operation name as sent in `"op"`.
    public var name: String {
        switch self {
        case .add: return "add"
        case .remove: return "remove"
        case .replace: return "replace"
        case .move: return "move"
        case .copy: return "copy"
        case .test: return "test"
        }
    }

    /// The target path.
    public var path: String {
        switch self {
        case .add(let path, _), .remove(let path), .replace(let path, _), .move(_, let path), .copy(_, let path),
            .test(let path, _):
            return path
        }
    }

    /// The source path of `move` and `copy`; `nil` for the other operations.
    public var from: String? {
        switch self {
        case .move(let from, _), .copy(let from, _): return from
        case .add, .remove, .replace, .test: return nil
        }
    }

    /// The value carried by `add`, `replace` and `test`; `nil` for the other operations.
    public var value: JSONValue? {
        switch self {
        case .add(_, let value), .replace(_, let value), .test(_, let value): return value
        case .remove, .move, .copy: return nil
        }
    }
}
