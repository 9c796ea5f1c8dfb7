public import JSONCore

/// One RFC 6902 JSON Patch operation, in the exact wire form the DataSync `update*` methods send.
///
/// Paths are sent as written: nothing is prefixed and dots are not converted. Two operations are
/// equal when their names and values are equal and their paths hold the same Unicode scalars
/// (`/é` and `/e\u{301}` name different members, see ``JSONPointer``).
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

extension PatchOperation {
    /// Whether both operations have the same name, the same paths (by Unicode scalars) and equal
    /// values (JSON equality).
    public static func == (lhs: PatchOperation, rhs: PatchOperation) -> Bool {
        guard lhs.name == rhs.name, ScalarText.equal(lhs.path, rhs.path), lhs.value == rhs.value else { return false }
        switch (lhs.from, rhs.from) {
        case (nil, nil): return true
        case (let left?, let right?): return ScalarText.equal(left, right)
        default: return false
        }
    }

    /// Hashes consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        ScalarText.hash(path, into: &hasher)
        if let from { ScalarText.hash(from, into: &hasher) }
        hasher.combine(value)
    }
}
