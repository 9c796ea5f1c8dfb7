public import JSONCore

/// Applies and computes RFC 6902 JSON Patches: lists of ``PatchOperation``.
///
/// ```swift
/// let before: JSONValue = ["price": 99.99, "tags": ["new"]]
/// let after: JSONValue = ["price": 79.99, "tags": ["new", "sale"]]
/// let operations = Patch.diff(from: before, to: after)
/// // [.replace(path: "/price", value: 79.99), .add(path: "/tags/-", value: "sale")]
/// let result = try Patch.apply(operations, to: before)  // == after
/// ```
///
/// Applying is atomic: either every operation succeeds, or the document is left exactly as it was
/// and a ``PatchError`` names the failing operation.
public enum Patch: Sendable {
    /// Returns `document` with `operations` applied in order, with RFC 6902 semantics.
    ///
    /// - Throws: ``PatchError`` whose ``PatchError/operationIndex`` is the failing operation; no
    ///   partial result is returned.
    public static func apply(_ operations: [PatchOperation], to document: JSONValue) throws(PatchError) -> JSONValue {
        var result = document
        var applier = PatchApplier(recordsUndo: false)
        try applier.apply(operations, to: &result)
        return result
    }

    /// Checks, without a document, what can be checked of a patch before sending it: every `path`
    /// and `from` is a valid JSON Pointer, and no `move` goes into its own child.
    ///
    /// - Throws: ``PatchError`` whose ``PatchError/operationIndex`` is the first invalid operation.
    public static func validate(_ operations: [PatchOperation]) throws(PatchError) {
        for (index, operation) in operations.enumerated() {
            do throws(PatchError) {
                let target = try JSONPointer(operation.path)
                if let from = operation.from {
                    let source = try JSONPointer(from)
                    if case .move = operation, source.isProperPrefix(of: target) {
                        throw PatchError(
                            code: .moveIntoDescendant,
                            message: "cannot move \"\(from)\" into its own child \"\(operation.path)\"",
                            pointer: operation.path)
                    }
                }
            } catch {
                var located = error
                located.operationIndex = index
                located.message = "\(operation.name): \(error.message)"
                throw located
            }
        }
    }
}

extension JSONValue {
    /// Applies `operations` in order to this value, in place, with RFC 6902 semantics.
    ///
    /// The change is atomic: when an operation fails, the operations before it are undone and this
    /// value is left exactly as it was. Values are mutated in place, so applying many operations to a
    /// large document does not copy it (unless another copy of the document shares its storage).
    ///
    /// - Throws: ``PatchError`` whose ``PatchError/operationIndex`` is the failing operation.
    public mutating func apply(_ operations: [PatchOperation]) throws(PatchError) {
        var applier = PatchApplier(recordsUndo: true)
        try applier.apply(operations, to: &self)
    }

    /// This value with `operations` applied in order (see ``apply(_:)``).
    ///
    /// - Throws: ``PatchError`` whose ``PatchError/operationIndex`` is the failing operation.
    public func applying(_ operations: [PatchOperation]) throws(PatchError) -> JSONValue {
        try Patch.apply(operations, to: self)
    }
}
