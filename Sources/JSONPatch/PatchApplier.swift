import JSONCore

/// The RFC 6902 apply engine.
///
/// Every mutation walks down to the parent of its target in place: at each level the container is
/// taken out of its enum case and the case is set to `.null` first, so the array or dictionary is
/// uniquely referenced and Swift mutates it without copying (the same trick as `JSONValue`'s
/// subscript setters). Each mutation records its inverse, so a
/// failing patch can be rolled back without having kept a copy of the document.
struct PatchApplier {
    /// The inverse of one applied mutation.
    private enum Undo {
        /// Remove the value at the pointer (undoes an insertion).
        case remove([String])
        /// Insert the value at the pointer (undoes a removal).
        case insert([String], JSONValue)
        /// Put the value back at the pointer (undoes a replacement).
        case replace([String], JSONValue)
    }

    private let recordsUndo: Bool
    private var undoLog: [Undo] = []

    init(recordsUndo: Bool) {
        self.recordsUndo = recordsUndo
    }

    mutating func apply(_ operations: [PatchOperation], to document: inout JSONValue) throws(PatchError) {
        undoLog.removeAll()
        for (index, operation) in operations.enumerated() {
            do {
                try apply(operation, to: &document)
            } catch {
                rollBack(&document)
                var located = error
                located.operationIndex = index
                let location = located.pointer.map { " at \"\($0)\"" } ?? ""
                located.message = "\(operation.name)\(location): \(error.message)"
                throw located
            }
        }
    }

    private mutating func rollBack(_ document: inout JSONValue) {
        // Each entry is the exact inverse of a mutation that succeeded on the state it leaves
        // behind, so replaying them newest first cannot fail.
        while let step = undoLog.popLast() {
            switch step {
            case .remove(let tokens): _ = try? Self.remove(tokens, from: &document, text: "")
            case .insert(let tokens, let value): _ = try? Self.insert(value, at: tokens, in: &document, text: "")
            case .replace(let tokens, let value): _ = try? Self.replace(tokens, with: value, in: &document, text: "")
            }
        }
    }

    private mutating func record(_ undo: Undo) {
        if recordsUndo { undoLog.append(undo) }
    }

    private mutating func apply(_ operation: PatchOperation, to document: inout JSONValue) throws(PatchError) {
        switch operation {
        case .add(let path, let value):
            let tokens = try JSONPointer(path).tokens
            record(try Self.insert(value, at: tokens, in: &document, text: path))
        case .remove(let path):
            let tokens = try JSONPointer(path).tokens
            let (removed, concrete) = try Self.remove(tokens, from: &document, text: path)
            record(.insert(concrete, removed))
        case .replace(let path, let value):
            let tokens = try JSONPointer(path).tokens
            record(.replace(tokens, try Self.replace(tokens, with: value, in: &document, text: path)))
        case .move(let from, let path):
            let source = try JSONPointer(from)
            let target = try JSONPointer(path)
            if source.isProperPrefix(of: target) {
                throw PatchError(
                    code: .moveIntoDescendant,
                    message: "cannot move \"\(from)\" into its own child \"\(path)\"", pointer: path)
            }
            if source == target {
                _ = try Self.resolve(source.tokens, in: document, text: from)
                return
            }
            let (value, concrete) = try Self.remove(source.tokens, from: &document, text: from)
            record(.insert(concrete, value))
            record(try Self.insert(value, at: target.tokens, in: &document, text: path))
        case .copy(let from, let path):
            let source = try JSONPointer(from)
            let target = try JSONPointer(path)
            let value = try Self.resolve(source.tokens, in: document, text: from)
            record(try Self.insert(value, at: target.tokens, in: &document, text: path))
        case .test(let path, let expected):
            let actual = try Self.resolve(JSONPointer(path).tokens, in: document, text: path)
            guard actual == expected else {
                throw PatchError(
                    code: .testFailed,
                    message: "value is \(Self.preview(actual)), expected \(Self.preview(expected))", pointer: path)
            }
        }
    }

    // MARK: - Primitives

    /// Adds `value` at `tokens` (RFC 6902 `add`): sets an object member, inserts into an array
    /// (`-` appends), or replaces the whole document. Returns the inverse.
    private static func insert(
        _ value: JSONValue, at tokens: [String], in document: inout JSONValue, text: String
    ) throws(PatchError) -> Undo {
        guard !tokens.isEmpty else {
            let old = document
            document = value
            return .replace([], old)
        }
        return try withParent(of: tokens, in: &document, text: text) { parent, key throws(PatchError) -> Undo in
            if case .object(var members) = parent {
                parent = .null
                let old = members.updateValue(value, forKey: key)
                parent = .object(members)
                return old.map { .replace(tokens, $0) } ?? .remove(tokens)
            }
            if case .array(var elements) = parent {
                let index: Int
                if key == JSONPointer.endOfArray {
                    index = elements.count
                } else {
                    index = try arrayIndex(key, text: text)
                    guard index <= elements.count else {
                        throw PatchError(
                            code: .indexOutOfRange,
                            message: "index \(index) is past the end of an array of \(elements.count)", pointer: text)
                    }
                }
                parent = .null
                elements.insert(value, at: index)
                parent = .array(elements)
                var concrete = tokens
                concrete[concrete.count - 1] = String(index)
                return .remove(concrete)
            }
            throw notAContainer(parent, text: text)
        }
    }

