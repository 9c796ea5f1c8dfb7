import JSONCore
import JSONPatch

/// Parses a JSON Patch request body (RFC 6902: a JSON array of `op`/`path`/`value`/`from`
/// objects, sent to a PATCH as `application/json-patch+json`) into operations. The emulator reads
/// the wire form itself rather than sharing the SDK's encoder, so a wrong field name on either
/// side shows.
enum PatchBody {
    static func operations(from body: JSONValue) throws(APIError) -> [PatchOperation] {
        guard let items = body.arrayValue else {
            throw .invalid("a JSON Patch body is a JSON array of operations", path: "")
        }
        guard !items.isEmpty else { throw .invalid("the patch has no operations", path: "") }
        var operations: [PatchOperation] = []
        for (index, item) in items.enumerated() {
            guard let fields = item.objectValue else {
                throw .invalid("an operation must be an object", path: "/\(index)")
            }
            guard let op = fields["op"]?.stringValue else { throw .missing("/\(index)/op") }
            let allowed: Set<String>
            switch op {
            case "add", "replace", "test": allowed = ["op", "path", "value"]
            case "remove": allowed = ["op", "path"]
            case "move", "copy": allowed = ["op", "from", "path"]
            default: throw .invalid("unknown op '\(op)'", path: "/\(index)/op")
            }
            for key in fields.keys.sorted() where !allowed.contains(key) {
                throw .invalid("unexpected member '\(key)' in a \(op) operation", path: "/\(index)/\(escape(key))")
            }
            guard let path = fields["path"]?.stringValue else { throw .missing("/\(index)/path") }
            guard PointerLookup.tokens(path) != nil else {
                throw .invalid("not a JSON Pointer: '\(path)'", path: "/\(index)/path")
            }
            func from() throws(APIError) -> String {
                guard let from = fields["from"]?.stringValue else { throw .missing("/\(index)/from") }
                guard PointerLookup.tokens(from) != nil else {
                    throw .invalid("not a JSON Pointer: '\(from)'", path: "/\(index)/from")
                }
                return from
            }
            func value() throws(APIError) -> JSONValue {
                guard let value = fields["value"] else { throw .missing("/\(index)/value") }
                return value
            }
            switch op {
            case "add": operations.append(.add(path: path, value: try value()))
            case "replace": operations.append(.replace(path: path, value: try value()))
            case "test": operations.append(.test(path: path, value: try value()))
            case "remove": operations.append(.remove(path: path))
            case "move": operations.append(.move(from: try from(), path: path))
            default: operations.append(.copy(from: try from(), path: path))
            }
        }
        return operations
    }
}

/// The bridge to the `JSONPatch` module's RFC 6902 `apply`.
enum PatchApplication {
    /// Applies `operations` to `document` atomically. A failing `test` is a 409 `DS-0302`; any
    /// other failure (missing target, bad index) a 400 naming the operation.
    static func apply(_ operations: [PatchOperation], to document: JSONValue) throws(APIError) -> JSONValue {
        do {
            return try Patch.apply(operations, to: document)
        } catch {
            let path = error.operationIndex.map { "/\($0)" }
            if error.code == .testFailed {
                throw APIError(status: 409, code: .testFailed, message: error.message, path: path)
            }
            throw APIError.invalid(error.message, path: path)
        }
    }
}
