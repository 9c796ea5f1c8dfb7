public import JSONCore

extension Patch {
    /// Operations that turn `old` into `new`: `Patch.apply(diff(from: a, to: b), to: a) == b` always.
    ///
    /// Objects are compared member by member, recursively, so unrelated members are never touched.
    /// Arrays keep their common beginning and end; the common edits (appending, removing at either
    /// end, inserting or removing a run in the middle, changing one element) give one operation per
    /// element added, removed or changed. When an array changed so much that per-element operations
    /// would outnumber its elements, it is replaced whole. Values of different types, and changed
    /// strings, numbers and Booleans, are replaced. Numbers compare by value (`1` equals `1.0`).
    ///
    /// - Parameters:
    ///   - old: The value as it is now, such as the payload the server last returned.
    ///   - new: The value it should become; the result is empty when it equals `old`.
    ///   - root: Where `old` and `new` sit in the document the patch will be applied to; every
    ///     operation's path starts with it. The default is the whole document.
    public static func diff(from old: JSONValue, to new: JSONValue, under root: JSONPointer = .root)
        -> [PatchOperation]
    {
        var operations: [PatchOperation] = []
        appendDiff(from: old, to: new, at: root.description, into: &operations)
        return operations
    }

    /// Operations that turn the JSON form of `old` into that of `new`, with paths under `root`.
    ///
    /// Use it to edit a `Codable` payload and send only what changed:
    ///
    /// ```swift
    /// var edited = product
    /// edited.price = 79.99
    /// let operations = try Patch.diffEncoded(from: product, to: edited, under: .payload)
    /// // [.replace(path: "/payload/price", value: 79.99)]
    /// ```
    ///
    /// (It has its own name so that literals such as `["a": 1]` passed to ``diff(from:to:under:)``
    /// are always read as `JSONValue`.) Both values are converted with `encoder` (a default
    /// `JSONValueEncoder` unless given). A property that encodes as absent (a `nil` optional)
    /// yields `remove` or `add` of that member.
    ///
    /// - Parameters:
    ///   - old: The value as it is stored now, for example the payload decoded from the last read.
    ///   - new: The edited value; the result is empty when both encode alike.
    ///   - root: Where both values sit in the document, such as ``JSONPointer/payload``; every path
    ///     starts with it. The whole document by default.
    ///   - encoder: The encoder for both values, with its date and data strategies; a default
    ///     `JSONValueEncoder` unless given.
    /// - Throws: ``PatchError`` with code ``PatchError/Code-swift.struct/encodingFailed`` when either
    ///   value cannot be encoded.
    public static func diffEncoded<Value: Encodable>(
        from old: Value, to new: Value, under root: JSONPointer = .root, encoder: JSONValueEncoder = JSONValueEncoder()
    ) throws(PatchError) -> [PatchOperation] {
        diff(from: try encode(old, with: encoder), to: try encode(new, with: encoder), under: root)
    }

    private static func encode(_ value: some Encodable, with encoder: JSONValueEncoder) throws(PatchError)
        -> JSONValue
    {
        do {
            return try encoder.encode(value)
        } catch {
            throw PatchError(code: .encodingFailed, message: "cannot encode \(type(of: value)) as JSON: \(error)")
        }
    }

    private static func appendDiff(
        from old: JSONValue, to new: JSONValue, at path: String, into operations: inout [PatchOperation]
    ) {
        switch (old, new) {
        case (.object(let oldMembers), .object(let newMembers)):
            diffObjects(oldMembers, newMembers, at: path, into: &operations)
        case (.array(let oldElements), .array(let newElements)):
            diffArrays(oldElements, newElements, at: path, into: &operations)
        default:
            if old != new { operations.append(.replace(path: path, value: new)) }
        }
    }

    private static func diffObjects(
        _ old: JSONObject, _ new: JSONObject, at path: String,
        into operations: inout [PatchOperation]
    ) {
        // Only the members that differ are sorted (sorted keys make the patch deterministic), in
        // scalar order so that names differing only in normalisation never tie.
        var changed: [String] = []
        var removedCount = 0
        for (key, oldValue) in old {
            if let newValue = new[key] {
                if oldValue != newValue { changed.append(key) }
            } else {
                changed.append(key)
                removedCount += 1
            }
        }
        for key in changed.sorted(by: ScalarText.less) {
            let memberPath = path + "/" + JSONPointer.escape(key)
            if let oldValue = old[key], let newValue = new[key] {
                appendDiff(from: oldValue, to: newValue, at: memberPath, into: &operations)
            } else {
                operations.append(.remove(path: memberPath))
            }
        }
        guard new.count > old.count - removedCount else { return }
        var added: [String] = []
        for key in new.keys where old[key] == nil { added.append(key) }
        for key in added.sorted(by: ScalarText.less) {
            guard let newValue = new[key] else { continue }
            operations.append(.add(path: path + "/" + JSONPointer.escape(key), value: newValue))
        }
    }

    private static func diffArrays(
        _ old: [JSONValue], _ new: [JSONValue], at path: String, into operations: inout [PatchOperation]
    ) {
        let oldCount = old.count
        let newCount = new.count
        var prefix = 0
        while prefix < oldCount, prefix < newCount, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < oldCount - prefix, suffix < newCount - prefix,
            old[oldCount - 1 - suffix] == new[newCount - 1 - suffix]
        {
            suffix += 1
        }
        let oldMiddle = oldCount - prefix - suffix
        let newMiddle = newCount - prefix - suffix
        let paired = min(oldMiddle, newMiddle)

        var edits: [PatchOperation] = []
        for offset in 0..<paired {
            let index = prefix + offset
            diffElement(old[index], new[index], at: path + "/" + String(index), into: &edits)
        }
        // Remove surplus old elements from the highest index down, so earlier indices stay valid.
        if oldMiddle > paired {
            for index in stride(from: prefix + oldMiddle - 1, through: prefix + paired, by: -1) {
                edits.append(.remove(path: path + "/" + String(index)))
            }
        }
        if newMiddle > paired {
            let appends = suffix == 0
            for index in (prefix + paired)..<(prefix + newMiddle) {
                let elementPath = path + "/" + (appends ? JSONPointer.endOfArray : String(index))
                edits.append(.add(path: elementPath, value: new[index]))
            }
        }
        if edits.count > 1 && edits.count >= newCount {
            operations.append(.replace(path: path, value: .array(new)))
        } else {
            operations += edits
        }
    }

    /// Diffs two array elements at the same index; a container whose member edits would outnumber
    /// half its members is replaced whole instead.
    private static func diffElement(
        _ old: JSONValue, _ new: JSONValue, at path: String, into operations: inout [PatchOperation]
    ) {
        if old == new { return }
        let size: Int
        switch (old, new) {
        case (.object, .object(let members)): size = members.count
        case (.array, .array(let elements)): size = elements.count
        default:
            if old != new { operations.append(.replace(path: path, value: new)) }
            return
        }
        var nested: [PatchOperation] = []
        appendDiff(from: old, to: new, at: path, into: &nested)
        if nested.count > max(1, size / 2) {
            operations.append(.replace(path: path, value: new))
        } else {
            operations += nested
        }
    }
}