    /// Removes the value at `tokens`, which must exist. Returns it and the pointer it was at (with
    /// an array index written out).
    private static func remove(
        _ tokens: [String], from document: inout JSONValue, text: String
    ) throws(PatchError) -> (JSONValue, [String]) {
        guard !tokens.isEmpty else {
            throw PatchError(code: .cannotRemoveRoot, message: "cannot remove the whole document", pointer: text)
        }
        return try withParent(of: tokens, in: &document, text: text) {
            parent, key throws(PatchError) -> (JSONValue, [String]) in
            if case .object(var members) = parent {
                guard let index = members.index(forKey: key) else {
                    throw PatchError(code: .pathNotFound, message: "no member \"\(key)\"", pointer: text)
                }
                parent = .null
                let removed = members.remove(at: index).value
                parent = .object(members)
                return (removed, tokens)
            }
            if case .array(var elements) = parent {
                let index = try existingIndex(key, count: elements.count, text: text)
                parent = .null
                let removed = elements.remove(at: index)
                parent = .array(elements)
                return (removed, tokens)
            }
            throw notAContainer(parent, text: text)
        }
    }

    /// Replaces the value at `tokens`, which must exist, and returns the old value.
    private static func replace(
        _ tokens: [String], with value: JSONValue, in document: inout JSONValue, text: String
    ) throws(PatchError) -> JSONValue {
        guard !tokens.isEmpty else {
            let old = document
            document = value
            return old
        }
        return try withParent(of: tokens, in: &document, text: text) { parent, key throws(PatchError) -> JSONValue in
            if case .object(var members) = parent {
                guard let index = members.index(forKey: key) else {
                    throw PatchError(code: .pathNotFound, message: "no member \"\(key)\"", pointer: text)
                }
                parent = .null
                let old = members.values[index]
                members.values[index] = value
                parent = .object(members)
                return old
            }
            if case .array(var elements) = parent {
                let index = try existingIndex(key, count: elements.count, text: text)
                parent = .null
                let old = elements[index]
                elements[index] = value
                parent = .array(elements)
                return old
            }
            throw notAContainer(parent, text: text)
        }
    }

    /// The value at `tokens`, which must exist.
    private static func resolve(_ tokens: [String], in document: JSONValue, text: String) throws(PatchError)
        -> JSONValue
    {
        var current = document
        for token in tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else {
                    throw PatchError(code: .pathNotFound, message: "no member \"\(token)\"", pointer: text)
                }
                current = next
            case .array(let elements):
                current = elements[try existingIndex(token, count: elements.count, text: text)]
            default:
                throw notAContainer(current, text: text)
            }
        }
        return current
    }

    /// Walks in place to the container holding the last token of `tokens` and runs `body` on it.
    private static func withParent<Result>(
        of tokens: [String], in document: inout JSONValue, text: String,
        _ body: (inout JSONValue, String) throws(PatchError) -> Result
    ) throws(PatchError) -> Result {
        try descend(&document, tokens[...], text: text, body)
    }

    private static func descend<Result>(
        _ value: inout JSONValue, _ tokens: ArraySlice<String>, text: String,
        _ body: (inout JSONValue, String) throws(PatchError) -> Result
    ) throws(PatchError) -> Result {
        guard let token = tokens.first else {
            throw PatchError(code: .pathNotFound, message: "empty path", pointer: text)
        }
        if tokens.count == 1 { return try body(&value, token) }
        let rest = tokens.dropFirst()
        // `if case` and not `switch`: binding a `var` in a `switch` case keeps a second reference to
        // the container alive (measured), which would make every mutation copy it.
        if case .object(var members) = value {
            guard let index = members.index(forKey: token) else {
                throw PatchError(code: .pathNotFound, message: "no member \"\(token)\"", pointer: text)
            }
            // Drop the enum's reference so the dictionary (and the child inside it) is unique.
            value = .null
            defer { value = .object(members) }
            return try descend(&members.values[index], rest, text: text, body)
        }
        if case .array(var elements) = value {
            let index = try existingIndex(token, count: elements.count, text: text)
            value = .null
            defer { value = .array(elements) }
            return try descend(&elements[index], rest, text: text, body)
        }
        throw notAContainer(value, text: text)
    }

    // MARK: - Helpers

    private static func arrayIndex(_ token: String, text: String) throws(PatchError) -> Int {
        guard let index = JSONPointer.arrayIndex(token) else {
            throw PatchError(
                code: .invalidArrayIndex,
                message: "\"\(token)\" is not an array index (digits without leading zeros, or \"-\" to append)",
                pointer: text)
        }
        return index
    }

    private static func existingIndex(_ token: String, count: Int, text: String) throws(PatchError) -> Int {
        if token == JSONPointer.endOfArray {
            throw PatchError(
                code: .indexOutOfRange, message: "\"-\" names no existing element (only add may use it)",
                pointer: text)
        }
        let index = try arrayIndex(token, text: text)
        guard index < count else {
            throw PatchError(
                code: .indexOutOfRange, message: "index \(index) is out of range for an array of \(count)",
                pointer: text)
        }
        return index
    }

    private static func notAContainer(_ value: JSONValue, text: String) -> PatchError {
        PatchError(
            code: .notAContainer, message: "the path goes through a \(value.typeName), not an object or array",
            pointer: text)
    }

    private static func preview(_ value: JSONValue) -> String {
        let text = value.description
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }
}
