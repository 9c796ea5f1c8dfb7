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
public enum Patch {
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
